// `collab-loop continue NAME`: a stopped, failed, terminated or timed-out run goes on from its last finished
// iteration. The loop continues-as-new after each iteration (workflows/loop.ts), so its latest execution was
// started with the state after the last finished one; a new execution under the same workflow id starts from it.
// The unfinished iteration runs again as a child with its old id, and its stages pay nothing already answered:
// the request cache is keyed by request content (activities/llm/).
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { effectiveConfig } from '../contracts/effective-config';
import { iterationWorkflowId } from '../contracts/messages';
import type { LoopInput, LoopState } from '../contracts/run';
import type { LoopResult, trainingLoop } from '../workflows/loop';
import { advance } from '../workflows/loop-state';
import { runStart } from './list-runs';
import { describeRun, lastStart, noSuchRun, runState, startExecution } from './loop-workflow';
import { UserError } from './user-error';

export interface Continued {
  handle: WorkflowHandle<typeof trainingLoop>;
  input: LoopInput;
  state: LoopState;
}

export async function continueLoop(client: Client, runName: string): Promise<Continued> {
  const existing = await describeRun(client, runName);
  if (!existing) throw noSuchRun(client, runName);
  const status = existing.status.name;
  if (status === 'RUNNING') throw new UserError(`run "${runName}" is running; nothing to continue (collab-loop status ${runName})`);
  const { input, state: started } = await lastStart(client, runName);
  const state: LoopState = structuredClone(started ?? { iteration: 0, checkpoint: input.config.baseCheckpoint, done: [] });
  // The run keeps its start: the loop carries it in its state (absent when it stopped in its first execution, or
  // in runs from before it was kept: then it is where `list` says the run started).
  state.startedAt ??= (await runStart(client, existing)).toISOString();
  if (status === 'COMPLETED') {
    // A stop that landed after an iteration finished ends the execution with that iteration in its result only.
    const result = (await client.workflow.getHandle(existing.workflowId).result()) as LoopResult;
    for (const summary of result.iterations.slice(state.done.length)) advance(state, summary, true);
  }
  // A `retry --set iterations=…` the loop carried counts, as it does for the loop itself.
  const total = effectiveConfig(input.config, state).iterations;
  if (state.iteration >= total)
    throw new UserError(
      `run "${runName}" is ${await runState(client, existing)} with all ${total} iterations done; \`collab-loop start --restart\` begins it anew`,
    );
  await endLeftoverIteration(client, runName, state.iteration);
  const handle = await startExecution(client, {
    input,
    // Paused when it stopped or not, a continued run goes on: continuing is the user asking it to.
    state: { ...state, paused: false },
    memo: { iterations: total, startedAt: state.startedAt },
    summary: `${input.config.recipe.name} loop **${runName}** · continued at iteration ${state.iteration} of ${total}`,
    details: `continued from checkpoint \`${state.checkpoint}\`\n\nstate: \`${input.config.stateDir}\``,
    // The run is closed (checked above): its id may be used again.
    reuse: 'ALLOW_DUPLICATE',
  });
  return { handle, input, state };
}

/** The iteration's child closes with its parent (the default ParentClosePolicy TERMINATE, applied by the server
 *  shortly after the parent closes: https://docs.temporal.io/parent-close-policy). One still running would make
 *  the new loop's start of the same child id fail, so it is ended here; its finished stages' answers are cached. */
async function endLeftoverIteration(client: Client, runName: string, iteration: number): Promise<void> {
  const child = client.workflow.getHandle(iterationWorkflowId(runName, iteration));
  const d = await child.describe().catch((err) => {
    if (err instanceof WorkflowNotFoundError) return undefined; // stopped before the iteration started
    throw err;
  });
  if (d?.status.name === 'RUNNING') await child.terminate(`run ${runName} is continued: this iteration starts again`);
}
