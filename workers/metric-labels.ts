// Gives every activity its run's name as the `run` label of the metrics it records (activities/metrics.ts): the
// stage activities all take `runName` in their input, so no activity has to pass it down to the LLM client,
// the sandbox or the renderer itself.
import type { ActivityInterceptors } from '@temporalio/worker';
import { withRunLabel } from '../activities/metrics';

const runNameOf = (args: unknown[]): string => {
  const first = args[0] as { runName?: unknown } | undefined;
  return typeof first?.runName === 'string' ? first.runName : '';
};

const interceptors: ActivityInterceptors = {
  inbound: { execute: (input, next) => withRunLabel(runNameOf(input.args), () => next(input)) },
};

export const runLabelInterceptor = (): ActivityInterceptors => interceptors;
