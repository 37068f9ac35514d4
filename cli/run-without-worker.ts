// A run's status from the server alone, for when no worker answers its queries (cli/worker-busy.ts): the loop from
// the state its execution started with (the iterations finished before it; the loop continues as new after each),
// the running iteration's stage and needs-attention flag from its search attributes, and its running activities'
// heartbeat details from its description. `status` shows it once the worker has stayed busy a while; `watch` and
// `start --wait` end with it when the run closed while no worker answered.
import type { Client } from '@temporalio/client';
import { effectiveConfig } from '../contracts/effective-config';
import { RecipeKey } from '../contracts/messages';
import { describeIteration, iterationFlags, pendingWork } from './iteration-description';
import { describeRun, lastStart, noSuchRun, type LoopMemo, type RunStatus } from './loop-workflow';
import { runningWork } from './running-work';

/** `reason`: how the worker did not answer (WorkerBusyError.reason). Whether the run is paused is the worker's to
 *  say: it reads as running. */
export async function statusWithoutWorker(client: Client, runName: string, reason: string): Promise<RunStatus> {
  const desc = await describeRun(client, runName);
  if (!desc) throw noSuchRun(client, runName);
  const { input, state } = await lastStart(client, runName);
  const iteration = state?.iteration ?? 0;
  const child = desc.status.name === 'RUNNING' ? await describeIteration(client, runName, iteration) : undefined;
  const work = pendingWork(child);
  return {
    workflowStatus: desc.status.name,
    loop: {
      runName,
      recipe: desc.typedSearchAttributes.get(RecipeKey) ?? input.config.recipe.name,
      iteration,
      iterations: (desc.memo as Partial<LoopMemo> | undefined)?.iterations ?? effectiveConfig(input.config, state).iterations,
      paused: false,
      done: state?.done ?? [],
      finished: false,
      ...(state?.configChanges ? { configChanges: state.configChanges } : {}),
    },
    inFlight: work.inFlight,
    training: work.training,
    waits: work.waits,
    unanswered: { reason, ...(child ? iterationFlags(child) : {}), running: runningWork(work.details) },
  };
}
