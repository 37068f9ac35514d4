// Plain-text rendering of run status and metrics tables for the terminal.
import type { IterationSummary } from '../workflows/types';
import type { RunStatus } from './runs';

export const fmtNum = (v: number | undefined) =>
  v === undefined || Number.isNaN(v) ? '-' : Number.isInteger(v) ? String(v) : v.toFixed(4);

/** One row per metric, one column per iteration (recipes report a dozen metrics; iterations are few). */
export function metricsTable(rows: IterationSummary[], keys?: string[]): string {
  if (!rows.length) return '(no finished iterations yet)';
  const names = keys ?? [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  const header = ['metric', ...rows.map((r) => `iter ${r.iteration}`)];
  const body = [
    ...names.map((n) => [n, ...rows.map((r) => fmtNum(r.metrics[n]))]),
    ['tokens (all LLM calls)', ...rows.map((r) => String(r.tokens))],
    ...(rows.some((r) => r.train) ? [
      ['train steps', ...rows.map((r) => String(r.train?.steps ?? '-'))],
      ['train final loss', ...rows.map((r) => fmtNum(r.train?.finalLoss))],
    ] : []),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function renderStatus(s: RunStatus): string {
  const { loop, iteration: it } = s;
  const lines: string[] = [];
  const state = s.workflowStatus === 'RUNNING' ? (loop.paused ? 'paused' : 'running') : s.workflowStatus.toLowerCase();
  lines.push(`run ${loop.runName}${loop.recipe ? ` (${loop.recipe})` : ''} · ${state} · iteration ${Math.min(loop.iteration + 1, loop.iterations)}/${loop.iterations}`);
  if (it && s.workflowStatus === 'RUNNING') {
    const live = s.inFlight.reduce((a, f) => a + f.done, 0);
    lines.push(`  stage: ${it.stage}${it.paused ? ' (paused)' : ''}`);
    if (it.shards.total)
      lines.push(`  progress: shards ${it.shards.done}/${it.shards.total} · conversations ${it.conversations.done + live} done (${live} in running shards) · tokens ${it.tokens}`);
    if (it.train?.step !== undefined) lines.push(`  train: step ${it.train.step}${it.train.loss !== undefined ? ` · loss ${fmtNum(it.train.loss)}` : ''}`);
    if (it.metrics) lines.push(`  metrics: ${Object.entries(it.metrics).map(([k, v]) => `${k}=${fmtNum(v)}`).join(' ')}`);
    if (it.attention) {
      lines.push(`  NEEDS ATTENTION in stage "${it.attention.stage}" (since ${it.attention.since}):`);
      lines.push(...it.attention.error.split('\n').slice(0, 12).map((l) => `    ${l}`));
      lines.push(`  fix the cause, then: collab-loop retry ${loop.runName} [--stage S] [--set key=value]`);
    }
  }
  if (loop.done.length) lines.push('', metricsTable(loop.done));
  return lines.join('\n');
}

/** Which weights each iteration served and trained: the lineage chain in a few lines. */
export function lineageLines(rows: IterationSummary[]): string {
  return rows
    .map((r) => {
      const probe = r.probe ? ` · probe ${r.probe.prompts} prompts, ${r.probe.completionTokens} tokens, answers ${r.probe.answersSha256.slice(0, 12)}` : '';
      const next = r.nextCheckpoint ? `\n         trained ${r.train?.steps ?? '?'} steps${r.train?.resumedFromStep ? ` (resumed from step ${r.train.resumedFromStep})` : ''} → ${r.nextCheckpoint}` : '';
      return `  iter ${r.iteration}: served ${r.checkpoint}${probe}${next}`;
    })
    .join('\n');
}
