// What a train attempt reports in its heartbeat details (`collab-loop status`, and the next attempt's resume point),
// and how a `command` trainer's log lines are read into it.
export interface TrainProgress {
  step?: number;
  /** The steps the run will take, when the trainer prints them ("step 3/40"). */
  totalSteps?: number;
  loss?: number;
  /** Last checkpoint the trainer announced (or the one this attempt resumed from), on this host's disk. */
  checkpoint?: string;
  /** The step it was saved at. */
  checkpointStep?: number;
  /** The newest step published to the run's object store (./published-steps.ts): what a retry on any host resumes from. */
  published?: { step: number; uri: string };
  resumedFromStep?: number;
  attempt: number;
  /** The model role it trains (iterations that train several). */
  role?: string;
}

export const DEFAULT_PROGRESS = /\bstep[\s=:]+(?<step>\d+)(?:\s*\/\s*(?<total>\d+))?\b.*?\bloss[\s=:]+(?<loss>-?[0-9.]+(?:e[-+]?\d+)?)/i;
export const DEFAULT_CHECKPOINT = /\bsaved checkpoint[\s:=]+(?<path>\S+)/i;

/** For `command` trainers: regexes with named groups step/loss (and optionally total) and path. */
export function parseTrainerLine(line: string, progress: RegExp, checkpoint: RegExp): Partial<TrainProgress> {
  const out: Partial<TrainProgress> = {};
  const p = progress.exec(line);
  if (p?.groups?.step !== undefined) out.step = Number(p.groups.step);
  if (p?.groups?.total !== undefined) out.totalSteps = Number(p.groups.total);
  if (p?.groups?.loss !== undefined && Number.isFinite(Number(p.groups.loss))) out.loss = Number(p.groups.loss);
  const c = checkpoint.exec(line);
  if (c?.groups?.path) out.checkpoint = c.groups.path;
  return out;
}
