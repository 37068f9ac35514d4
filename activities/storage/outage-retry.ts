// A store that is briefly unreachable (a restart, a failover, a network blip) costs the run the outage, not a stage
// that needs attention: each store operation that fails transiently (StorageError.transient: connection refused or
// reset, a timeout, a 5xx, SlowDown — s3-errors.ts) is tried again with capped backoff (../outage-backoff.ts), for up
// to storage.outageToleranceSeconds. The activity keeps heartbeating while it waits (activities/heartbeat.ts:
// keepAlive beats on a timer whatever the activity awaits), so Temporal does not time it out; a cancelled activity
// stops waiting. Anything else (a wrong key, a missing bucket) fails at once.
import { activityCancellation } from '../heartbeat';
import { rideOut } from '../outage-backoff';
import { StorageError } from './storage-error';

export const isTransientStorageError = (e: unknown): e is StorageError => e instanceof StorageError && e.transient;

export interface OutageOptions {
  toleranceMs: number;
  /** Told of each failure it waits out (tests, logs). */
  onWait?: (e: StorageError, waitedMs: number) => void;
}

/** Runs `op` until it succeeds, fails for good, or the store has been unreachable for longer than the tolerance. */
export function rideOutOutage<T>(op: () => Promise<T>, o: OutageOptions): Promise<T> {
  return rideOut(op, {
    toleranceMs: o.toleranceMs,
    isOutage: isTransientStorageError,
    giveUp: (e, waited) => {
      const s = e as StorageError;
      return waited > 0
        ? new StorageError(
            `${s.message} (still failing after ${Math.round(waited / 1000)} s; storage.outageToleranceSeconds is ${Math.round(o.toleranceMs / 1000)})`,
            s.code,
            true,
          )
        : s;
    },
    onWait: o.onWait && ((e, waited) => o.onWait?.(e as StorageError, waited)),
    signal: activityCancellation(),
  });
}
