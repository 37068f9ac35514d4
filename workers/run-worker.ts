// Starts one Worker per task-queue class in this process. Deployments split them across machines with
// `collab-loop worker --queues gpu` (trainers, model servers) and `--queues workflows,llm,cpu` elsewhere.
import { type NativeConnection, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { createActivities, type ActivityDeps } from '../activities';
import type { ActivitiesByQueue, ActivityQueue } from '../contracts/activities';
import { STATE_DIR_ENV } from '../activities/host-env';
import { reapOrphans, registryDir, stopOwnGroups, type GroupRecord } from '../activities/subprocess/process-registry';
import { gpuQueue } from '../contracts/placement';
import { TASK_QUEUES, type QueueClass } from '../contracts/run';
import { bundlerLogger } from './logging';
import { keptWorkflowBundle } from './workflow-bundle';
import { DEFAULT_SERVER_OUTAGE_TOLERANCE_SECONDS, holdResultInterceptor } from './hold-result';
import { failLeftBehind, runningActivitiesInterceptor } from './lost-activities';
import { runLabelInterceptor } from './metric-labels';
import { deploymentOptions, derivedBuildId, type WorkerDeployment } from './deployment';

const require = createRequire(import.meta.url);

export const ALL_QUEUES = Object.keys(TASK_QUEUES) as QueueClass[];

/** Concurrency per queue class: shards are I/O bound; gpu work is one trainer or server start at a time per slot
 *  (`gpuSlots`: as many as the machine has GPUs for parallel trainers, e.g. one per trained model role);
 *  sandbox scoring runs one shard per core (each scores its records with a bounded number of sandboxes). */
const SLOTS: Record<QueueClass, number> = { workflows: 200, llm: 16, cpu: 4, gpu: 4, sandbox: 2 };

export interface WorkerSetOptions {
  connection: NativeConnection;
  namespace?: string;
  queues?: QueueClass[];
  activityDeps?: ActivityDeps;
  /** Pre-built workflow bundle (tests bundle once per file). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  shutdownGraceTime?: WorkerOptions['shutdownGraceTime'];
  /** Activities the gpu worker runs at once (trainers, server starts); default 4. */
  gpuSlots?: number;
  /** Host classes / GPU types this gpu worker also serves (`--gpu-class`): it polls `collab-loop-gpu-<class>` for
   *  each besides the generic gpu queue (contracts/placement.ts). */
  gpuClasses?: string[];
  /** How long a finished activity holds its result for a Temporal server it cannot reach (hold-result.ts); 600. */
  serverOutageToleranceSeconds?: number;
  /** Versioned workers (workers/deployment.ts): the deployment, and the build ID (default: derived from the
   *  workflow bundle). Without it the workers are unversioned, as before Worker Versioning. */
  deployment?: { deploymentName: string; buildId?: string };
}

const describe = (r: GroupRecord) => `${r.kind} pid ${r.pid}${r.port ? ` (port ${r.port})` : ''}${r.run ? ` of run ${r.run}` : ''}`;

/** Kills the servers and trainers a killed worker left on this host (the registry of the host's state dir, when the
 *  worker was given one; otherwise each stage reaps the state dir of its run's config before it starts a group). */
async function reapLeftBehind(): Promise<void> {
  const stateDir = process.env[STATE_DIR_ENV];
  if (!stateDir) return;
  for (const r of await reapOrphans(stateDir))
    console.warn(`collab-loop worker: stopped ${describe(r)} left by worker pid ${r.owner} (${registryDir(stateDir)})`);
}

interface Poller {
  q: QueueClass;
  taskQueue: string;
  activities?: ActivitiesByQueue[ActivityQueue];
}

/** One Worker's task queue and what it registers: the workflows queue the workflows, every other queue its own
 *  activities only (contracts/activities.ts QUEUE_ACTIVITIES), so work scheduled on the wrong queue finds no handler.
 *  A classed gpu host polls its classes' queues and the generic one, so work no config pins still reaches it (a
 *  cluster of classed hosts only would otherwise never train an unpinned role). */
export function pollers(queues: QueueClass[], gpuClasses: string[] | undefined, activities: ActivitiesByQueue): Poller[] {
  return queues.flatMap((q): Poller[] =>
    q === 'workflows'
      ? [{ q, taskQueue: TASK_QUEUES[q] }]
      : q === 'gpu'
        ? [undefined, ...(gpuClasses ?? [])].map((c) => ({ q, taskQueue: gpuQueue(c), activities: activities.gpu }))
        : [{ q, taskQueue: TASK_QUEUES[q], activities: activities[q] }],
  );
}

export async function createWorkers(opts: WorkerSetOptions): Promise<Worker[]> {
  await reapLeftBehind();
  for (const r of await failLeftBehind(opts.connection, opts.namespace ?? 'default'))
    console.warn(
      `collab-loop worker: ${r.activityType} (attempt ${r.attempt}) of ${r.workflowId} was left running by worker pid ${r.owner}: failed it so that it is retried now`,
    );
  const queues = opts.queues ?? ALL_QUEUES;
  const holdResult = holdResultInterceptor(opts.connection, opts.serverOutageToleranceSeconds ?? DEFAULT_SERVER_OUTAGE_TOLERANCE_SECONDS);
  // Bundled here rather than by Worker.create, so that webpack's statistics go to the DEBUG level; also by a
  // versioned host without the workflows queue whose build ID is derived from the bundle.
  const bundleNeeded = queues.includes('workflows') || (opts.deployment && !opts.deployment.buildId);
  const workflowBundle = bundleNeeded
    ? (opts.workflowBundle ?? (await keptWorkflowBundle(require.resolve('../workflows/index.ts'), bundlerLogger())))
    : undefined;
  const deployment: WorkerDeployment | undefined = opts.deployment && {
    deploymentName: opts.deployment.deploymentName,
    buildId: opts.deployment.buildId ?? derivedBuildId(workflowBundle as WorkflowBundleOption),
  };
  const polled = pollers(queues, opts.gpuClasses, createActivities(opts.activityDeps));
  return Promise.all(
    polled.map(({ q, taskQueue, activities }) =>
      Worker.create({
        connection: opts.connection,
        namespace: opts.namespace ?? 'default',
        taskQueue,
        ...(deployment ? { workerDeploymentOptions: deploymentOptions(deployment) } : {}),
        ...(activities === undefined
          ? { workflowBundle }
          : { activities, interceptors: { activity: [runningActivitiesInterceptor, holdResult, runLabelInterceptor] } }),
        // The GPU pool (gpu-pool.ts), not the slots, bounds what runs on the GPUs, so the gpu queues each keep them.
        maxConcurrentActivityTaskExecutions: q === 'gpu' ? (opts.gpuSlots ?? SLOTS.gpu) : SLOTS[q],
        shutdownGraceTime: opts.shutdownGraceTime ?? '5s',
        // Cancellation reaches an activity only with a heartbeat response; the default throttle (up to 60 s) would
        // let a stopped trainer run on for a minute.
        maxHeartbeatThrottleInterval: '3s',
      }),
    ),
  );
}

/** Runs the workers until `until` settles (or forever, until a shutdown signal: SIGINT, SIGTERM — the SDK's Runtime
 *  shuts them down and cancels their activities), then shuts them down together and stops every server and trainer
 *  this process started, so none outlives its worker. `keepServers`: leave the model servers running for the workers
 *  that take over (a restart with a new build mid-iteration: the running iteration still uses their endpoints). */
export async function runWorkers<T>(workers: Worker[], until?: Promise<T>, opts: { keepServers?: boolean } = {}): Promise<T | undefined> {
  try {
    return await runUntil(workers, until);
  } finally {
    const stopped = await stopOwnGroups(opts.keepServers ? { keep: 'server' } : {});
    for (const r of stopped) console.warn(`collab-loop worker: stopped ${describe(r)} at shutdown`);
  }
}

async function runUntil<T>(workers: Worker[], until?: Promise<T>): Promise<T | undefined> {
  if (!until) {
    await Promise.all(workers.map((w) => w.run()));
    return undefined;
  }
  const [first, ...rest] = workers;
  let nested: Promise<T> = until;
  for (const w of rest) {
    const inner = nested;
    nested = w.runUntil(inner);
  }
  return first.runUntil(nested);
}
