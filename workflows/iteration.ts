// One iteration of a loop: deploy → generate → evaluate → build-data → undeploy → train.
// A stage that fails after its retries does not fail the iteration: it waits, visible as "needs attention",
// until the user retries it (optionally with a changed config) or stops the run.
import {
  ActivityCancellationType, ActivityFailure, ApplicationFailure, CancellationScope, condition, isCancellation, log, proxyActivities,
  setCurrentDetails, setHandler, upsertSearchAttributes, type ActivityOptions,
} from '@temporalio/workflow';
import type { CollabActivities } from './activity-types';
import {
  iterationConfigQuery, iterationStatusQuery, NeedsAttentionKey, retryStageUpdate, pauseSignal, StageKey, type RetryRequest,
} from './messages';
import { renderIterationDetails } from './details';
import {
  STAGES, TASK_QUEUES, type ArtifactRef, type DeployResult, type IterationInput, type IterationStatus,
  type IterationSummary, type LoopConfig, type ShardResult, type ShardSpec, type Stage, type TrainResult,
} from './types';

const NON_RETRYABLE = ['LlmAuthentication', 'LlmNotFound', 'LlmBadRequest', 'TaskFileError', 'ConfigError', 'TrainerConfigError'];
/** Shard activities scheduled at once by one iteration (each runs many conversations concurrently). */
const MAX_PARALLEL_SHARDS = 16;

function activities(config: LoopConfig) {
  const base = (queue: keyof typeof TASK_QUEUES, o: Partial<ActivityOptions>): ActivityOptions => ({
    taskQueue: TASK_QUEUES[queue],
    startToCloseTimeout: '30 minutes',
    retry: { maximumAttempts: 3, initialInterval: '1s', nonRetryableErrorTypes: NON_RETRYABLE },
    ...o,
  });
  // Ready timeout, plus the probe and the simulated agents' server when configured.
  const deployTimeoutS = config.server.kind === 'external' ? 60 : config.server.readyTimeoutSeconds + 360;
  return {
    cpu: proxyActivities<CollabActivities>(base('cpu', {})),
    sandbox: proxyActivities<CollabActivities>(base('sandbox', { startToCloseTimeout: '6 hours', heartbeatTimeout: '120s' })),
    llm: proxyActivities<CollabActivities>(
      base('llm', {
        startToCloseTimeout: '12 hours',
        heartbeatTimeout: `${config.generation.heartbeatTimeoutSeconds}s`,
        retry: {
          maximumAttempts: config.generation.maximumAttempts,
          initialInterval: '1s',
          maximumInterval: '60s',
          nonRetryableErrorTypes: NON_RETRYABLE,
        },
      }),
    ),
    // Stopping waits until servers and trainers are really gone (their process groups killed), not just asked to go.
    deploy: proxyActivities<CollabActivities>(
      base('gpu', { startToCloseTimeout: `${deployTimeoutS}s`, heartbeatTimeout: '30s', cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED }),
    ),
    train: proxyActivities<CollabActivities>(
      base('gpu', {
        startToCloseTimeout: `${config.trainer?.timeoutHours ?? 48} hours`,
        heartbeatTimeout: `${config.trainer?.heartbeatTimeoutSeconds ?? 120}s`,
        retry: { maximumAttempts: config.trainer?.maximumAttempts ?? 3, initialInterval: '2s', nonRetryableErrorTypes: NON_RETRYABLE },
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      }),
    ),
  };
}

class RestartFrom {
  constructor(readonly stage: Stage) {}
}

function describeFailure(err: unknown): { message: string; type?: string } {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) return { message: cause.message, type: cause.type ?? undefined };
  return { message: cause instanceof Error ? cause.message : String(cause) };
}

export async function iterationWorkflow(input: IterationInput): Promise<IterationSummary> {
  let config = input.config;
  const { runName, iteration, checkpoint, evalOnly } = input;
  const status: IterationStatus = {
    iteration, stage: 'deploy', paused: false, shards: { done: 0, total: 0 }, conversations: { done: 0, total: 0 }, tokens: 0,
  };
  let retry: RetryRequest | undefined;

  setHandler(iterationStatusQuery, () => status);
  setHandler(iterationConfigQuery, () => config);
  setHandler(pauseSignal, (p) => { status.paused = p; publish(); });
  setHandler(
    retryStageUpdate,
    (req) => {
      retry = req;
      return `retrying from stage ${req.stage ?? status.attention?.stage}`;
    },
    {
      validator: (req) => {
        if (!status.attention) throw new Error(`iteration ${iteration} has no stage that needs attention`);
        const failedAt = STAGES.indexOf(status.attention.stage);
        if (req.stage && !(STAGES.indexOf(req.stage) <= failedAt))
          throw new Error(`can only retry "${status.attention.stage}" or an earlier stage, not "${req.stage}"`);
      },
    },
  );

  const publish = () => setCurrentDetails(renderIterationDetails(runName, status));

  // Results kept across stage retries, so a retry never redoes finished work.
  let deployed: DeployResult | undefined;
  let undeployed = false;
  let shards: ShardSpec[] | undefined;
  const shardResults = new Map<string, ShardResult>();
  let evaluation: { metrics: Record<string, number>; manifest: ArtifactRef } | undefined;
  let data: { sft?: ArtifactRef; dpo?: ArtifactRef; manifest: ArtifactRef } | undefined;
  let trained: TrainResult | undefined;

  const shardKey = (s: ShardSpec) => `${s.split}-${s.index}`;
  const resultsOf = (split: ShardSpec['split']) =>
    (shards ?? []).filter((s) => s.split === split).map((s) => shardResults.get(shardKey(s))!).filter(Boolean);
  const ctx = () => ({ runName, iteration, config });
  const wantsTrainData = !evalOnly && !!config.recipe.trainTasks;
  // ColBench runs agent code / renders pages: scored on the sandbox queue; SWEET-RL data needs the served model.
  const scoresInSandbox = config.recipe.name !== 'coral';

  const stageBodies: Record<Stage, () => Promise<void>> = {
    deploy: async () => {
      deployed = await activities(config).deploy.deployCheckpoint({ ...ctx(), checkpoint });
      undeployed = false;
    },
    generate: async () => {
      shards ??= await activities(config).cpu.planShards({ config, evalOnly: !wantsTrainData });
      const pending = shards.filter((s) => !shardResults.has(shardKey(s)));
      status.shards = { done: shards.length - pending.length, total: shards.length };
      const llm = activities(config).llm;
      let next = 0;
      const lane = async () => {
        while (next < pending.length) {
          const shard = pending[next++];
          let r = await llm.runShard({ ...ctx(), shard, agent: deployed!.endpoint });
          if (scoresInSandbox) r = await activities(config).sandbox.scoreShard({ ...ctx(), split: shard.split, shard: r });
          shardResults.set(shardKey(shard), r);
          status.shards.done++;
          status.conversations.done += r.conversations;
          status.tokens += r.tokens;
          publish();
        }
      };
      const settled = await Promise.allSettled(Array.from({ length: Math.min(MAX_PARALLEL_SHARDS, pending.length) }, lane));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
    },
    evaluate: async () => {
      evaluation = await activities(config).cpu.evaluateIteration({ ...ctx(), checkpoint, shards: resultsOf('eval') });
      status.metrics = evaluation.metrics;
    },
    'build-data': async () => {
      if (!wantsTrainData) return;
      data = scoresInSandbox
        ? await activities(config).llm.buildTrainingData({ ...ctx(), checkpoint, shards: resultsOf('train'), agent: deployed!.endpoint })
        : await activities(config).cpu.buildTrainingData({ ...ctx(), checkpoint, shards: resultsOf('train') });
    },
    undeploy: async () => {
      if (deployed && !undeployed) await activities(config).deploy.undeployCheckpoint(ctx());
      undeployed = true;
    },
    train: async () => {
      if (evalOnly || !config.trainer || !data) return;
      trained = await activities(config).train.trainCheckpoint({ ...ctx(), checkpoint, data });
    },
  };

  const runStage = async (stage: Stage): Promise<void> => {
    for (;;) {
      if (status.paused) {
        publish();
        await condition(() => !status.paused);
      }
      status.stage = stage;
      upsertSearchAttributes([{ key: StageKey, value: stage }, { key: NeedsAttentionKey, value: false }]);
      publish();
      try {
        await stageBodies[stage]();
        return;
      } catch (err) {
        if (isCancellation(err)) throw err;
        const { message, type } = describeFailure(err);
        log.warn('stage needs attention', { stage, message, type });
        status.attention = { stage, error: message, failureType: type, since: new Date().toISOString() };
        upsertSearchAttributes([{ key: NeedsAttentionKey, value: true }]);
        publish();
        retry = undefined;
        await condition(() => retry !== undefined);
        const req = retry!;
        status.attention = undefined;
        if (req.config) config = req.config;
        if (req.stage && req.stage !== stage) throw new RestartFrom(req.stage);
      }
    }
  };

  try {
    let from = 0;
    for (;;) {
      try {
        for (const stage of STAGES.slice(from)) await runStage(stage);
        break;
      } catch (err) {
        if (!(err instanceof RestartFrom)) throw err;
        from = STAGES.indexOf(err.stage);
        if (from <= STAGES.indexOf('generate')) { shards = undefined; shardResults.clear(); status.conversations.done = 0; status.tokens = 0; }
        if (from === 0) deployed = undefined;
      }
    }
  } finally {
    // Never leave a model server behind, whether the iteration succeeded, failed or was stopped.
    if (deployed && !undeployed) {
      await CancellationScope.nonCancellable(async () => {
        try {
          await activities(config).deploy.undeployCheckpoint(ctx());
        } catch (err) {
          log.error('undeploy during cleanup failed', { error: String(err) });
        }
      });
    }
  }

  status.stage = 'done';
  upsertSearchAttributes([{ key: StageKey, value: 'done' }]);
  publish();
  return {
    iteration,
    checkpoint,
    metrics: evaluation?.metrics ?? {},
    tokens: status.tokens,
    datasets: data ? { sft: data.sft, dpo: data.dpo } : undefined,
    nextCheckpoint: trained?.checkpoint,
    ...(deployed?.served?.probe ? { probe: deployed.served.probe } : {}),
    ...(trained ? { train: { finalLoss: trained.finalLoss, steps: trained.steps, resumedFromStep: trained.resumedFromStep } } : {}),
    manifests: {
      ...(deployed ? { deploy: deployed.manifest } : {}),
      ...(evaluation ? { evaluate: evaluation.manifest } : {}),
      ...(data ? { 'build-data': data.manifest } : {}),
      ...(trained ? { train: trained.manifest } : {}),
    },
  };
}
