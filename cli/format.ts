// Plain-text rendering of run status and metrics tables for the terminal.
import { stageTimesLine } from '../workflows/details';
import { iterationLabel } from '../workflows/iteration-label';
import { fmtNum, metricsTable } from '../workflows/metrics-table';
import type { IterationSummary } from '../workflows/types';
import type { RunStatus } from './runs';

export { fmtNum, metricsTable };

/** Which iteration, in the project's one numbering (workflows/iteration-label.ts). */
export const runIterationLabel = (s: RunStatus) =>
  iterationLabel({
    iteration: s.loop.iteration,
    iterations: s.loop.iterations,
    finished: s.loop.finished && !s.loop.stopped,
    stopped: s.loop.stopped,
  });

export function renderStatus(s: RunStatus): string {
  const { loop, iteration: it } = s;
  const lines: string[] = [];
  const state = s.workflowStatus === 'RUNNING' ? (loop.paused ? 'paused' : 'running') : s.workflowStatus.toLowerCase();
  lines.push(`run ${loop.runName}${loop.recipe ? ` (${loop.recipe})` : ''} · ${state} · ${runIterationLabel(s)}`);
  if (it && s.workflowStatus === 'RUNNING') {
    const live = s.inFlight.reduce((a, f) => a + f.done, 0);
    lines.push(`  stage: ${it.stage}${it.paused ? ' (paused)' : ''}`);
    const times = stageTimesLine(it.stages);
    if (times) lines.push(`  stages: ${times}`);
    if (it.shards.total)
      lines.push(
        `  progress: shards ${it.shards.done}/${it.shards.total} · conversations ${it.conversations.done + live} done (${live} in running shards) · tokens ${it.tokens}`,
      );
    if (it.train?.step !== undefined)
      lines.push(`  train: step ${it.train.step}${it.train.loss !== undefined ? ` · loss ${fmtNum(it.train.loss)}` : ''}`);
    if (it.metrics)
      lines.push(
        `  metrics: ${Object.entries(it.metrics)
          .map(([k, v]) => `${k}=${fmtNum(v)}`)
          .join(' ')}`,
      );
    if (it.attention) {
      lines.push(`  NEEDS ATTENTION in stage "${it.attention.stage}" (since ${it.attention.since}):`);
      lines.push(
        ...it.attention.error
          .split('\n')
          .slice(0, 12)
          .map((l) => `    ${l}`),
      );
      lines.push(`  fix the cause, then: collab-loop retry ${loop.runName} [--stage S] [--set key=value]`);
    }
  }
  if (loop.trackingError) lines.push(`  tracking failed (the run went on without it): ${loop.trackingError}`);
  if (loop.done.length) lines.push('', metricsTable(loop.done));
  return lines.join('\n');
}

/** Which weights each iteration served and trained: the lineage chain in a few lines. */
export function lineageLines(rows: IterationSummary[]): string {
  return rows
    .map((r) => {
      const probe = r.probe
        ? ` · probe ${r.probe.prompts} prompts, ${r.probe.completionTokens} tokens, answers ${r.probe.answersSha256.slice(0, 12)}`
        : '';
      const next = r.nextCheckpoint
        ? `\n         trained ${r.train?.steps ?? '?'} steps${r.train?.resumedFromStep ? ` (resumed from step ${r.train.resumedFromStep})` : ''} → ${r.nextCheckpoint}`
        : '';
      return `  iter ${r.iteration}: served ${r.checkpoint}${probe}${next}`;
    })
    .join('\n');
}
