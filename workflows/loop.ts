// The training loop: one child workflow per iteration (fixed id `<loop id>/iter-<k>`), then continueAsNew, so
// each history stays small however many iterations run and new code takes effect at iteration boundaries.
// Holds only small state: the iteration number, the current checkpoint path and per-iteration summaries.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  startChild,
  type ChildWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CollabActivities } from '../contracts/activities';
import { renderLoopDetails } from './details';
import { roleChainLines } from '../contracts/role-chains';
import { HEARTBEAT_TIMEOUT, iterationWorkflow } from './iteration';
import {
  iterationProgressSignal,
  iterationWorkflowId,
  IterationKey,
  loopStatusQuery,
  RecipeKey,
  RunNameKey,
  pauseSignal,
  stopSignal,
} from '../contracts/messages';
import { trackSummary } from './stage-summaries';
import {
  TASK_QUEUES,
  type IterationProgress,
  type IterationSummary,
  type LoopInput,
  type LoopState,
  type LoopStatus,
  type Spend,
} from '../contracts/run';

export interface LoopResult {
  runName: string;
  iterations: IterationSummary[];
  stopped: boolean;
  finalCheckpoint: string;
  /** Why the last attempt to write the trackers failed (absent when it succeeded or none is configured). */
  trackingError?: string;
}

/** Trackers are a convenience: a tracker that stays down is reported in the loop's details, never fatal. */
const trackers = proxyActivities<CollabActivities>({
  taskQueue: TASK_QUEUES.cpu,
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { maximumAttempts: 5, initialInterval: '2s', maximumInterval: '60s', nonRetryableErrorTypes: ['ConfigError'] },
});

/** What the finished iterations spent in total (for the next iteration's budget check). */
const spentBy = (done: readonly IterationSummary[]): Spend =>
  done.reduce<Spend>((a, d) => ({ tokens: a.tokens + (d.spend?.total.tokens ?? 0), usd: a.usd + (d.spend?.total.usd ?? 0) }), {
    tokens: 0,
    usd: 0,
  });

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
    stopped,
    trackingError,
  });
  let current: IterationProgress | undefined;
  let trackingError: string | undefined;
  const publish = () =>
    setCurrentDetails(
      renderLoopDetails({
        runName: input.runName,
        recipe: input.config.recipe.name,
        iteration: state.iteration,
        iterations: input.config.iterations,
        checkpoint: state.checkpoint,
        paused: !!state.paused,
        models: state.done.length ? roleChainLines(state.done) : [],
        stopped,
        done: state.done,
        current,
        trackingError,
      }),
    );
  setHandler(loopStatusQuery, status);
  setHandler(iterationProgressSignal, (p) => {
    current = p;
    publish();
  });

  /** Logs the finished iterations to the configured trackers (MLflow, W&B); absent section: nothing is sent. */
  const track = async (final: boolean) => {
    if (!input.config.tracking || !state.done.length || !patched('tracking-v1')) return;
    try {
      await trackers.trackIteration.executeWithOptions({ summary: trackSummary(state.done.length, final) }, [
        { runName: input.runName, config: input.config, iterations: state.done, final },
      ]);
      trackingError = undefined;
    } catch (err) {
      trackingError = String((err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message);
      log.warn('tracking failed; the loop goes on', { error: trackingError });
    }
    publish();
  };
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

  const result = (): LoopResult => ({
    runName: input.runName,
    iterations: state.done,
    stopped,
    finalCheckpoint: state.checkpoint,
    trackingError,
  });

  await condition(() => !state.paused || stopped);
  if (stopped) return result();

  try {
    child = await childScope.run(() =>
      startChild(iterationWorkflow, {
        workflowId: childId,
        taskQueue: TASK_QUEUES.workflows,
        args: [
          {
            runName: input.runName,
            config: state.budget ? { ...input.config, budget: state.budget } : input.config,
            iteration: state.iteration,
            checkpoint: state.checkpoint,
            ...(state.checkpoints ? { checkpoints: state.checkpoints } : {}),
            evalOnly: !!input.evalOnly,
            ...(state.done.some((d) => d.spend) ? { spentBefore: spentBy(state.done) } : {}),
          },
        ],
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
    if (summary.budget) state.budget = summary.budget;
    if (summary.nextCheckpoint) state.checkpoint = summary.nextCheckpoint;
    // Each trained role's chain goes on from what it trained into (or what it served, when it had no examples).
    if (summary.models)
      state.checkpoints = Object.fromEntries(
        Object.entries(summary.models).flatMap(([role, m]) =>
          m.kind === 'trained' && m.checkpoint ? [[role, m.nextCheckpoint ?? m.checkpoint]] : [],
        ),
      );
    state.iteration++;
  } catch (err) {
    if (stopped && isCancellation(err)) {
      publish();
      await track(true);
      return result();
    }
    throw err;
  }
  publish();
  const last = state.iteration >= input.config.iterations || stopped;
  await track(last);
  if (last) return result();
  await condition(allHandlersFinished);
  return continueAsNew<typeof trainingLoop>(input, state);
}
