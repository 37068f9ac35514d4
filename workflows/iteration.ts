// One iteration of a loop: deploy → generate → evaluate → build-data → undeploy → train, one function per stage
// (stages/) over one typed state (iteration-state.ts). A stage that fails after its retries does not fail the
// iteration: it waits, visible as "needs attention", until the user retries it (optionally with a changed config,
// or from an earlier stage) or stops the run.
import {
  CancellationScope,
  condition,
  isCancellation,
  log,
  patched,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { PATCHES } from './patches';
import { versioningBehavior } from './versioning';
import {
  iterationConfigQuery,
  iterationStatusQuery,
  NeedsAttentionKey,
  pauseSignal,
  retryStageUpdate,
  StageKey,
  type RetryRequest,
} from '../contracts/messages';
import type { LoopConfig } from '../contracts/config';
import { STAGES, type IterationInput, type IterationSummary, type Stage, type StageStats } from '../contracts/run';
import { publish, statusView, summary, tellLoop } from './iteration-progress';
import { scheduled, stageActivities } from './activity-proxies';
import { newIterationState, wantsTrainData, type IterationState } from './iteration-state';
import { iterationSummary } from './iteration-summary';
import { runSpent } from './budget';
import { afterLostServers } from './redeploy';
import { recordStageDuration, reportBudget, setNeedsAttention } from './run-metrics';
import { describeFailure, RestartFrom } from './stage-failure';
import { buildData } from './stages/build-data';
import { deploy, stopServers, undeploy } from './stages/deploy';
import { evaluate } from './stages/evaluate';
import { generate } from './stages/generate';
import { train } from './stages/train';

const STAGE_BODIES: Record<Stage, (s: IterationState, stats: StageStats) => Promise<void>> = {
  deploy,
  generate,
  evaluate,
  'build-data': buildData,
  undeploy,
  train,
};

// Versioned workers: an iteration (hours of stages) finishes on the build it started on; the loop starts the next
// one on the current build; `temporal workflow update-options` moves a running one deliberately (docs/operations.md).
setWorkflowOptions(versioningBehavior('PINNED'), iterationWorkflow);
export async function iterationWorkflow(input: IterationInput): Promise<IterationSummary> {
  const s = newIterationState(input);
  handleMessages(s);
  try {
    await runStages(s);
  } finally {
    await stopLeftServers(s);
  }
  s.status.stage = 'done';
  upsertSearchAttributes([{ key: StageKey, value: 'done' }]);
  publish(s);
  tellLoop(s);
  return iterationSummary(s);
}

/** Status and config queries, pause, and the retry update (accepted only while a stage needs
 *  attention). */
function handleMessages(s: IterationState): void {
  setHandler(iterationStatusQuery, () => statusView(s));
  setHandler(iterationConfigQuery, () => s.config);
  setHandler(pauseSignal, (p) => {
    s.status.paused = p;
    publish(s);
  });
  setHandler(
    retryStageUpdate,
    (req) => {
      s.retry = req;
      return `retrying from stage ${req.stage ?? s.status.attention?.stage}`;
    },
    {
      validator: (req) => {
        const attention = s.status.attention;
        if (!attention) throw new Error(`iteration ${s.input.iteration} has no stage that needs attention`);
        if (req.stage && !(STAGES.indexOf(req.stage) <= STAGES.indexOf(attention.stage)))
          throw new Error(`can only retry "${attention.stage}" or an earlier stage, not "${req.stage}"`);
      },
    },
  );
}

/** Every stage in order; a retry from an earlier stage forgets what that stage and the later ones produced. */
async function runStages(s: IterationState): Promise<void> {
  let from = 0;
  for (;;) {
    try {
      for (const stage of STAGES.slice(from)) await runStage(s, stage);
      return;
    } catch (err) {
      if (!(err instanceof RestartFrom)) throw err;
      from = STAGES.indexOf(err.stage);
      if (from <= STAGES.indexOf('generate')) {
        s.plan = undefined;
        s.shardResults.clear();
        s.status.conversations.done = 0;
        s.status.tokens = 0;
        s.budgetEpoch++;
      }
      if (from === 0) s.deployed = undefined;
    }
  }
}

/** One stage until it succeeds: waits while paused, and after a failure until the user retries. */
async function runStage(s: IterationState, stage: Stage): Promise<void> {
  for (;;) {
    if (s.status.paused) {
      publish(s);
      await releaseServers(s);
      await condition(() => !s.status.paused);
    }
    s.status.stage = stage;
    upsertSearchAttributes([
      { key: StageKey, value: stage },
      { key: NeedsAttentionKey, value: false },
    ]);
    // Workflow time is deterministic (the task's start); the sum of a stage's attempts, not its waits for a user.
    const started = Date.now();
    const stats = (s.status.stages[stage] ??= { startedAt: new Date(started).toISOString(), ms: 0 });
    publish(s);
    tellLoop(s);
    try {
      await keepConfig(s);
      if (s.released && needsServers(s, stage)) await deploy(s, (s.status.stages.deploy ??= { startedAt: stats.startedAt, ms: 0 }));
      await STAGE_BODIES[stage](s, stats);
      stats.ms += Date.now() - started;
      recordStageDuration(s, stage, stats.ms);
      reportBudget(s, runSpent(s));
      return;
    } catch (err) {
      stats.ms += Date.now() - started;
      if (isCancellation(err)) throw err;
      const lost = needsServers(s, stage) ? afterLostServers(s, err) : { failure: err };
      if (lost === 'redeploy') continue;
      const req = await needsAttention(s, stage, lost.failure);
      if (req.config) applyConfig(s, req.config, req.changes);
      if (req.stage && req.stage !== stage) throw new RestartFrom(req.stage);
    }
  }
}

/** Shows the failure (UI details, search attribute, the loop's page) and waits for the user's retry. */
async function needsAttention(s: IterationState, stage: Stage, err: unknown): Promise<RetryRequest> {
  const { message, type, roles } = describeFailure(err);
  log.warn('stage needs attention', { stage, message, type });
  s.status.attention = { stage, error: message, failureType: type, since: new Date().toISOString(), ...(roles ? { roles } : {}) };
  upsertSearchAttributes([{ key: NeedsAttentionKey, value: true }]);
  publish(s);
  tellLoop(s);
  setNeedsAttention(s, stage, true);
  reportBudget(s, runSpent(s)); // a stage stopped for its budget shows what was spent against it
  s.retry = undefined;
  let req: RetryRequest | undefined;
  try {
    while (!req) await condition(() => (req = s.retry) !== undefined);
  } finally {
    setNeedsAttention(s, stage, false); // retried, or the run stopped while it waited
  }
  s.status.attention = undefined;
  return req;
}

/** The stages that call the served models: generation, and a data build that asks models (SWEET-RL). */
const needsServers = (s: IterationState, stage: Stage) =>
  stage === 'generate' || (stage === 'build-data' && wantsTrainData(s) && !!s.plan?.needs.modelsForData);

/** A paused iteration holds no GPU: its model servers stop, and the next stage that needs them deploys again
 *  (iterations started before this patch kept them up while paused). */
async function releaseServers(s: IterationState): Promise<void> {
  if (!s.deployed || s.undeployed || !patched(PATCHES.pauseReleasesServers.id)) return;
  try {
    await stopServers(s);
    s.undeployed = true;
    s.released = true;
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not stop the model servers while paused; they stay up', { error: String(err) });
  }
}

/** A retry's config: in force from now on (the loop carries it to the later iterations); a changed
 *  baseCheckpoint replaces it wherever this iteration still serves the old one (the CLI allows that change only
 *  while nothing has trained). */
function applyConfig(s: IterationState, config: LoopConfig, changes: string[] = []): void {
  if (s.patches.retryConfig) {
    const from = s.config.baseCheckpoint;
    const rebased = (c: string) => (c === from ? config.baseCheckpoint : c);
    s.checkpoint = rebased(s.checkpoint);
    if (s.checkpoints) s.checkpoints = Object.fromEntries(Object.entries(s.checkpoints).map(([r, c]) => [r, rebased(c)]));
    if (changes.length) s.status.configChanges = [...(s.status.configChanges ?? []), ...changes];
  }
  s.config = config;
  s.configRef = undefined; // stored again before the next stage
}

/** Stores the config in effect once, so stage inputs carry its reference (config-by-ref-v1). */
async function keepConfig(s: IterationState): Promise<void> {
  if (!s.patches.configByRef || s.configRef) return;
  s.configRef = await scheduled(stageActivities(s.config).cpu.keepConfig, summary(s, 'keep config'), { config: s.config });
}

/** Never leave a model server behind, whether the iteration succeeded, failed or was stopped. */
async function stopLeftServers(s: IterationState): Promise<void> {
  if (!s.deployed || s.undeployed) return;
  await CancellationScope.nonCancellable(async () => {
    try {
      await stopServers(s);
    } catch (err) {
      log.error('undeploy during cleanup failed', { error: String(err) });
    }
  });
}
