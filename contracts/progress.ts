// The one progress model of a stage at work: measured by the activity doing the work (activities/progress/) into its
// heartbeat details; the iteration sums what its finished activities did (workflows/live-progress.ts) for its status
// query and the Temporal UI's Current Details, and `status`, `watch`, `start --wait` and `demo` add the running
// activities' details to it (cli/running-work.ts). Plain data and arithmetic, so workflows and the CLI share it.
import type { Stage } from './stages';

/** What a stage counts. */
export type ProgressUnit = 'conversations' | 'records' | 'pairs' | 'searches' | 'steps';

/** An activity's LLM calls by what answered them: `failed` given up by the client, `retried` failed requests sent
 *  again. */
export interface CallCounts {
  /** Sent to the endpoint and answered: the calls/s of a progress line are over these and `failed`. */
  ok: number;
  /** Answered from the durable request cache (paid by an earlier attempt or run). */
  cached: number;
  /** Answered by an identical call already in flight in the same process (absent in counts made before it). */
  shared?: number;
  failed: number;
  retried: number;
}

/** One running activity's work, as measured where it happens. */
export interface WorkProgress {
  /** Which piece of the stage: a shard key ("eval-3"), or "train" / "train:<role>". */
  key: string;
  stage: Stage;
  unit: ProgressUnit;
  done: number;
  total?: number;
  /** Units per second over the last minute (absent until two measurements). */
  perSecond?: number;
  calls?: CallCounts;
  callsPerSecond?: number;
  tokens?: { prompt: number; completion: number };
  tokensPerSecond?: number;
  /** US dollars at the endpoints' `price`; absent when no endpoint the work called has a price. */
  usd?: number;
  /** Trainers: the last loss the trainer printed, and the model role it trains. */
  loss?: number;
  role?: string;
  /** When it was measured (ms since the epoch). */
  at: number;
}

/** Heartbeat details of an activity doing a piece of a stage: its latest measurement, beside what the details carry
 *  for a later attempt (activities/progress/report.ts). */
export interface DetailsWithWork {
  work?: WorkProgress;
}

/** The measurement in an activity's heartbeat details (absent in details without one: other activities, and pieces
 *  run by builds that sent it as an update). */
export function workInDetails(details: unknown): WorkProgress | undefined {
  const w = (details as DetailsWithWork | null | undefined)?.work;
  return w && typeof w === 'object' && typeof w.done === 'number' && typeof w.stage === 'string' && typeof w.unit === 'string'
    ? w
    : undefined;
}

/** What the stage's finished activities did (the workflow knows it from their results). */
export interface FinishedWork {
  done: number;
  calls?: CallCounts;
  tokens?: { prompt: number; completion: number };
  usd?: number;
}

/** A trainer at work, for the stage's display. */
export interface TrainerProgress {
  role?: string;
  step: number;
  total?: number;
  loss?: number;
  stepsPerSecond?: number;
  etaSeconds?: number;
  at: number;
}

/** A whole stage: finished work plus every running activity's latest measurement. */
export interface StageProgress {
  stage: Stage;
  unit: ProgressUnit;
  done: number;
  total?: number;
  perSecond?: number;
  /** Seconds until the stage is done at the current rate (absent while no rate is known). */
  etaSeconds?: number;
  calls?: CallCounts;
  callsPerSecond?: number;
  tokens?: { prompt: number; completion: number };
  tokensPerSecond?: number;
  /** Absent: no price set for any endpoint called. */
  usd?: number;
  trainers?: TrainerProgress[];
  /** The oldest running measurement the numbers include (ms since the epoch): how fresh they are. */
  at: number;
}

/** No `undefined` values: the status query's JSON and the UI show only what is known. */
const clean = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** A measurement older than this is of an activity that stopped beating (lost worker): its rate no longer counts. */
export const STALE_PROGRESS_MS = 30_000;

const addCalls = (a: CallCounts | undefined, b: CallCounts | undefined): CallCounts | undefined =>
  a && b
    ? {
        ok: a.ok + b.ok,
        cached: a.cached + b.cached,
        ...(a.shared !== undefined || b.shared !== undefined ? { shared: (a.shared ?? 0) + (b.shared ?? 0) } : {}),
        failed: a.failed + b.failed,
        retried: a.retried + b.retried,
      }
    : (a ?? b);
const addTokens = (a: StageProgress['tokens'], b: StageProgress['tokens']): StageProgress['tokens'] =>
  a && b ? { prompt: a.prompt + b.prompt, completion: a.completion + b.completion } : (a ?? b);
const addOpt = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : a + b);

/** The work of several finished pieces as one. */
export const sumWork = (works: readonly FinishedWork[]): FinishedWork =>
  works.reduce<FinishedWork>(
    (a, w) =>
      clean({ done: a.done + w.done, calls: addCalls(a.calls, w.calls), tokens: addTokens(a.tokens, w.tokens), usd: addOpt(a.usd, w.usd) }),
    { done: 0 },
  );

/** The finished work in a stage's progress (all of it, when the progress was summed without running pieces). */
export const finishedOf = (p: StageProgress): FinishedWork => clean({ done: p.done, calls: p.calls, tokens: p.tokens, usd: p.usd });

/** Seconds to do what is left at `perSecond` (absent without a rate or a total). */
export const etaSeconds = (done: number, total: number | undefined, perSecond: number | undefined): number | undefined =>
  total !== undefined && perSecond && perSecond > 0 ? Math.max(0, (total - done) / perSecond) : undefined;

const trainerOf = (w: WorkProgress): TrainerProgress =>
  clean({
    role: w.role,
    step: w.done,
    total: w.total,
    loss: w.loss,
    stepsPerSecond: w.perSecond,
    etaSeconds: etaSeconds(w.done, w.total, w.perSecond),
    at: w.at,
  });

/** The stage's progress: `finished` plus the running activities' measurements (`now` drops the rates of silent
 *  ones). A training stage's ETA is its slowest trainer's. */
export function stageProgress(
  stage: Stage,
  unit: ProgressUnit,
  total: number | undefined,
  finished: FinishedWork,
  running: readonly WorkProgress[],
  now: number,
): StageProgress {
  let p: StageProgress = {
    stage,
    unit,
    done: finished.done,
    ...(total !== undefined ? { total } : {}),
    ...(finished.calls ? { calls: finished.calls } : {}),
    ...(finished.tokens ? { tokens: finished.tokens } : {}),
    ...(finished.usd !== undefined ? { usd: finished.usd } : {}),
    at: now,
  };
  for (const w of running) {
    const fresh = now - w.at <= STALE_PROGRESS_MS;
    p = {
      ...p,
      done: p.done + w.done,
      calls: addCalls(p.calls, w.calls),
      tokens: addTokens(p.tokens, w.tokens),
      usd: addOpt(p.usd, w.usd),
      perSecond: addOpt(p.perSecond, fresh ? w.perSecond : undefined),
      callsPerSecond: addOpt(p.callsPerSecond, fresh ? w.callsPerSecond : undefined),
      tokensPerSecond: addOpt(p.tokensPerSecond, fresh ? w.tokensPerSecond : undefined),
      at: Math.min(p.at, w.at),
    };
  }
  if (unit === 'steps') {
    const trainers = running.map(trainerOf).sort((a, b) => (a.role ?? '').localeCompare(b.role ?? ''));
    const etas = trainers.map((t) => t.etaSeconds);
    const eta = etas.length && etas.every((e) => e !== undefined) ? Math.max(...(etas as number[])) : undefined;
    return clean({ ...p, trainers, ...(eta !== undefined ? { etaSeconds: eta } : {}) });
  }
  const eta = etaSeconds(p.done, p.total, p.perSecond);
  return clean({ ...p, ...(eta !== undefined ? { etaSeconds: eta } : {}) });
}

/** The iteration's ETA: the running stage's plus how long the later stages took in the last finished iteration
 *  (absent in the first iteration, or while the stage has no ETA; a stage the last iteration skipped counts 0). */
export function iterationEtaSeconds(
  stages: readonly Stage[],
  current: Stage,
  stageEta: number | undefined,
  previous: Partial<Record<Stage, { ms: number }>> | undefined,
): number | undefined {
  if (stageEta === undefined) return undefined;
  const later = stages.slice(stages.indexOf(current) + 1);
  if (later.length === 0) return stageEta;
  if (!previous) return undefined;
  return stageEta + later.reduce((a, st) => a + (previous[st]?.ms ?? 0) / 1000, 0);
}
