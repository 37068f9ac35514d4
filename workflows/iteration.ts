// One iteration of a loop: deploy → generate → evaluate → build-data → undeploy → train.
// A stage that fails after its retries does not fail the iteration: it waits, visible as "needs attention",
// until the user retries it (optionally with a changed config) or stops the run.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityInterfaceFor,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { CollabActivities } from '../contracts/activities';
import type { RecipeNeeds } from '../contracts/activities';
import {
  iterationConfigQuery,
  iterationProgressSignal,
  iterationStatusQuery,
  NeedsAttentionKey,
  retryStageUpdate,
  pauseSignal,
  StageKey,
  type RetryRequest,
} from '../contracts/messages';
import { renderIterationDetails } from './details';
import { legacyNeeds } from './legacy-needs';
import {
  buildDataSummary,
  deploySummary,
  evaluateSummary,
  planSummary,
  scorerDataSummary,
  serveScorersSummary,
  shardSummary,
  trainSummary,
  undeploySummary,
} from './stage-summaries';
import {
  STAGES,
  TASK_QUEUES,
  type RoleDatasets,
  type ArtifactRef,
  type BuiltData,
  type DeployResult,
  type IterationInput,
  type IterationStatus,
  type IterationSummary,
  type LlmUsage,
  type LoopConfig,
  type RoleLineage,
  type ScorerModel,
  type ShardResult,
  type Spend,
  type SpendReport,
  type ShardSpec,
  type Stage,
  type StageStats,
  type TrainResult,
} from '../contracts/run';
import { DATASET_OF } from '../contracts/train-methods';

const NON_RETRYABLE = ['LlmAuthentication', 'LlmNotFound', 'LlmBadRequest', 'TaskFileError', 'ConfigError', 'TrainerConfigError'];
/** Shard activities scheduled at once by one iteration (each runs many conversations concurrently). */
const MAX_PARALLEL_SHARDS = 16;

/** Every activity heartbeats every few seconds while it runs (activities/heartbeat.ts), so a result lost to a
 *  server outage, or a dead worker, costs this long rather than the activity's whole startToClose timeout.
 *  Changing activity options changes no command a replay compares. */
export const HEARTBEAT_TIMEOUT = '60s';

function activities(config: LoopConfig) {
  const base = (queue: keyof typeof TASK_QUEUES, o: Partial<ActivityOptions>): ActivityOptions => ({
    taskQueue: TASK_QUEUES[queue],
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { maximumAttempts: 3, initialInterval: '1s', nonRetryableErrorTypes: NON_RETRYABLE },
    ...o,
  });
  // Ready timeout, plus the probe and the simulated agents' server when configured.
  const deployTimeoutS = config.server.kind === 'external' ? 60 : config.server.readyTimeoutSeconds + 360;
  return {
    cpu: proxyActivities<CollabActivities>(base('cpu', {})),
    sandbox: proxyActivities<CollabActivities>(base('sandbox', { startToCloseTimeout: '6 hours' })),
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
      base('gpu', {
        startToCloseTimeout: `${deployTimeoutS}s`,
        heartbeatTimeout: '30s',
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      }),
    ),
    train: proxyActivities<CollabActivities>(
      base('gpu', {
        startToCloseTimeout: `${config.trainer?.timeoutHours ?? 48} hours`,
        heartbeatTimeout: config.trainer ? `${config.trainer.heartbeatTimeoutSeconds}s` : HEARTBEAT_TIMEOUT,
        retry: { maximumAttempts: config.trainer?.maximumAttempts ?? 3, initialInterval: '2s', nonRetryableErrorTypes: NON_RETRYABLE },
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      }),
    ),
  };
}

/** Runs an activity with a one-line summary for the UI (only in histories that carry the patch: older ones
 *  scheduled it without, and replaying them must schedule exactly what they did). */
function withSummary(summaries: boolean) {
  return <K extends keyof CollabActivities>(
    proxy: ActivityInterfaceFor<CollabActivities>,
    name: K,
    summary: string,
    arg: Parameters<CollabActivities[K]>[0],
  ): ReturnType<CollabActivities[K]> => {
    const fn = proxy[name] as unknown as { (a: unknown): unknown; executeWithOptions(o: ActivityOptions, args: unknown[]): unknown };
    return (summaries ? fn.executeWithOptions({ summary } as ActivityOptions, [arg]) : fn(arg)) as ReturnType<CollabActivities[K]>;
  };
}

/** Spends added (either may be absent). */
const addSpend = (a: Spend | undefined, b: Spend | undefined): Spend => ({
  tokens: (a?.tokens ?? 0) + (b?.tokens ?? 0),
  usd: (a?.usd ?? 0) + (b?.usd ?? 0),
});

const sumUsage = (rs: Array<Partial<LlmUsage>>): LlmUsage => ({
  calls: rs.reduce((a, r) => a + (r.calls ?? 0), 0),
  cachedCalls: rs.reduce((a, r) => a + (r.cachedCalls ?? 0), 0),
  tokens: rs.reduce((a, r) => a + (r.tokens ?? 0), 0),
});

class RestartFrom {
  constructor(readonly stage: Stage) {}
}

/** The failure's message and type, and the model roles it names (the train stage's failures carry them). */
function describeFailure(err: unknown): { message: string; type?: string; roles?: string[] } {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    const roles = cause.details?.[0];
    return { message: cause.message, type: cause.type ?? undefined, ...(Array.isArray(roles) ? { roles: roles as string[] } : {}) };
  }
  return { message: cause instanceof Error ? cause.message : String(cause) };
}

/** The trained roles whose datasets hold rows for the trainer's method (the others keep their checkpoint). */
const trainableRoles = (roles: NonNullable<BuiltData['roles']>, config: LoopConfig) =>
  Object.keys(roles).filter((r) => datasetFor(roles[r], config));

/** A role's dataset for the trainer's method. */
const datasetFor = (rows: RoleDatasets | undefined, config: LoopConfig) =>
  config.trainer ? rows?.[DATASET_OF[config.trainer.method]] : rows?.sft;

/** Every role's link of its chain this iteration (IterationSummary.models). */
function roleLineage(
  deployed: DeployResult,
  data: BuiltData | undefined,
  trained: Map<string, TrainResult>,
  config: LoopConfig,
): Record<string, RoleLineage> {
  const trainable = data?.roles ? trainableRoles(data.roles, config) : [];
  return Object.fromEntries(
    Object.entries(deployed.roles ?? {}).map(([role, d]) => {
      const t = trained.get(role);
      const rows = data?.roles?.[role];
      const dataset = datasetFor(rows, config);
      const lineage: RoleLineage = {
        kind: d.kind,
        ...(d.checkpoint ? { checkpoint: d.checkpoint } : { model: d.endpoint.model }),
        ...(dataset ? { dataset } : {}),
        ...(t
          ? {
              nextCheckpoint: t.checkpoint,
              train: { finalLoss: t.finalLoss, steps: t.steps, resumedFromStep: t.resumedFromStep, lossCurve: t.lossCurve },
            }
          : {}),
        ...(rows && !trainable.includes(role) ? { skipped: 'no examples' } : {}),
      };
      return [role, lineage];
    }),
  );
}

export async function iterationWorkflow(input: IterationInput): Promise<IterationSummary> {
  let config = input.config;
  const { runName, iteration, checkpoint, evalOnly } = input;
  // Model roles (several served checkpoints, one trained model per trained role) came with this patch; iterations
  // recorded before it served and trained one model.
  const modelRoles = patched('model-roles-v1');
  const status: IterationStatus = {
    iteration,
    stage: 'deploy',
    paused: false,
    shards: { done: 0, total: 0 },
    conversations: { done: 0, total: 0 },
    tokens: 0,
    stages: {},
  };
  // Activity summaries and stage reports to the loop (visible in the Temporal UI) came with this patch.
  const visible = patched('ui-visibility-v1');
  const run = withSummary(visible);
  const parentId = workflowInfo().parent?.workflowId;
  /** Stage changes, attention and metrics go to the loop's details; shard-by-shard progress stays here. */
  const tellLoop = () => {
    if (!visible || !parentId) return;
    const { stage, attention, tokens, metrics } = status;
    getExternalWorkflowHandle(parentId)
      .signal(iterationProgressSignal, { iteration, stage, attention, conversations: status.conversations.done, tokens, metrics })
      .catch(() => undefined); // the loop may be gone (stopped); its details are then moot
  };
  let retry: RetryRequest | undefined;

  setHandler(iterationStatusQuery, () => status);
  setHandler(iterationConfigQuery, () => config);
  setHandler(pauseSignal, (p) => {
    status.paused = p;
    publish();
  });
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
  let data: BuiltData | undefined;
  let trained: TrainResult | undefined;
  /** Per trained role, kept across retries of the train stage: a retry trains only the roles that failed. */
  const trainedRoles = new Map<string, TrainResult>();
  const servedEndpoints = () =>
    deployed?.roles ? { roles: Object.fromEntries(Object.entries(deployed.roles).map(([r, d]) => [r, d.endpoint])) } : {};

  const shardKey = (s: ShardSpec) => `${s.split}-${s.index}`;
  const resultsOf = (split: ShardSpec['split']) =>
    (shards ?? [])
      .filter((s) => s.split === split)
      .map((s) => shardResults.get(shardKey(s))!)
      .filter(Boolean);
  const ctx = () => ({ runName, iteration, config });
  const wantsTrainData = !evalOnly && !!config.recipe.trainTasks;
  // What the recipe needs besides generation (sandbox scoring, models while building data) comes from the planning
  // activity and stays in this workflow's state. Iterations started before recipes declared it decided by name.
  const declaresNeeds = patched('recipe-needs-v1');
  let needs: RecipeNeeds | undefined = declaresNeeds ? undefined : legacyNeeds(config.recipe.name);
  // The run's `budget` (spend per stage and role, a stop at the next shard boundary) came with this patch.
  const budgets = patched('budget-v1');
  /** This iteration's spend so far, from the finished shards and the data build (never double-counted on retries). */
  const spendReport = (): SpendReport => {
    const byStage: SpendReport['byStage'] = {};
    const byRole: Record<string, Spend> = {};
    const add = (stage: Stage, perRole: Record<string, Spend> | undefined) => {
      for (const [role, s] of Object.entries(perRole ?? {})) {
        byRole[role] = addSpend(byRole[role], s);
        byStage[stage] = addSpend(byStage[stage], s);
      }
    };
    for (const r of shardResults.values()) add('generate', r.spend);
    add('build-data', data?.spend);
    return { total: Object.values(byStage).reduce<Spend>((a, s) => addSpend(a, s), { tokens: 0, usd: 0 }), byStage, byRole };
  };
  /** Before issuing new calls: fails the stage as "budget reached" once the run has spent its budget. */
  const checkBudget = () => {
    const b = config.budget;
    if (!budgets || !b) return;
    const spent = addSpend(input.spentBefore, spendReport().total);
    const over =
      b.tokens !== undefined && spent.tokens >= b.tokens
        ? `${spent.tokens} tokens of budget.tokens ${b.tokens}`
        : b.usd !== undefined && spent.usd >= b.usd
          ? `$${spent.usd.toFixed(4)} of budget.usd ${b.usd}`
          : undefined;
    if (over)
      throw ApplicationFailure.create({
        type: 'BudgetReached',
        nonRetryable: true,
        message: `budget reached: the run has spent ${over} (${spent.tokens} tokens, $${spent.usd.toFixed(4)}); raise it with \`collab-loop retry ${runName} --set budget.tokens=N\` (or budget.usd) — nothing done is lost`,
      });
  };

  const stageBodies: Record<Stage, () => Promise<void>> = {
    deploy: async () => {
      deployed = await run(activities(config).deploy, 'deployCheckpoint', deploySummary(config, checkpoint, input.checkpoints), {
        ...ctx(),
        checkpoint,
        ...(modelRoles ? { checkpoints: input.checkpoints ?? {} } : {}),
      });
      undeployed = false;
      const probe = deployed.served?.probe;
      if (probe) Object.assign(status.stages!.deploy!, { calls: probe.prompts, cachedCalls: 0, tokens: probe.completionTokens });
    },
    generate: async () => {
      if (!shards && declaresNeeds)
        ({ shards, needs } = await run(activities(config).cpu, 'planIteration', planSummary(config), {
          config,
          evalOnly: !wantsTrainData,
        }));
      shards ??= await run(activities(config).cpu, 'planShards', planSummary(config), { config, evalOnly: !wantsTrainData });
      const pending = shards.filter((s) => !shardResults.has(shardKey(s)));
      status.shards = { done: shards.length - pending.length, total: shards.length };
      const perSplit = (s: ShardSpec) => shards!.filter((x) => x.split === s.split).length;
      const llm = activities(config).llm;
      let next = 0;
      const lane = async () => {
        while (next < pending.length) {
          checkBudget(); // at a shard boundary: shards in flight finish, no new one starts
          const shard = pending[next++];
          let r = await run(llm, 'runShard', shardSummary('shard', shard, perSplit(shard)), {
            ...ctx(),
            shard,
            agent: deployed!.endpoint,
            ...servedEndpoints(),
          });
          if (needs!.sandboxScoring)
            r = await run(activities(config).sandbox, 'scoreShard', shardSummary('score shard', shard, perSplit(shard)), {
              ...ctx(),
              split: shard.split,
              shard: r,
            });
          shardResults.set(shardKey(shard), r);
          status.shards.done++;
          status.conversations.done += r.conversations;
          status.tokens += r.tokens;
          Object.assign(status.stages!.generate!, sumUsage([...shardResults.values()]));
          if (budgets) status.spend = spendReport();
          publish();
        }
      };
      const settled = await Promise.allSettled(Array.from({ length: Math.min(MAX_PARALLEL_SHARDS, pending.length) }, lane));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
    },
    evaluate: async () => {
      const evalShards = resultsOf('eval');
      evaluation = await run(
        activities(config).cpu,
        'evaluateIteration',
        evaluateSummary(evalShards.reduce((a, s) => a + s.conversations, 0)),
        {
          ...ctx(),
          checkpoint,
          shards: evalShards,
        },
      );
      status.metrics = evaluation.metrics;
    },
    'build-data': async () => {
      if (!wantsTrainData) return;
      trainedRoles.clear(); // new data: every role trains again (a finished trainer on the same data returns at once)
      const trainShards = resultsOf('train');
      const summary = buildDataSummary(
        config,
        trainShards.reduce((a, s) => a + s.conversations, 0),
      );
      // Scorer roles (SWEET-RL's learned critic) are trained on this iteration's records first, then served, and the
      // data builder ranks with them. A retry redoes these steps cheaply: same rows, a finished trainer returns at
      // once, a healthy server is reused.
      if (needs!.modelsForData) checkBudget();
      const scorerRoles = needs!.scorers?.length && config.trainer && deployed?.roles ? needs!.scorers : [];
      let scorers: Record<string, ScorerModel> | undefined;
      if (scorerRoles.length && patched('trained-scorers-v1')) {
        const conversations = trainShards.reduce((a, s) => a + s.conversations, 0);
        const rows = await run(activities(config).cpu, 'buildScorerData', scorerDataSummary(scorerRoles, conversations), {
          ...ctx(),
          checkpoint,
          shards: trainShards,
        });
        await Promise.all(
          scorerRoles
            .filter((role) => datasetFor(rows.roles[role], config))
            .map(async (role) => {
              const result = await run(activities(config).train, 'trainCheckpoint', trainSummary(config, role), {
                ...ctx(),
                checkpoint: deployed!.roles![role].checkpoint!,
                data: rows.roles[role],
                role,
              });
              trainedRoles.set(role, result);
            }),
        );
        const checkpoints = Object.fromEntries(
          scorerRoles.map((r) => [r, trainedRoles.get(r)?.checkpoint ?? deployed!.roles![r].checkpoint!]),
        );
        scorers = await run(activities(config).deploy, 'serveScorers', serveScorersSummary(scorerRoles), { ...ctx(), checkpoints });
        for (const r of scorerRoles) scorers[r].data = rows.roles[r];
      }
      data = needs!.modelsForData
        ? await run(activities(config).llm, 'buildTrainingData', summary, {
            ...ctx(),
            checkpoint,
            shards: trainShards,
            agent: deployed!.endpoint,
            ...servedEndpoints(),
            ...(scorers ? { scorers } : {}),
          })
        : await run(activities(config).cpu, 'buildTrainingData', summary, { ...ctx(), checkpoint, shards: trainShards });
      if (data.usage) Object.assign(status.stages!['build-data']!, data.usage);
      if (budgets) status.spend = spendReport();
    },
    undeploy: async () => {
      if (deployed && !undeployed) await run(activities(config).deploy, 'undeployCheckpoint', undeploySummary(config), ctx());
      undeployed = true;
    },
    train: async () => {
      if (evalOnly || !config.trainer || !data) return;
      if (!(modelRoles && data.roles && deployed?.roles)) {
        trained = await run(activities(config).train, 'trainCheckpoint', trainSummary(config), { ...ctx(), checkpoint, data });
        return;
      }
      // One trainer per trained role that has examples, in parallel as far as the gpu queue's slots allow; each
      // resumes from its own last checkpoint after a crash, and a retry trains only the roles that failed.
      const roles = data.roles;
      const several = Object.keys(roles).length > 1;
      const pending = trainableRoles(roles, config).filter((r) => !trainedRoles.has(r));
      const proxy = activities(config).train;
      const settled = await Promise.allSettled(
        pending.map(async (role) => {
          const result = await run(proxy, 'trainCheckpoint', trainSummary(config, several ? role : undefined), {
            ...ctx(),
            checkpoint: deployed!.roles![role].checkpoint!,
            data: roles[role],
            ...(several ? { role } : {}),
          });
          trainedRoles.set(role, result);
        }),
      );
      const failed = pending.filter((_, i) => settled[i].status === 'rejected');
      const reasons = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
      const cancelled = reasons.find(isCancellation);
      if (cancelled) throw cancelled;
      if (failed.length) {
        const first = describeFailure(reasons[0]);
        throw ApplicationFailure.create({
          message: several ? `training ${failed.join(', ')} failed; ${failed[0]}: ${first.message}` : first.message,
          type: first.type,
          details: [failed],
        });
      }
      trained = deployed.primaryRole ? trainedRoles.get(deployed.primaryRole) : undefined;
    },
  };

  const runStage = async (stage: Stage): Promise<void> => {
    for (;;) {
      if (status.paused) {
        publish();
        await condition(() => !status.paused);
      }
      status.stage = stage;
      upsertSearchAttributes([
        { key: StageKey, value: stage },
        { key: NeedsAttentionKey, value: false },
      ]);
      // Workflow time is deterministic (the task's start); the sum of a stage's attempts, not its waits for a user.
      const started = Date.now();
      const stats: StageStats = (status.stages![stage] ??= { startedAt: new Date(started).toISOString(), ms: 0 });
      publish();
      tellLoop();
      try {
        await stageBodies[stage]();
        stats.ms += Date.now() - started;
        return;
      } catch (err) {
        stats.ms += Date.now() - started;
        if (isCancellation(err)) throw err;
        const { message, type, roles } = describeFailure(err);
        log.warn('stage needs attention', { stage, message, type });
        status.attention = { stage, error: message, failureType: type, since: new Date().toISOString(), ...(roles ? { roles } : {}) };
        upsertSearchAttributes([{ key: NeedsAttentionKey, value: true }]);
        publish();
        tellLoop();
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
        if (from <= STAGES.indexOf('generate')) {
          shards = undefined;
          shardResults.clear();
          status.conversations.done = 0;
          status.tokens = 0;
        }
        if (from === 0) deployed = undefined;
      }
    }
  } finally {
    // Never leave a model server behind, whether the iteration succeeded, failed or was stopped.
    if (deployed && !undeployed) {
      await CancellationScope.nonCancellable(async () => {
        try {
          await run(activities(config).deploy, 'undeployCheckpoint', undeploySummary(config), ctx());
        } catch (err) {
          log.error('undeploy during cleanup failed', { error: String(err) });
        }
      });
    }
  }

  status.stage = 'done';
  upsertSearchAttributes([{ key: StageKey, value: 'done' }]);
  publish();
  tellLoop();
  return {
    iteration,
    checkpoint,
    metrics: evaluation?.metrics ?? {},
    tokens: status.tokens,
    datasets: data ? { sft: data.sft, dpo: data.dpo } : undefined,
    nextCheckpoint: trained?.checkpoint,
    ...(deployed?.served?.probe ? { probe: deployed.served.probe } : {}),
    ...(trained
      ? {
          train: {
            finalLoss: trained.finalLoss,
            steps: trained.steps,
            resumedFromStep: trained.resumedFromStep,
            lossCurve: trained.lossCurve,
          },
        }
      : {}),
    stages: status.stages,
    ...(budgets ? { spend: spendReport(), ...(config.budget ? { budget: config.budget } : {}) } : {}),
    ...(deployed?.roles ? { models: roleLineage(deployed, data, trainedRoles, config) } : {}),
    manifests: {
      ...(deployed ? { deploy: deployed.manifest } : {}),
      ...(evaluation ? { evaluate: evaluation.manifest } : {}),
      ...(data ? { 'build-data': data.manifest } : {}),
      ...(trained ? { train: trained.manifest } : {}),
      ...Object.fromEntries([...trainedRoles].filter(([r]) => r !== deployed?.primaryRole).map(([r, t]) => [`train-${r}`, t.manifest])),
    },
  };
}
