// One iteration of a loop: deploy → generate → evaluate → build-data → undeploy → train, one function per stage
// (stages/) over one typed state (iteration-state.ts). A stage that fails after its retries does not fail the
// iteration: it waits, visible as "needs attention", until the user retries it (optionally with a changed config,
// or from an earlier stage) or stops the run.
import { CancellationScope, condition, isCancellation, log, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import {
  iterationConfigQuery,
  iterationStatusQuery,
  NeedsAttentionKey,
  pauseSignal,
  retryStageUpdate,
  StageKey,
  type RetryRequest,
} from '../contracts/messages';
import { STAGES, type IterationInput, type IterationSummary, type Stage, type StageStats } from '../contracts/run';
import { publish, tellLoop } from './iteration-progress';
import { newIterationState, type IterationState } from './iteration-state';
import { iterationSummary } from './iteration-summary';
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

/** Status and config queries, pause, and the retry update (accepted only while a stage needs attention). */
function handleMessages(s: IterationState): void {
  setHandler(iterationStatusQuery, () => s.status);
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
      await STAGE_BODIES[stage](s, stats);
      stats.ms += Date.now() - started;
      return;
    } catch (err) {
      stats.ms += Date.now() - started;
      if (isCancellation(err)) throw err;
      const req = await needsAttention(s, stage, err);
      if (req.config) s.config = req.config;
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
  s.retry = undefined;
  let req: RetryRequest | undefined;
  while (!req) await condition(() => (req = s.retry) !== undefined);
  s.status.attention = undefined;
  return req;
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
