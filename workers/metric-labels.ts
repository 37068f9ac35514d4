// Gives every activity its run's name as the `run` label of the metrics it records (activities/metrics.ts): the
// stage activities all take `runName` (and `iteration`) in their input, so no activity has to pass them down to
// the LLM client, the sandbox or the renderer itself.
import type { ActivityInterceptors } from '@temporalio/worker';
import { flushMetrics, withRunLabel } from '../activities/metrics';

const runOf = (args: unknown[]): { run: string; iteration?: number } => {
  const first = args[0] as { runName?: unknown; iteration?: unknown } | undefined;
  return {
    run: typeof first?.runName === 'string' ? first.runName : '',
    iteration: typeof first?.iteration === 'number' ? first.iteration : undefined,
  };
};

const interceptors: ActivityInterceptors = {
  inbound: {
    // An activity's counts are on the meter before its result reaches the server (metrics.ts batches them).
    execute: (input, next) => {
      const { run, iteration } = runOf(input.args);
      return withRunLabel(
        run,
        async () => {
          try {
            return await next(input);
          } finally {
            flushMetrics();
          }
        },
        iteration,
      );
    },
  },
};

export const runLabelInterceptor = (): ActivityInterceptors => interceptors;
