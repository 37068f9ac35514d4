// A finished activity holds its result (or failure) until the Temporal server is reachable before the SDK reports
// it: the SDK's core tries to deliver a completion for only about 10 s, after which the result is lost and the
// server retries the activity once its heartbeat timeout passes (the trainer's result, a shard's records: redone or
// re-found, at the cost of that timeout). Held here, a server that is down for a restart costs the run its downtime.
// Reachable means one cheap RPC answers (GetSystemInfo, the call the SDK itself makes on connecting), tried with the
// capped backoff of activities/outage-backoff.ts for up to the worker's serverOutageToleranceSeconds; the activity
// heartbeats meanwhile (with its last details) and stops waiting when cancelled (a worker shutting down).
import { Context } from '@temporalio/activity';
import type { ActivityInterceptors, NativeConnection } from '@temporalio/worker';
import { beatWhile } from '../activities/heartbeat';
import { rideOut } from '../activities/outage-backoff';

/** Per check: an unreachable server makes the SDK's client retry until this deadline. */
const CHECK_DEADLINE_MS = 3_000;

export const DEFAULT_SERVER_OUTAGE_TOLERANCE_SECONDS = 600;

export function holdResultInterceptor(connection: NativeConnection, toleranceSeconds: number): () => ActivityInterceptors {
  const reachable = () => connection.withDeadline(Date.now() + CHECK_DEADLINE_MS, () => connection.workflowService.getSystemInfo({}));
  const untilReachable = async () => {
    try {
      await reachable(); // the usual case: one call, no extra heartbeat
      return;
    } catch {
      /* the server is down: wait for it below */
    }
    const { activityType, workflowExecution } = Context.current().info;
    const signal = Context.current().cancellationSignal;
    await beatWhile(() =>
      rideOut(reachable, {
        toleranceMs: toleranceSeconds * 1000,
        isOutage: () => true,
        giveUp: (e, waitedMs) =>
          signal.aborted
            ? undefined
            : new Error(
                `${activityType} of ${workflowExecution?.workflowId}: the Temporal server is still unreachable after ` +
                  `${Math.round(waitedMs / 1000)} s (--server-outage-tolerance ${toleranceSeconds}); reporting the result anyway: ${e}`,
              ),
        signal,
      }).catch((e) => e && console.warn(`collab-loop worker: ${e instanceof Error ? e.message : e}`)),
    );
  };
  const interceptors: ActivityInterceptors = {
    inbound: {
      execute: async (input, next) => {
        try {
          return await next(input);
        } finally {
          await untilReachable();
        }
      },
    },
  };
  return () => interceptors;
}
