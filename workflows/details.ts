// Markdown shown as "current details" in the Temporal UI: a run must be understandable from the UI alone —
// where it is, how far it got, what it measured, and what needs the user.
import { duration } from '../contracts/duration';
import { iterationLabel } from '../contracts/iteration-label';
import { metricsTable } from '../contracts/metrics-table';
import type { StageProgress } from '../contracts/progress';
import { countText, llmLine } from '../contracts/progress-text';
import {
  STAGES,
  type Attention,
  type IterationProgress,
  type IterationStatus,
  type IterationSummary,
  type RoleLineage,
  type StageStats,
  type TrainOutcome,
} from '../contracts/run';

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(4));

/** The error verbatim: a log tail holds argv and paths that markdown would turn into typography. One line goes in
 *  inline code (it wraps), a log tail in a code block. */
function attentionLines(runName: string, a: Attention, errorLines: number): string[] {
  const lines = a.error.split('\n').slice(0, errorLines);
  const error =
    lines.length === 1 ? [`\`${lines[0].replace(/`/g, "'")}\``] : ['~~~text', ...lines.map((l) => l.replace(/^~{3,}/, '~~')), '~~~'];
  return [
    '',
    `⚠️ **needs attention** in \`${a.stage}\`${a.roles ? ` (${a.roles.length > 1 ? 'roles' : 'role'} ${a.roles.join(', ')})` : ''} since ${a.since}`,
    '',
    ...error,
    '',
    `Fix the cause, then: \`collab-loop retry ${runName}\` (optionally \`--stage S --set key=value\`).`,
  ];
}

/** The run's config is the file's plus these `retry --set` changes, oldest first (verbatim: values hold paths). */
const configChangeLines = (changes: string[] | undefined): string[] =>
  changes?.length ? ['', 'config changed by `retry --set`:', '', ...changes.map((c) => `- \`${c.replace(/`/g, "'")}\``)] : [];

/** `deploy 2.1 s · generate 14 s (120 calls, 30 cached) · …` for the stages that ran. */
export function stageTimesLine(
  stages: Partial<Record<string, StageStats>> | undefined,
  /** The stage at work (not waiting for the user) and the time now: it shows how long since it started. Without
   *  `now` (the UI's details, set only as the workflow wakes: they would not move), when it started. */
  running?: { stage: string; now?: number },
): string | undefined {
  const parts = STAGES.flatMap((name) => {
    const s = stages?.[name];
    if (!s) return [];
    if (name === running?.stage)
      return [
        running.now === undefined
          ? `${name} started ${s.startedAt}`
          : `${name} running for ${duration(running.now - Date.parse(s.startedAt))}`,
      ];
    const calls = s.calls ? ` (${s.calls} calls${s.cachedCalls ? `, ${s.cachedCalls} cached` : ''})` : '';
    return [`${name} ${duration(s.ms)}${calls}`];
  });
  return parts.length ? parts.join(' · ') : undefined;
}

/** What an iteration's details say of its model roles: each one's lineage so far (role-lineage.ts). */
export interface RolesView {
  models: Record<string, RoleLineage>;
  /** The trainer's method (`sft`, `dpo`), as the timeline's train rows name it. */
  method?: string;
  /** The train stage is under way: a trained role with data and no result yet is training now. */
  training: boolean;
}

/** Verbatim in markdown (paths hold `_` and `*`): inline code, a backtick in it turned into a quote. */
export const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

/** `8 steps · final loss 0.4100 · resumed at step 3`. */
const trainResult = (t: TrainOutcome | undefined) =>
  [
    t?.steps !== undefined ? `${t.steps} steps` : undefined,
    t?.finalLoss !== undefined ? `final loss ${fmt(t.finalLoss)}` : undefined,
    t?.resumedFromStep ? `resumed at step ${t.resumedFromStep}` : undefined,
  ]
    .filter(Boolean)
    .join(' · ');

/** Every role's served checkpoint, then each trained role's outcome as `train critic_2 · sft · 8 steps · final loss
 *  0.41 → <checkpoint>`: the timeline's `train critic_2 · sft · command` row cannot say it, since an activity's
 *  summary is fixed when it is scheduled (Temporal's user metadata; the SDK has no call to change it later). */
export function roleLines(v: RolesView | undefined): string[] {
  const roles = Object.entries(v?.models ?? {});
  if (!v || !roles.length) return [];
  const served = roles.map(([role, m]) => `- ${role} (${m.kind}): ${m.checkpoint ? code(m.checkpoint) : `model ${code(m.model ?? '?')}`}`);
  const trained = roles.flatMap(([role, m]) => {
    const head = `- train ${role}${v.method ? ` · ${v.method}` : ''}`;
    if (m.nextCheckpoint) return [`${head} · ${trainResult(m.train) || 'done'} → ${code(m.nextCheckpoint)}`];
    if (m.skipped) return [`${head} · kept its checkpoint: ${m.skipped}`];
    if (m.kind === 'trained' && m.dataset && v.training) return [`${head} · running`];
    return [];
  });
  return ['', 'served checkpoints:', '', ...served, ...(trained.length ? ['', 'trained:', '', ...trained] : [])];
}

export function renderIterationDetails(runName: string, s: IterationStatus, roles?: RolesView): string {
  const lines = [`**${runName}** · iteration ${s.iteration} · stage **${s.stage}**${s.paused ? ' · ⏸ paused' : ''}`];
  if (s.attention) lines.push(...attentionLines(runName, s.attention, 12));
  // "4 of 6", not "4/6": the UI renders details as markdown with typography, which would print a fraction slash.
  // With the finished work in progress terms, the counts are in its lines; the shards' line says only how many
  // have finished.
  if (s.shards.total)
    lines.push(
      '',
      `shards ${s.shards.done} of ${s.shards.total}${s.progress ? ' finished' : ` · conversations ${s.conversations.done} · tokens ${s.tokens}`}`,
    );
  if (!s.attention) lines.push(...finishedLines(s.stage, s.progress, 'Pending Activities'));
  if (!s.progress && s.train?.step !== undefined)
    lines.push(`train step ${s.train.step}${s.train.loss !== undefined ? ` · loss ${fmt(s.train.loss)}` : ''}`);
  const times = stageTimesLine(s.stages, s.attention || s.stage === 'done' ? undefined : { stage: s.stage });
  if (times) lines.push('', `stages: ${times}`);
  lines.push(...roleLines(roles));
  lines.push(...configChangeLines(s.configChanges));
  if (s.metrics) lines.push('', ...Object.entries(s.metrics).map(([k, v]) => `- ${k}: ${fmt(v)}`));
  return lines.join('\n');
}

/** The stages whose running activities measure their work into their heartbeat details (activities/progress/). */
const MEASURED_STAGES: readonly string[] = ['generate', 'train'];

/** The stage's finished work as a list, and where its running pieces' progress is: their activities' heartbeat
 *  details, which the workflow never sees (workflows/live-progress.ts). */
function finishedLines(stage: string, p: StageProgress | undefined, pending: string): string[] {
  if (!MEASURED_STAGES.includes(stage)) return [];
  const pieces = stage === 'train' ? 'trainers' : 'shards';
  const llm = p && llmLine(p);
  const finished = p ? [`- ${p.stage}: ${countText(p)} finished`] : [];
  if (llm) finished.push(`- ${llm}`);
  return ['', ...finished, `- running ${pieces}: their progress is in the heartbeat details under ${pending}`];
}

export interface LoopView {
  runName: string;
  recipe: string;
  iteration: number;
  iterations: number;
  checkpoint: string;
  paused: boolean;
  stopped: boolean;
  done: IterationSummary[];
  /** What the running iteration last reported (absent before its first stage, and in older iterations). */
  current?: IterationProgress;
  /** The running stage's finished work (live-progress.ts). */
  progress?: StageProgress;
  /** A tracker that could not be written (the loop goes on; the user should know). */
  trackingError?: string;
  /** Each model role's checkpoint chain (role-chains.ts), when the run has several roles. */
  models?: string[];
  /** The `retry --set` changes the run's config has had. */
  configChanges?: string[];
  /** When the run's first execution started (LoopState.startedAt; absent in runs from before it was kept). */
  startedAt?: string;
  /** Workflow time now, for how long the run has been going. */
  now?: number;
}

/** `started <ISO> · running 3.5 min`, from the run's first execution: the UI's own start, duration and static
 *  summary are the current continue-as-new segment's (ContinueAsNewOptions carries no staticSummary). */
export function runTimeLines(v: Pick<LoopView, 'startedAt' | 'now' | 'iteration' | 'iterations' | 'stopped'>): string[] {
  if (!v.startedAt || v.now === undefined) return [];
  const took = duration(Math.max(0, v.now - Date.parse(v.startedAt)));
  const verb = v.stopped ? 'ran' : v.iteration >= v.iterations ? 'took' : 'running';
  return [`started ${v.startedAt} · ${verb} ${took}`];
}

/** Metrics so far: the CLI's table, verbatim in a code block (the UI's markdown tables have no cell padding). */
function metricsBlock(done: IterationSummary[]): string[] {
  return done.length ? ['', 'metrics per iteration:', '', '~~~text', metricsTable(done), '~~~'] : [];
}

export function renderLoopDetails(v: LoopView): string {
  const head = iterationLabel({ iteration: v.iteration, iterations: v.iterations, stopped: v.stopped });
  const lines = [
    `**${v.runName}** (${v.recipe}) · ${head}${v.paused ? ' · ⏸ paused' : ''}`,
    ...runTimeLines(v),
    `checkpoint \`${v.checkpoint}\``,
  ];
  const c = v.current;
  if (c && c.iteration === v.iteration && c.stage !== 'done' && !v.stopped) {
    const counts = v.progress ? '' : ` · conversations ${c.conversations} · tokens ${c.tokens}`;
    lines.push('', `iteration ${c.iteration}: stage **${c.stage}**${counts}`);
    if (!c.attention) lines.push(...finishedLines(c.stage, v.progress, `Pending Activities on the page of iteration ${c.iteration}`));
    // The first line says what failed; the iteration's own page has the log tail.
    if (c.attention) lines.push(...attentionLines(v.runName, c.attention, 1));
    if (c.metrics)
      lines.push('', `metrics of iteration ${c.iteration}:`, '', ...Object.entries(c.metrics).map(([k, m]) => `- ${k}: ${fmt(m)}`));
  }
  if (v.models && v.models.length > 1) lines.push('', 'model roles:', '', ...v.models.map((m) => `- ${m}`));
  if (v.trackingError) lines.push('', `⚠️ tracking: ${v.trackingError}`);
  lines.push(...configChangeLines(v.configChanges));
  lines.push(...metricsBlock(v.done));
  return lines.join('\n');
}
