// One-shot commands (demo, eval) run their own workers so that one command is enough.
import { NativeConnection } from '@temporalio/worker';
import { installWorkerLogging } from '../workers/logging';
import { createWorkers, runWorkers } from '../workers/run-worker';
import { temporalTarget } from './temporal-config';
import { connectDiagnosingTls } from './tls-diagnosis';

/** `gpuClasses`: the classes the run's config places gpu work on (contracts/placement.ts): this one machine is all of
 *  them, so its gpu worker polls their queues too. */
export async function withInProcessWorkers<T>(work: () => Promise<T>, gpuClasses: string[] = []): Promise<T> {
  // The command prints its own progress; the worker's state-change INFO lines would bury it. Warnings still show.
  installWorkerLogging('WARN');
  const target = temporalTarget();
  const connection = await connectDiagnosingTls(target, () => NativeConnection.connect(target.connection));
  try {
    const workers = await createWorkers({ connection, namespace: target.namespace, gpuClasses });
    return (await runWorkers(workers, work())) as T;
  } finally {
    await connection.close();
  }
}
