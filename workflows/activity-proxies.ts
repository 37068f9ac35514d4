// The typed activity proxies an iteration schedules through: one per kind of work, each with its task queue,
// timeouts and retry policy (Temporal's proxyActivities; activities never run in the workflow's sandbox).
import {
  ActivityCancellationType,
  patched,
  proxyActivities,
  type ActivityFunction,
  type ActivityFunctionWithOptions,
  type ActivityOptions,
} from '@temporalio/workflow';
import { PATCHES } from './patches';
import type { ActivityQueue, WireActivities } from '../contracts/activities';
import type { LoopConfig } from '../contracts/config';
import { NON_RETRYABLE_ERRORS } from '../contracts/errors';
import { deployClass, gpuQueue, placesGpuWork, trainClass } from '../contracts/placement';
import { TASK_QUEUES } from '../contracts/run';

/** Every activity heartbeats every few seconds while it runs (activities/heartbeat.ts), so a result lost to a
 *  server outage, or a dead worker, costs this long rather than the activity's whole startToClose timeout. A
 *  SIGKILLed worker's activity is retried only once this passes: shorter than a worker restart (≥ 30 s), the retry
 *  already waits in the queue when the replacement starts polling (tests/e2e/durability/replacement-worker.test.ts).
 *  Changing activity options changes no command a replay compares. */
export const HEARTBEAT_TIMEOUT = '20s';

/** The proxy of one queue class, typed with that queue's activities only (contracts/activities.ts): scheduling an
 *  activity on a queue whose workers do not register it does not compile. `o.taskQueue` may name a gpu class queue. */
export const queueProxy = <Q extends ActivityQueue>(queue: Q, o: Partial<ActivityOptions>) =>
  proxyActivities<WireActivities<Q>>({
    taskQueue: TASK_QUEUES[queue],
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { maximumAttempts: 3, initialInterval: '1s', nonRetryableErrorTypes: NON_RETRYABLE_ERRORS },
    ...o,
  });

/** The proxies for a config (a `retry --set` may change its timeouts and attempts, so they are made per stage run). */
export function stageActivities(config: LoopConfig) {
  // Ready timeout, plus the probe and the simulated agents' server when configured.
  const deployTimeoutS = config.server.kind === 'external' ? 60 : config.server.readyTimeoutSeconds + 360;
  // Gpu work goes to a class's queue (contracts/placement.ts) only in histories that carry the patch: an iteration
  // scheduled on the generic queue before keeps doing so on replay. Asked only when the config places something, so
  // histories of configs without placement carry no marker.
  const placed = placesGpuWork(config) && patched(PATCHES.gpuPlacement.id);
  const gpu = (gpuClass: string | undefined) => ({ taskQueue: gpuQueue(placed ? gpuClass : undefined) });
  const train = (role: string | undefined) =>
    queueProxy('gpu', {
      ...gpu(trainClass(config, role)),
      startToCloseTimeout: `${config.trainer?.timeoutHours ?? 48} hours`,
      heartbeatTimeout: config.trainer ? `${config.trainer.heartbeatTimeoutSeconds}s` : HEARTBEAT_TIMEOUT,
      retry: {
        maximumAttempts: config.trainer?.maximumAttempts ?? 3,
        initialInterval: '2s',
        nonRetryableErrorTypes: NON_RETRYABLE_ERRORS,
      },
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
  return {
    cpu: queueProxy('cpu', {}),
    sandbox: queueProxy('sandbox', { startToCloseTimeout: '6 hours' }),
    llm: queueProxy('llm', {
      startToCloseTimeout: '12 hours',
      heartbeatTimeout: `${config.generation.heartbeatTimeoutSeconds}s`,
      retry: {
        maximumAttempts: config.generation.maximumAttempts,
        initialInterval: '1s',
        maximumInterval: '60s',
        nonRetryableErrorTypes: NON_RETRYABLE_ERRORS,
      },
    }),
    // Stopping waits until servers and trainers are really gone (their process groups killed), not just asked to go.
    deploy: queueProxy('gpu', {
      ...gpu(deployClass(config)),
      startToCloseTimeout: `${deployTimeoutS}s`,
      heartbeatTimeout: '30s',
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    }),
    /** A role's trainer (undefined: the one model of iterations recorded before model roles). */
    train,
  };
}

export type StageActivities = ReturnType<typeof stageActivities>;

/** Schedules an activity with a one-line summary for the UI — only in histories that carry the ui-visibility patch
 *  (`summary` undefined otherwise): older ones scheduled it without, and a replay must schedule exactly what they did. */
export function scheduled<F extends ActivityFunction>(
  activity: ActivityFunctionWithOptions<F>,
  summary: string | undefined,
  ...args: Parameters<F>
): Promise<Awaited<ReturnType<F>>> {
  return summary === undefined ? activity(...args) : activity.executeWithOptions({ summary }, args);
}
