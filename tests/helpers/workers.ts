// In-process workers against a test dev server, for workflow tests.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../activities';
import type { QueueClass } from '../../contracts/run';
import { createWorkers, runWorkers } from '../../workers/run-worker';
import { namespaceOf, workflowBundle } from './temporal';

/** `queues`: only these (default: all); without `workflows` no workflow worker runs (a test that stops and starts one
 *  as a process of its own while the activities go on here). */
export async function withWorkers<T>(
  env: TestWorkflowEnvironment,
  work: () => Promise<T>,
  activityDeps?: ActivityDeps,
  queues?: QueueClass[],
): Promise<T> {
  const workers = await createWorkers({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    ...(queues && !queues.includes('workflows') ? { queues } : { queues, workflowBundle: await workflowBundle() }),
    activityDeps,
    shutdownGraceTime: '1s',
  });
  return (await runWorkers(workers, work())) as T;
}
