// The training loop: one child workflow per iteration (fixed id `<loop id>/iter-<k>`), then continueAsNew, so
// each history stays small however many iterations run and new code takes effect at iteration boundaries.
// Holds only small state: the iteration number, the current checkpoint path and per-iteration summaries.
import {
  allHandlersFinished, CancellationScope, condition, continueAsNew, startChild, type ChildWorkflowHandle,
  isCancellation, setCurrentDetails, setHandler, upsertSearchAttributes,
} from '@temporalio/workflow';
import { iterationWorkflow } from './iteration';
import {
  iterationWorkflowId, IterationKey, loopStatusQuery, RecipeKey, RunNameKey, pauseSignal, stopSignal,
} from './messages';
import { TASK_QUEUES, type IterationSummary, type LoopInput, type LoopState, type LoopStatus } from './types';

export interface LoopResult {
  runName: string;
  iterations: IterationSummary[];
  stopped: boolean;
  finalCheckpoint: string;
}

function renderLoopDetails(input: LoopInput, state: LoopState & { paused?: boolean }, stopped: boolean): string {
  const rows = state.done.map((d) => {
    const m = Object.entries(d.metrics).slice(0, 4).map(([k, v]) => `${k}=${v.toFixed(3)}`).join(' ');
    return `- iter ${d.iteration}: ${m || 'no metrics'} · tokens ${d.tokens}`;
  });
  const head = stopped
    ? 'stopped'
    : `iteration ${state.iteration + 1}/${input.config.iterations}${state.paused ? ' · ⏸ paused' : ''}`;
  return [`**${input.runName}** (${input.config.recipe.name}) · ${head}`, `checkpoint \`${state.checkpoint}\``, '', ...rows].join('\n');
}

export async function trainingLoop(input: LoopInput, resumed?: LoopState & { paused?: boolean }): Promise<LoopResult> {
  const state: LoopState & { paused?: boolean } = resumed ?? { iteration: 0, checkpoint: input.config.baseCheckpoint, done: [] };
  let stopped = false;
  const childScope = new CancellationScope();
  const childId = iterationWorkflowId(input.runName, state.iteration);

  const status = (): LoopStatus => ({
    runName: input.runName,
    recipe: input.config.recipe.name,
    iteration: state.iteration,
    iterations: input.config.iterations,
    paused: !!state.paused,
    done: state.done,
    finished: stopped || state.iteration >= input.config.iterations,
  });
  const publish = () => setCurrentDetails(renderLoopDetails(input, state, stopped));
  setHandler(loopStatusQuery, status);
  let child: ChildWorkflowHandle<typeof iterationWorkflow> | undefined;
  setHandler(pauseSignal, async (p) => {
    state.paused = p;
    publish();
    // Forward to the running iteration so it pauses at its next stage boundary.
    if (child) await child.signal(pauseSignal, p).catch(() => undefined);
  });
  setHandler(stopSignal, () => {
    stopped = true;
    childScope.cancel();
  });

  upsertSearchAttributes([
    { key: RunNameKey, value: input.runName },
    { key: RecipeKey, value: input.config.recipe.name },
    { key: IterationKey, value: state.iteration },
  ]);
  publish();

  const result = (): LoopResult => ({ runName: input.runName, iterations: state.done, stopped, finalCheckpoint: state.checkpoint });

  await condition(() => !state.paused || stopped);
  if (stopped) return result();

  try {
    child = await childScope.run(() =>
      startChild(iterationWorkflow, {
        workflowId: childId,
        taskQueue: TASK_QUEUES.workflows,
        args: [{ runName: input.runName, config: input.config, iteration: state.iteration, checkpoint: state.checkpoint, evalOnly: !!input.evalOnly }],
        staticSummary: `${input.runName} · iteration ${state.iteration} · checkpoint ${state.checkpoint}`,
        typedSearchAttributes: [
          { key: RunNameKey, value: input.runName },
          { key: RecipeKey, value: input.config.recipe.name },
          { key: IterationKey, value: state.iteration },
        ],
      }),
    );
    if (state.paused) await child.signal(pauseSignal, true); // paused while the child was starting
    const summary = await childScope.run(() => child!.result());
    state.done.push(summary);
    if (summary.nextCheckpoint) state.checkpoint = summary.nextCheckpoint;
    state.iteration++;
  } catch (err) {
    if (stopped && isCancellation(err)) { publish(); return result(); }
    throw err;
  }
  publish();
  if (state.iteration >= input.config.iterations || stopped) return result();
  await condition(allHandlersFinished);
  return continueAsNew<typeof trainingLoop>(input, state);
}
