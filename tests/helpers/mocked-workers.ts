// The `tests/workflows/` tier's harness: the real workflows on a real dev server, their activities mocked
// (mock-activities.ts) on one Worker per task queue, as workers/run-worker.ts starts them for a real run. Tests in a
// file share its server; each names its own runs, and every run a test started is terminated when its workers stop,
// so the next test's workers never pick up its tasks.
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { type ActivitySignatures, byQueue } from '../../contracts/activities';
import type { LoopConfig } from '../../contracts/config';
import { iterationWorkflowId, loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES } from '../../contracts/run';
import { ALL_QUEUES, runWorkers } from '../../workers/run-worker';
import type { iterationWorkflow } from '../../workflows/iteration';
import type { trainingLoop } from '../../workflows/loop';
import { tempStateDir, testConfig } from './config';
import { namespaceOf, startDevServer, workflowBundle } from './temporal';

/** The file's dev server, the workflow bundle built meanwhile (each takes seconds). */
export async function startServerAndBundle(): Promise<TestWorkflowEnvironment> {
  const [env] = await Promise.all([startDevServer(), workflowBundle()]);
  return env;
}

/** The runs started since the workers last stopped (each test file runs its tests one after another). */
const started = new Set<WorkflowHandle>();

/** Runs `work` with the workflows and `activities` polling every task queue (each queue registering its own
 *  activities only, contracts/activities.ts QUEUE_ACTIVITIES, as workers/run-worker.ts does), then stops what `work`
 *  left running. */
export async function withMockedWorkers<T>(
  env: TestWorkflowEnvironment,
  activities: ActivitySignatures,
  work: () => Promise<T>,
): Promise<T> {
  const workflowsBundle = await workflowBundle();
  const perQueue = byQueue(activities);
  const workers = await Promise.all(
    ALL_QUEUES.map((q) =>
      Worker.create({
        connection: env.nativeConnection,
        namespace: namespaceOf(env),
        taskQueue: TASK_QUEUES[q],
        ...(q === 'workflows' ? { workflowBundle: workflowsBundle } : { activities: perQueue[q as keyof typeof perQueue] }),
        shutdownGraceTime: '1s',
        maxHeartbeatThrottleInterval: '1s',
      }),
    ),
  );
  return (await runWorkers(
    workers,
    work().finally(() => terminateStarted()),
  )) as T;
}

async function terminateStarted(): Promise<void> {
  const handles = [...started];
  started.clear();
  // A closed run refuses termination: nothing to do.
  await Promise.all(handles.map((h) => h.terminate('the test ended').catch(() => undefined)));
}

/** Starts a loop as `collab-loop start` does (cli/runs.ts startExecution): its workflow id, the workflows queue. */
export async function startRun(
  env: TestWorkflowEnvironment,
  runName: string,
  config: LoopConfig,
  o: { evalOnly?: boolean } = {},
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof trainingLoop>> {
  const handle = await env.client.workflow.start<typeof trainingLoop>('trainingLoop', {
    taskQueue: TASK_QUEUES.workflows,
    workflowId: loopWorkflowId(runName),
    args: [{ runName, config, ...o }],
  });
  started.add(handle);
  return handle;
}

/** Iteration `k` of a run (a child workflow of its loop). */
export const iterationHandle = (env: TestWorkflowEnvironment, runName: string, k: number): WorkflowHandle<typeof iterationWorkflow> =>
  env.client.workflow.getHandle(iterationWorkflowId(runName, k));

/** A test config (tests/helpers/config.ts: CoRal, a DPO trainer) with one iteration unless `patch` says otherwise:
 *  fields to set, or a function that edits the raw config. Nothing reads its files: the activities are mocks. */
export const mockedConfig = (patch: Record<string, unknown> | ((raw: Record<string, any>) => void) = {}): LoopConfig =>
  testConfig(tempStateDir('collab-loop-wf-'), (c) => {
    c.iterations = 1;
    if (typeof patch === 'function') patch(c);
    else Object.assign(c, patch);
  });
