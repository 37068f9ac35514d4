// One tracker's write within its own time (track-iteration.ts runs the trackers side by side, so a tracker that
// never answers delays no other and the iteration waits at most the longest timeout). Within that time a tracker
// that is down (refused connection, 5xx: trackerUnavailable) is tried again with backoff; one that refuses the
// request (trackerConfigError) fails at once; at the deadline its requests are aborted. Stopping loses nothing:
// each tracker keeps its own logged-through mark (mlflow.ts, wandb.ts), so the next call sends what this one did not.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { TrackerName, TrackerOutcome } from '../../contracts/tracking';
import { activityCancellation } from '../heartbeat';

export interface Written {
  where: string;
  hint?: string;
}

const FIRST_BACKOFF_MS = 1_000;

const isFinal = (err: unknown) => err instanceof ApplicationFailure && err.nonRetryable;

/** Rejects once `signal` aborts, whatever the awaited work does with it. */
function aborted(signal: AbortSignal): Promise<never> {
  const p = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  p.catch(() => {});
  return p;
}

export async function writeWithin(
  tracker: TrackerName,
  timeoutSeconds: number,
  write: (signal: AbortSignal) => Promise<Written>,
): Promise<TrackerOutcome> {
  const field = `tracking.${tracker}`;
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000);
  const cancelled = activityCancellation();
  const signal = cancelled ? AbortSignal.any([deadline, cancelled]) : deadline;
  const stop = aborted(signal);
  let lastError: string | undefined;
  for (let backoffMs = FIRST_BACKOFF_MS; ; backoffMs *= 2) {
    try {
      const attempt = write(signal);
      attempt.catch(() => {}); // when the deadline wins the race, its late failure is expected
      const { where, hint } = await Promise.race([attempt, stop]);
      return { tracker, state: 'written', where, ...(hint ? { hint } : {}) };
    } catch (err) {
      if (cancelled?.aborted) throw err; // the loop was stopped: not the tracker's failure
      if (!deadline.aborted) {
        lastError = err instanceof Error ? err.message : String(err);
        if (isFinal(err)) return { tracker, state: 'failed', error: lastError.startsWith(field) ? lastError : `${field}: ${lastError}` };
        await sleep(backoffMs, undefined, { signal }).catch(() => {});
        if (!signal.aborted) continue;
        if (cancelled?.aborted) throw cancelled.reason;
      }
      const before = lastError ? `; before that: ${lastError}` : '';
      return { tracker, state: 'timed out', error: `${field}: no answer within ${timeoutSeconds} s (${field}.timeoutSeconds)${before}` };
    }
  }
}
