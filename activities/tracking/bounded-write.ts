// One tracker's write within its own time (track-iteration.ts runs the trackers side by side, so a tracker that
// never answers delays no other and the iteration waits at most the longest timeout). Within that time a tracker
// that is down (refused connection, 5xx: trackerUnavailable) is tried again with backoff; one that refuses the
// request (trackerConfigError) fails at once; at the deadline its requests are aborted. The backoff is the one
// every outage wait uses (../outage-backoff.ts). Stopping loses nothing:
// each tracker keeps its own logged-through mark (mlflow.ts, wandb.ts), so the next call sends what this one did not.
import { ApplicationFailure } from '@temporalio/common';
import type { TrackerName, TrackerOutcome } from '../../contracts/tracking';
import { activityCancellation } from '../heartbeat';
import { rideOut } from '../outage-backoff';

export interface Written {
  where: string;
  hint?: string;
}

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
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  let lastError: string | undefined;
  // Each attempt ends at the deadline whatever the tracker's client does with the signal; its late failure is expected.
  const attempt = () => {
    const a = write(signal);
    a.catch(() => {});
    return Promise.race([a, stop]);
  };
  try {
    const { where, hint } = await rideOut(attempt, {
      toleranceMs: timeoutSeconds * 1000,
      // A tracker that is down is tried again until the deadline; one that refuses the request, and the deadline's
      // own abort, end the write.
      isOutage: (err) => !isFinal(err) && !signal.aborted,
      giveUp: (err) => err,
      onWait: (err) => {
        lastError = message(err);
      },
      signal,
    });
    return { tracker, state: 'written', where, ...(hint ? { hint } : {}) };
  } catch (err) {
    if (cancelled?.aborted) throw cancelled.reason; // the loop was stopped: not the tracker's failure
    if (isFinal(err) && !deadline.aborted) {
      const m = message(err);
      return { tracker, state: 'failed', error: m.startsWith(field) ? m : `${field}: ${m}` };
    }
    const before = lastError ? `; before that: ${lastError}` : '';
    return { tracker, state: 'timed out', error: `${field}: no answer within ${timeoutSeconds} s (${field}.timeoutSeconds)${before}` };
  }
}
