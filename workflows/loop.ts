// The training loop: one child workflow per iteration (fixed id `<loop id>/iter-<k>`), then continueAsNew, so
// each history stays small however many iterations run and new code takes effect at iteration boundaries.
// Holds only small state: the iteration number, the current checkpoint path and per-iteration summaries.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  deprecatePatch,
  continueAsNew,
  startChild,
  type ChildWorkflowHandle,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { PATCHES } from './patches';
import { versioningBehavior } from './versioning';
import { NON_RETRYABLE_ERRORS } from '../contracts/errors';
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
import { roleChainLines } from '../contracts/role-chains';
import { runDataName } from '../contracts/run-data-name';
import {
  TASK_QUEUES,
  type IterationInput,
  type IterationProgress,
  type IterationSummary,
  type LoopInput,
  type LoopState,
  type LoopStatus,
} from '../contracts/run';
import type { LoopConfig } from '../contracts/config';
import { sumSpend } from '../contracts/spend';
import { type TrackerOutcome, trackingFailure } from '../contracts/tracking';
import { effectiveConfig } from '../contracts/effective-config';
import { queueProxy } from './activity-proxies';
import { renderLoopDetails } from './details';
import { iterationWorkflow } from './iteration';
import { advance } from './loop-state';
import { loopStageProgress } from './live-progress';
import { iterationStartSummary, trackSummary } from './stage-summaries';

export interface LoopResult {
  runName: string;
  iterations: IterationSummary[];
  stopped: boolean;
  finalCheckpoint: string;
  /** Why the last attempt to write the trackers failed (absent when it succeeded or none is configured). */
  trackingError?: string;
  /** What the last tracking call did with each tracker: where its output went, or why not. */
  tracking?: TrackerOutcome[];
}

/** Trackers are a convenience: a tracker that stays down is reported in the loop's details, never fatal. */
const trackers = queueProxy('cpu', {
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5, initialInterval: '2s', maximumInterval: '60s', nonRetryableErrorTypes: NON_RETRYABLE_ERRORS },
});

/** One segment of the loop (between two continue-as-new): the carried state plus what this segment learns. */
interface LoopRun {
  readonly input: LoopInput;
  readonly state: LoopState & { paused?: boolean };
  stopped: boolean;
  /** What the running iteration last reported (absent before its first stage). */
  current?: IterationProgress;
  trackingError?: string;
  /** What the last tracking call did with each tracker. */
  tracking?: TrackerOutcome[];
  child?: ChildWorkflowHandle<typeof iterationWorkflow>;
  /** Cancelled by `stop`: the running iteration cleans up (kills its subprocesses) and ends. */
  readonly childScope: CancellationScope;
}

// Worker Versioning (versioned workers only: `collab-loop worker --deployment`): the loop moves to the deployment's
// current build at its next workflow task, so a fix reaches a running run once that build is made current; every
// change to it is behind patched(), which keeps the replay on the new build deterministic.
setWorkflowOptions(versioningBehavior('AUTO_UPGRADE'), trainingLoop);
export async function trainingLoop(input: LoopInput, resumed?: LoopState & { paused?: boolean }): Promise<LoopResult> {
  const run: LoopRun = {
    input,
    // The first execution's start, set once: continue-as-new carries it to every later segment.
    state: resumed ?? {
      iteration: 0,
      checkpoint: input.config.baseCheckpoint,
      done: [],
      startedAt: workflowInfo().startTime.toISOString(),
    },
    stopped: false,
    childScope: new CancellationScope(),
  };
  handleMessages(run);
  upsertSearchAttributes([
    { key: RunNameKey, value: input.runName },
    { key: RecipeKey, value: input.config.recipe.name },
    { key: IterationKey, value: run.state.iteration },
  ]);
  publish(run);

  await condition(() => !run.state.paused || run.stopped);
  if (run.stopped) return result(run);
  try {
    advance(run.state, await runIteration(run), patched(PATCHES.retryConfig.id));
  } catch (err) {
    if (run.stopped && isCancellation(err)) {
      publish(run);
      await track(run, true);
      return result(run);
    }
    throw err;
  }
  publish(run);
  const last = run.state.iteration >= configOf(run).iterations || run.stopped;
  await track(run, last);
  if (last) return result(run);
  await condition(allHandlersFinished);
  return continueAsNew<typeof trainingLoop>(input, run.state);
}

/** The status query, progress from the running iteration, pause (forwarded to it) and stop. */
function handleMessages(run: LoopRun): void {
  setHandler(loopStatusQuery, () => status(run));
  setHandler(iterationProgressSignal, (p) => {
    run.current = p;
    publish(run);
  });
  setHandler(pauseSignal, async (p) => {
    run.state.paused = p;
    publish(run);
    // Forward to the running iteration so it pauses at its next stage boundary.
    if (run.child) await run.child.signal(pauseSignal, p).catch(() => undefined);
  });
  setHandler(stopSignal, () => {
    run.stopped = true;
    run.childScope.cancel();
  });
}

/** Starts the iteration as a child workflow and waits for its summary. */
async function runIteration(run: LoopRun): Promise<IterationSummary> {
  const { input, state } = run;
  // Iterations started before every role's checkpoint was named in their summary carry no marker (patches.ts).
  deprecatePatch(PATCHES.rolesInIterationSummary.id);
  const child = await run.childScope.run(() =>
    startChild(iterationWorkflow, {
      workflowId: iterationWorkflowId(input.runName, state.iteration),
      taskQueue: TASK_QUEUES.workflows,
      args: [iterationInput(run)],
      ...iterationStartSummary(input.runName, state.iteration, state.checkpoint, state.checkpoints),
      typedSearchAttributes: [
        { key: RunNameKey, value: input.runName },
        { key: RecipeKey, value: input.config.recipe.name },
        { key: IterationKey, value: state.iteration },
      ],
    }),
  );
  run.child = child;
  if (state.paused) await child.signal(pauseSignal, true); // paused while the child was starting
  return run.childScope.run(() => child.result());
}

/** The config the next iteration runs with: the run's, with every `retry --set` change made so far. */
const configOf = ({ input, state }: LoopRun): LoopConfig => effectiveConfig(input.config, state);

function iterationInput(run: LoopRun): IterationInput {
  const { input, state } = run;
  return {
    runName: input.runName,
    config: configOf(run),
    iteration: state.iteration,
    checkpoint: state.checkpoint,
    ...(state.checkpoints ? { checkpoints: state.checkpoints } : {}),
    evalOnly: !!input.evalOnly,
    ...(input.restart ? { restart: input.restart } : {}),
    // What the finished iterations spent, for the budget check.
    ...(state.done.some((d) => d.spend) ? { spentBefore: sumSpend(state.done.map((d) => d.spend?.total)) } : {}),
    ...(state.configChanges ? { configChanges: state.configChanges } : {}),
  };
}

/** Logs the finished iterations to the configured trackers (MLflow, W&B); absent section: nothing is sent. */
async function track(run: LoopRun, final: boolean): Promise<void> {
  const { input, state } = run;
  if (!input.config.tracking || !state.done.length || !patched(PATCHES.tracking.id)) return;
  try {
    // Histories recorded before the activity returned outcomes carry no result: nothing to read, as then.
    const outcomes =
      (await trackers.trackIteration.executeWithOptions({ summary: trackSummary(state.done.length, final) }, [
        // A restart is its own run in the trackers too, as in the state dir.
        { runName: runDataName(input), config: configOf(run), iterations: state.done, final },
      ])) ?? undefined;
    run.tracking = outcomes;
    run.trackingError = outcomes && trackingFailure(outcomes);
    if (run.trackingError) log.warn('a tracker was not written; the loop goes on', { error: run.trackingError });
  } catch (err) {
    run.trackingError = failureMessage(err);
    log.warn('tracking failed; the loop goes on', { error: run.trackingError });
  }
  publish(run);
}

/** An activity failure's own message (its cause's), not Temporal's "Activity task failed" wrapper. */
function failureMessage(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
}

const status = (run: LoopRun): LoopStatus => {
  const { input, state, stopped, trackingError, tracking } = run;
  const iterations = configOf(run).iterations;
  return {
    runName: input.runName,
    recipe: input.config.recipe.name,
    iteration: state.iteration,
    iterations,
    paused: !!state.paused,
    done: state.done,
    finished: stopped || state.iteration >= iterations,
    stopped,
    trackingError,
    ...(tracking ? { tracking } : {}),
    ...(state.configChanges ? { configChanges: state.configChanges } : {}),
  };
};

function publish(run: LoopRun): void {
  const { input, state, stopped, current, trackingError } = run;
  setCurrentDetails(
    renderLoopDetails({
      runName: input.runName,
      recipe: input.config.recipe.name,
      iteration: state.iteration,
      iterations: configOf(run).iterations,
      checkpoint: state.checkpoint,
      paused: !!state.paused,
      models: state.done.length ? roleChainLines(state.done) : [],
      stopped,
      done: state.done,
      current,
      progress: loopStageProgress(current),
      trackingError,
      configChanges: state.configChanges,
      startedAt: state.startedAt,
      now: Date.now(),
    }),
  );
}

const result = ({ input, state, stopped, trackingError, tracking }: LoopRun): LoopResult => ({
  runName: input.runName,
  iterations: state.done,
  stopped,
  finalCheckpoint: state.checkpoint,
  trackingError,
  ...(tracking ? { tracking } : {}),
});
