// One-shot commands (demo, eval) run their own workers so that one command is enough.
import { NativeConnection } from '@temporalio/worker';
import { installWorkerLogging } from '../workers/logging';
import { createWorkers, runWorkers } from '../workers/run-worker';
import { temporalNamespace } from './connection';

export async function withInProcessWorkers<T>(address: string, work: () => Promise<T>): Promise<T> {
  // The command prints its own progress; the worker's state-change INFO lines would bury it. Warnings still show.
  installWorkerLogging('WARN');
  const connection = await NativeConnection.connect({ address });
  try {
    const workers = await createWorkers({ connection, namespace: temporalNamespace() });
    return (await runWorkers(workers, work())) as T;
  } finally {
    await connection.close();
  }
}
