// Gives every activity its run's name as the `run` label of the metrics it records (activities/metrics.ts): the
// stage activities all take `runName` in their input, so no activity has to pass it down to the LLM client,
// the sandbox or the renderer itself.
import type { ActivityInterceptors } from '@temporalio/worker';
import { flushMetrics, withRunLabel } from '../activities/metrics';

const runNameOf = (args: unknown[]): string => {
  const first = args[0] as { runName?: unknown } | undefined;
  return typeof first?.runName === 'string' ? first.runName : '';
};

const interceptors: ActivityInterceptors = {
  inbound: {
    // An activity's counts are on the meter before its result reaches the server (metrics.ts batches them).
    execute: (input, next) =>
      withRunLabel(runNameOf(input.args), async () => {
        try {
          return await next(input);
        } finally {
          flushMetrics();
        }
      }),
  },
};

export const runLabelInterceptor = (): ActivityInterceptors => interceptors;
