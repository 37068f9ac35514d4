// How a failed stage is described to the user (the "needs attention" line), and the request to restart earlier.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { Stage } from '../contracts/run';

/** Thrown out of a stage when the user's retry asks to re-run from an earlier stage. */
export class RestartFrom {
  constructor(readonly stage: Stage) {}
}

/** The failure's message and type, and the model roles it names (the train stage's failures carry them). */
export function describeFailure(err: unknown): { message: string; type?: string; roles?: string[] } {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    const roles = cause.details?.[0];
    return { message: cause.message, type: cause.type ?? undefined, ...(Array.isArray(roles) ? { roles: roles as string[] } : {}) };
  }
  return { message: cause instanceof Error ? cause.message : String(cause) };
}
