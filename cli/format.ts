// Plain-text rendering of run status and metrics tables for the terminal.
import { sumSpend } from '../contracts/spend';
import { stageTimesLine } from '../workflows/details';
import { iterationLabel } from '../contracts/iteration-label';
import { fmtNum, metricsTable } from '../contracts/metrics-table';
import { roleChainLines } from '../contracts/role-chains';
import type { Attention, IterationSummary, Spend, SpendReport, Stage } from '../contracts/run';
import { stageProgress } from '../contracts/progress';
import { countText, progressLines } from '../contracts/progress-text';
import { runIterationEta, runProgress } from './run-progress';
import type { RunStatus, Unanswered } from './loop-workflow';
import { busyLine } from './worker-busy';
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

/** The run's state in one word or two: "needs attention" while a stage waits for `retry`, "paused", "running",
 *  else the workflow's status ("completed", "failed", …). */
export function runStateWord(s: RunStatus): string {
  if (s.workflowStatus !== 'RUNNING') return s.workflowStatus.toLowerCase().replace(/_/g, ' ');
  return (s.iteration?.attention ?? s.unanswered?.attention) ? 'needs attention' : s.loop.paused ? 'paused' : 'running';
}

/** "run demo (coral) · running · iteration 1 (of 0–2)": the first line of `status`, the live view's header. */
export const statusHeadline = (s: RunStatus) =>
  `run ${s.loop.runName}${s.loop.recipe ? ` (${s.loop.recipe})` : ''} · ${runStateWord(s)} · ${runIterationLabel(s)}`;

/** What a stage's activities wait on, one line each. */
const waitLines = (stage: string, s: RunStatus) => (s.waits ?? []).map((w) => `${stage} (${w.activity}): ${w.waiting}`);

/** What the server alone says of a run whose worker did not answer (cli/run-without-worker.ts): the running stage,
 *  and what its running pieces say they did; the stage's finished pieces are the worker's to count. */
function unansweredLines(s: RunStatus, u: Unanswered, now: number): string[] {
  const lines = [busyLine(u.reason)];
  if (s.workflowStatus !== 'RUNNING') return lines;
  if (u.stage) lines.push(`stage: ${u.stage}`);
  const pieces = u.running.filter((w) => !u.stage || w.stage === u.stage);
  if (pieces.length) {
    const p = stageProgress(pieces[0].stage, pieces[0].unit, undefined, { done: 0 }, pieces, now);
    const totals = pieces.map((w) => w.total);
    const total = totals.every((t) => t !== undefined) ? totals.reduce((a, t) => a + t!, 0) : undefined;
    if (p.unit === 'steps') lines.push(...progressLines(p));
    else
      lines.push(`running now: ${pieces.length} ${p.stage} piece${pieces.length === 1 ? '' : 's'}, ${countText({ ...p, total })} in them`);
  }
  return [...lines, ...waitLines(u.stage ?? 'stage', s)];
}

/** A stage that needs attention: where, since when, the error's first lines, and how to go on. */
export function attentionLines(runName: string, a: Attention, errorLines = 12): string[] {
  const roles = a.roles ? ` (${a.roles.length > 1 ? 'roles' : 'role'} ${a.roles.join(', ')})` : '';
  return [
    `NEEDS ATTENTION in stage "${a.stage}"${roles} (since ${a.since}):`,
    ...a.error
      .split('\n')
      .slice(0, errorLines)
      .map((l) => `  ${l}`),
    `fix the cause, then: collab-loop retry ${runName} [--stage S] [--set key=value]`,
  ];
}

/** `name=value …` of an iteration's metrics. */
export const metricsLine = (metrics: Record<string, number>) =>
  Object.entries(metrics)
    .map(([k, v]) => `${k}=${fmtNum(v)}`)
    .join(' ');

export function renderStatus(s: RunStatus, now = Date.now()): string {
  const { loop, iteration: it } = s;
  const lines: string[] = [statusHeadline(s)];
  if (s.unanswered) lines.push(...unansweredLines(s, s.unanswered, now).map((l) => `  ${l}`));
  if (it && s.workflowStatus === 'RUNNING') {
    lines.push(`  stage: ${it.stage}${it.paused ? ' (paused)' : ''}`);
    // The running stage's time and calls are counted when it ends: until then it shows how long it has been running
    // (as the UI's details do), and its progress says how far it is. A paused stage or one waiting for the user shows
    // no running time: the clock of a stage nobody works on says nothing.
    const atWork = !it.paused && !it.attention;
    const { [it.stage as Stage]: _running, ...finished } = it.stages;
    const times = atWork ? stageTimesLine(it.stages, { stage: it.stage, now }) : stageTimesLine(finished);
    if (times) lines.push(`  stages: ${times}`);
    const progress = runProgress(s, now);
    if (progress) lines.push(...progressLines(progress, runIterationEta(s, progress)).map((l) => `  ${l}`));
    if (it.spend) lines.push(`  spend: ${spendLine(it.spend)}`);
    lines.push(...waitLines(it.stage, s).map((l) => `  ${l}`));
    if (it.metrics) lines.push(`  metrics: ${metricsLine(it.metrics)}`);
    if (it.attention) lines.push(...attentionLines(loop.runName, it.attention).map((l) => `  ${l}`));
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
