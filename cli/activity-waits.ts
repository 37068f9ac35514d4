// What a stage's activities are waiting on, from the server's view of them (describe() → pendingActivities): a
// stage can sit still with no error to show — its worker died, or finished while the server was down and could
// not deliver the result — until a heartbeat timeout or a retry moves it on. `status` says so, with the clock.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { heartbeatIntervalMs } from '../activities/heartbeat';
import { TASK_QUEUES } from '../contracts/run';

type PendingActivity = NonNullable<WorkflowExecutionDescription['raw']['pendingActivities']>[number];

export interface ActivityWait {
  /** The activity type, e.g. trainCheckpoint. */
  activity: string;
  attempt: number;
  /** One line: what it waits for and how long that takes. */
  waiting: string;
}

const SCHEDULED = 1;
const STARTED = 2;
/** Time a scheduled first attempt may wait for a worker before it is worth a line (a busy queue is normal). */
const NO_WORKER_AFTER_MS = 30_000;

/** A pinned role's queue (contracts/placement.ts) is polled only by gpu workers of that class: say how to start one. */
const classHint = (queue: string) =>
  queue.startsWith(`${TASK_QUEUES.gpu}-`) ? ` — a gpu worker started with --gpu-class ${queue.slice(TASK_QUEUES.gpu.length + 1)}` : '';

const secs = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;
const firstLine = (s: string | null | undefined) => (s ?? '').split('\n')[0].slice(0, 200);

/** Silence longer than this means no worker is beating for the activity (heartbeats go every few seconds, and
 *  the server sees one at least every 3 s: run-worker.ts), with room for clock skew between hosts. */
export const silentAfterMs = (timeoutMs: number) => Math.max(15_000, 3 * heartbeatIntervalMs(timeoutMs));

export function activityWaits(pending: PendingActivity[], now: number): ActivityWait[] {
  return pending.flatMap((pa) => {
    const activity = pa.activityType?.name ?? 'activity';
    const attempt = pa.attempt ?? 1;
    const of = pa.maximumAttempts ? ` of ${pa.maximumAttempts}` : '';
    const failure = firstLine(pa.lastFailure?.message);
    const wait = (waiting: string): ActivityWait[] => [{ activity, attempt, waiting }];
    if (pa.state === SCHEDULED) {
      const next = optionalTsToMs(pa.nextAttemptScheduleTime);
      const queue = pa.activityOptions?.taskQueue?.name;
      const noWorker = `waiting for a worker${queue ? ` on queue ${queue}${classHint(queue)}` : ''}`;
      if (attempt > 1 && failure)
        return wait(
          `retrying (attempt ${attempt}${of}) after: ${failure} — ${next && next > now ? `next attempt in ${secs(next - now)}` : noWorker}`,
        );
      const since = optionalTsToMs(pa.scheduledTime);
      return since !== undefined && now - since > NO_WORKER_AFTER_MS ? wait(`${noWorker} (scheduled ${secs(now - since)} ago)`) : [];
    }
    if (pa.state !== STARTED) return [];
    const timeoutMs = optionalTsToMs(pa.activityOptions?.heartbeatTimeout);
    const last = optionalTsToMs(pa.lastHeartbeatTime) ?? optionalTsToMs(pa.lastStartedTime);
    if (timeoutMs && last !== undefined && now - last > silentAfterMs(timeoutMs))
      return wait(
        `waiting for the heartbeat timeout (last heartbeat ${secs(now - last)} ago, timeout ${secs(timeoutMs)}): its worker stopped, ` +
          'or finished while the server was down and could not report; it is retried when the timeout passes',
      );
    return attempt > 1 && failure ? wait(`attempt ${attempt}${of} running, after: ${failure}`) : [];
  });
}
