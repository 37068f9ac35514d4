// A store that is briefly unreachable (a restart, a failover, a network blip) costs the run the outage, not a stage
// that needs attention: each store operation that fails transiently (StorageError.transient: connection refused or
// reset, a timeout, a 5xx, SlowDown — s3-errors.ts) is tried again with capped exponential backoff, for up to
// storage.outageToleranceSeconds. The activity keeps heartbeating while it waits (activities/heartbeat.ts: keepAlive
// beats on a timer whatever the activity awaits), so Temporal does not time it out; a cancelled activity stops
// waiting. Anything else (a wrong key, a missing bucket) fails at once.
import { activityCancellation } from '../heartbeat';
import { StorageError } from './storage-error';

const FIRST_DELAY_MS = 250;
/** Capped low: once the store is back, the run should notice within a couple of seconds. */
const MAX_DELAY_MS = 2_000;

export const isTransientStorageError = (e: unknown): e is StorageError => e instanceof StorageError && e.transient;

export interface OutageOptions {
  toleranceMs: number;
  /** Told of each failure it waits out (tests, logs). */
  onWait?: (e: StorageError, waitedMs: number) => void;
}

/** Runs `op` until it succeeds, fails for good, or the store has been unreachable for longer than the tolerance. */
export async function rideOutOutage<T>(op: () => Promise<T>, o: OutageOptions): Promise<T> {
  const started = Date.now();
  const signal = activityCancellation();
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!isTransientStorageError(e)) throw e;
      const waited = Date.now() - started;
      if (waited >= o.toleranceMs || signal?.aborted)
        throw waited > 0
          ? new StorageError(
              `${e.message} (still failing after ${Math.round(waited / 1000)} s; storage.outageToleranceSeconds is ${Math.round(o.toleranceMs / 1000)})`,
              e.code,
              true,
            )
          : e;
      o.onWait?.(e, waited);
      await pause(Math.min(FIRST_DELAY_MS * 2 ** attempt, MAX_DELAY_MS, o.toleranceMs - waited), signal);
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
