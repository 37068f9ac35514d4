// Plain-text rendering of run status and metrics tables for the terminal.
import { sumSpend } from '../contracts/spend';
import { stageTimesLine } from '../workflows/details';
import { iterationLabel } from '../contracts/iteration-label';
import { fmtNum, metricsTable } from '../contracts/metrics-table';
import { roleChainLines } from '../contracts/role-chains';
import type { IterationSummary, Spend, SpendReport } from '../contracts/run';
import type { RunStatus } from './runs';
import { trimmedText, type ProbeAnswer } from '../activities/report/probe-text';
import { writtenTrackerLines } from './tracking-lines';

export { fmtNum, metricsTable };

/** Which iteration, in the project's one numbering (contracts/iteration-label.ts). */
export const runIterationLabel = (s: RunStatus) =>
  iterationLabel({
    iteration: s.loop.iteration,
    iterations: s.loop.iterations,
    finished: s.loop.finished && !s.loop.stopped,
    stopped: s.loop.stopped,
  });

const money = (s: Spend) => `${s.tokens} tokens${s.usd ? ` ($${s.usd.toFixed(4)})` : ''}`;

/** "12345 tokens ($0.0123) · generate 10000 tokens · build-data 2345 tokens · roles: agent 8000 tokens, …" */
export function spendLine(r: SpendReport): string {
  const stages = Object.entries(r.byStage).map(([st, x]) => `${st} ${money(x!)}`);
  const roles = Object.entries(r.byRole).map(([role, x]) => `${role} ${money(x)}`);
  return [money(r.total), ...stages, ...(roles.length ? [`roles: ${roles.join(', ')}`] : [])].join(' · ');
}

/** The run's spend so far: the finished iterations' and the running one's (absent when none was recorded). */
const runSpend = (reports: Array<SpendReport | undefined>): Spend | undefined =>
  reports.some(Boolean) ? sumSpend(reports.map((r) => r?.total)) : undefined;

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
    if (it.spend) lines.push(`  spend: ${spendLine(it.spend)}`);
    const trainers = s.training?.length ? s.training : it.train?.step !== undefined ? [{ step: it.train.step, loss: it.train.loss }] : [];
    for (const t of trainers)
      lines.push(`  train${t.role ? ` ${t.role}` : ''}: step ${t.step}${t.loss !== undefined ? ` · loss ${fmtNum(t.loss)}` : ''}`);
    for (const w of s.waits ?? []) lines.push(`  ${it.stage} (${w.activity}): ${w.waiting}`);
    if (it.metrics)
      lines.push(
        `  metrics: ${Object.entries(it.metrics)
          .map(([k, v]) => `${k}=${fmtNum(v)}`)
          .join(' ')}`,
      );
    if (it.attention) {
      const roles = it.attention.roles ? ` (${it.attention.roles.length > 1 ? 'roles' : 'role'} ${it.attention.roles.join(', ')})` : '';
      lines.push(`  NEEDS ATTENTION in stage "${it.attention.stage}"${roles} (since ${it.attention.since}):`);
      lines.push(
        ...it.attention.error
          .split('\n')
          .slice(0, 12)
          .map((l) => `    ${l}`),
      );
      lines.push(`  fix the cause, then: collab-loop retry ${loop.runName} [--stage S] [--set key=value]`);
    }
  }
  const run = runSpend([...loop.done.map((d) => d.spend), s.workflowStatus === 'RUNNING' ? it?.spend : undefined]);
  if (run) lines.push(`  run spend: ${run.tokens} tokens${run.usd ? ` · $${run.usd.toFixed(4)}` : ''}`);
  if (loop.trackingError) lines.push(`  tracking failed (the run went on without it): ${loop.trackingError}`);
  lines.push(...writtenTrackerLines(loop.tracking).map((l) => `  tracked in ${l}`));
  const changes = it?.configChanges ?? loop.configChanges;
  if (changes?.length) lines.push(`  config changed by retry --set (this and later iterations): ${changes.join(' · ')}`);
  if (loop.done.length) lines.push('', metricsTable(loop.done));
  const roles = roleChainLines(loop.done);
  if (roles.length > 1) lines.push('', 'model roles:', ...roles.map((l) => `  ${l}`));
  return lines.join('\n');
}

/** The checkpoint the run's chain continues from once an iteration has trained (any role), else undefined. */
export function trainedCheckpoint(done: IterationSummary[]): string | undefined {
  for (const d of [...done].reverse()) {
    const trained = d.nextCheckpoint ?? Object.values(d.models ?? {}).find((m) => m.nextCheckpoint)?.nextCheckpoint;
    if (trained) return trained;
  }
  return undefined;
}

/** The probe's answers, one line each on one line of the terminal (newlines shown as ⏎). */
const probeText = (answers: ProbeAnswer[] | Error | undefined) =>
  answers instanceof Error
    ? `\n         probe answers not available: ${answers.message}`
    : (answers ?? [])
        .map((a) => `\n         probe ${a.prompt}: ${JSON.stringify(trimmedText(a.text.replace(/\s*\n\s*/g, ' ⏎ '), 100))}`)
        .join('');

/** Which weights each iteration served and trained: the lineage chain in a few lines, then each model role's chain
 *  when the run has several roles. */
export function lineageLines(rows: IterationSummary[], probes?: Map<number, ProbeAnswer[] | Error>): string {
  const roles = roleChainLines(rows);
  const perRole = roles.length > 1 ? `\n  model roles:\n${roles.map((l) => `    ${l}`).join('\n')}` : '';
  return `${rows
    .map((r) => {
      const probe = r.probe
        ? ` · probe ${r.probe.prompts} prompts, ${r.probe.completionTokens} tokens, answers ${r.probe.answersSha256.slice(0, 12)}`
        : '';
      const next = r.nextCheckpoint
        ? `\n         trained ${r.train?.steps ?? '?'} steps${r.train?.resumedFromStep ? ` (resumed from step ${r.train.resumedFromStep})` : ''} → ${r.nextCheckpoint}`
        : '';
      return `  iter ${r.iteration}: served ${r.checkpoint}${probe}${probeText(probes?.get(r.iteration))}${next}`;
    })
    .join('\n')}${perRole}`;
}
