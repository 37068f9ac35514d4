// In-process workers against a test dev server, for workflow tests.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../activities';
import { createWorkers, runWorkers } from '../../workers/run-worker';
import { namespaceOf, workflowBundle } from './temporal';

export async function withWorkers<T>(env: TestWorkflowEnvironment, work: () => Promise<T>, activityDeps?: ActivityDeps): Promise<T> {
  const workers = await createWorkers({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    workflowBundle: await workflowBundle(),
    activityDeps,
    shutdownGraceTime: '1s',
  });
  return (await runWorkers(workers, work())) as T;
}
