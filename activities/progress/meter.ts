// Measures one activity's work for the progress model (contracts/progress.ts): counts read from the activity's own
// counters, and rates over the last minute from the measurements taken since (each report takes one).
import type { CallCounts, ProgressUnit, WorkProgress } from '../../contracts/progress';
import type { Stage } from '../../contracts/stages';

/** Rates are over this much of the recent past: long enough to smooth bursts, short enough to follow a change. */
export const RATE_WINDOW_MS = 60_000;

/** What the activity's counters say now. */
export interface WorkCounts {
  done: number;
  total?: number;
  calls?: CallCounts;
  tokens?: { prompt: number; completion: number };
  usd?: number;
  loss?: number;
}

interface Sample {
  t: number;
  done: number;
  calls: number;
  tokens: number;
}

// calls/s is over what the endpoint was sent: answers from the cache or an identical call in flight cost it nothing.
const callsOf = (c: CallCounts | undefined) => (c ? c.ok + c.failed : 0);
const tokensOf = (t: WorkCounts['tokens']) => (t ? t.prompt + t.completion : 0);

/** A meter for one piece of a stage: each call measures `read()` and the rates since the oldest sample of the last
 *  minute (none until a second measurement). */
export function progressMeter(
  piece: { key: string; stage: Stage; unit: ProgressUnit; role?: string },
  read: () => WorkCounts,
  now: () => number = Date.now,
): () => WorkProgress {
  const samples: Sample[] = [];
  return () => {
    const c = read();
    const t = now();
    samples.push({ t, done: c.done, calls: callsOf(c.calls), tokens: tokensOf(c.tokens) });
    while (samples.length > 2 && t - samples[1].t >= RATE_WINDOW_MS) samples.shift();
    const first = samples[0];
    const last = samples[samples.length - 1];
    const secs = (last.t - first.t) / 1000;
    const per = (k: keyof Omit<Sample, 't'>) => (secs > 0 ? Math.max(0, (last[k] - first[k]) / secs) : undefined);
    const p: WorkProgress = { ...piece, done: c.done, at: t };
    if (c.total !== undefined) p.total = c.total;
    if (per('done') !== undefined) p.perSecond = per('done');
    if (c.calls) {
      p.calls = { ...c.calls };
      if (per('calls') !== undefined) p.callsPerSecond = per('calls');
    }
    if (c.tokens) {
      p.tokens = { ...c.tokens };
      if (per('tokens') !== undefined) p.tokensPerSecond = per('tokens');
    }
    if (c.usd !== undefined) p.usd = c.usd;
    if (c.loss !== undefined) p.loss = c.loss;
    return p;
  };
}
