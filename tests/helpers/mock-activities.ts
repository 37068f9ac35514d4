// Every activity the workflows schedule (contracts/activities.ts), as plain functions returning small well-formed
// results, for the `tests/workflows/` tier: the iteration's and the loop's control flow on a real Temporal server
// with no model, trainer or file behind it (as Temporal's samples-typescript `workflows-mocks`). Each call is
// recorded (name, input, workflow, task queue, attempt), so a test asserts which activities ran, in which order,
// with which inputs; a test overrides any activity (fail twice then succeed, fail for good, hold until released).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import type { ActivitySignatures, ConfigRef } from '../../contracts/activities';
import type { LoopConfig } from '../../contracts/config';
import { SERVED_ENDPOINT_GONE } from '../../contracts/errors';
import type { ArtifactRef, EndpointRef, ShardSpec, Stage } from '../../contracts/run';
import { STAGES, shardKey } from '../../contracts/run';

export type ActivityName = keyof ActivitySignatures;
type InputOf<N extends ActivityName> = Parameters<ActivitySignatures[N]>[0];
type ResultOf<N extends ActivityName> = Awaited<ReturnType<ActivitySignatures[N]>>;

export interface ActivityCall<N extends ActivityName = ActivityName> {
  name: N;
  /** With its config, whether the workflow sent it inline or by reference (`configRef`). */
  input: InputOf<N>;
  configRef?: ConfigRef;
  workflowId: string;
  taskQueue: string;
  attempt: number;
}

/** One activity's mock: its input, and `n`, the how-manieth call of this activity this is (1 = the first, retries
 *  included) in the mock set. */
export type MockFn<N extends ActivityName> = (input: InputOf<N>, call: CallCount) => Promise<ResultOf<N>>;
interface CallCount {
  n: number;
  attempt: number;
}
export type MockOverrides = { [N in ActivityName]?: MockFn<N> };

/** Tokens (and conversations) every mocked shard reports, for budget arithmetic in the tests. */
export const SHARD_TOKENS = 100;
export const SHARD_CONVERSATIONS = 4;
/** The shards of the default plan (training shards only when the loop trains). */
export const DEFAULT_PLAN = { eval: 2, train: 1 };
/** The shards of the default plan in a loop that trains. */
export const DEFAULT_SHARDS = DEFAULT_PLAN.eval + DEFAULT_PLAN.train;
/** The conversations the default plan's evaluation counts. */
export const EVAL_CONVERSATIONS = DEFAULT_PLAN.eval * SHARD_CONVERSATIONS;

/** A reference to nothing: no mocked activity reads what another one "wrote". */
export const mockRef = (name: string): ArtifactRef => ({
  uri: `mock://${name}`,
  sha256: createHash('sha256').update(name).digest('hex'),
  rows: 1,
  bytes: 1,
});

/** The checkpoint the mocked trainer makes from iteration `iteration`'s data: the one iteration `iteration + 1` serves. */
export const trainedCheckpoint = (runName: string, iteration: number, role?: string) =>
  `mock://checkpoints/${runName}/iter-${iteration + 1}${role ? `/${role}` : ''}`;

/** The shards a plan has: `eval` evaluation shards, and `train` training shards when the loop trains. */
export const mockPlan = (o: { eval: number; train: number }, trains: boolean): ShardSpec[] => [
  ...Array.from({ length: o.eval }, (_, index) => ({ split: 'eval' as const, index, start: index, end: index + 1 })),
  ...(trains ? Array.from({ length: o.train }, (_, index) => ({ split: 'train' as const, index, start: index, end: index + 1 })) : []),
];

/** The endpoint of the n-th deploy: each deploy serves at its own address, so a test sees which one a shard used. */
export const deployedEndpoint = (n: number, model: string): EndpointRef => ({
  baseUrl: `http://127.0.0.1:${9000 + n}/v1`,
  model,
  cacheId: model,
  maxConcurrency: 4,
  served: true,
});

const plan = (input: InputOf<'planIteration'>) => mockPlan(DEFAULT_PLAN, !input.evalOnly && !!input.config.recipe.trainTasks);

/** The configs keepConfig was given, by their reference's hash: the mocks read a config sent by reference here. */
const keptConfigs = new Map<string, LoopConfig>();

/** An input as the activity wrapper hands it on (activities/index.ts): a config sent by reference, loaded. */
function withConfig(input: unknown): { input: unknown; configRef?: ConfigRef } {
  if (!input || typeof input !== 'object' || !('configRef' in input)) return { input };
  const { configRef, ...rest } = input as { configRef: ConfigRef };
  const config = keptConfigs.get(configRef.ref.sha256);
  if (!config) throw new Error(`no config was kept as ${configRef.ref.uri}`);
  return { input: { ...rest, config }, configRef };
}

/** The default of every activity: one served role `agent` (trained when the config has a trainer), the shards of
 *  DEFAULT_PLAN, each SHARD_TOKENS tokens. Typed over every activity name, so a new activity in
 *  the contract fails the type check until it has a mock here. */
export const DEFAULT_MOCKS: { [N in ActivityName]: MockFn<N> } = {
  async deployCheckpoint(input, { n }) {
    const checkpoint = input.checkpoints?.agent ?? input.checkpoint;
    const endpoint = deployedEndpoint(n, checkpoint);
    return {
      endpoint,
      served: { endpoint },
      serverId: `mock-server-${n}`,
      manifest: mockRef(`deploy/${input.runName}/iter-${input.iteration}/${n}`),
      roles: { agent: { kind: input.config.trainer ? 'trained' : 'frozen', endpoint, checkpoint } },
      primaryRole: 'agent',
    };
  },
  async undeployCheckpoint() {
    return true;
  },
  async keepConfig({ config }) {
    const ref = mockRef(`config/${createHash('sha256').update(JSON.stringify(config)).digest('hex')}`);
    keptConfigs.set(ref.sha256, config);
    return { ref, stateDir: config.stateDir };
  },
  async planShards(input) {
    return plan(input);
  },
  async planIteration(input) {
    return { shards: plan(input), needs: { sandboxScoring: false, modelsForData: false, rendering: false } };
  },
  async runShard(input) {
    const key = shardKey(input.shard);
    return {
      records: mockRef(`records/${input.runName}/iter-${input.iteration}/${key}`),
      conversations: SHARD_CONVERSATIONS,
      calls: SHARD_CONVERSATIONS,
      cachedCalls: 0,
      tokens: SHARD_TOKENS,
      spend: { agent: { tokens: SHARD_TOKENS, usd: 0 } },
      work: { done: SHARD_CONVERSATIONS },
    };
  },
  async scoreShard(input) {
    return input.shard;
  },
  async evaluateIteration(input) {
    return {
      metrics: { conversations: input.shards.reduce((a, s) => a + s.conversations, 0), score: 0.5 },
      manifest: mockRef(`evaluate/${input.runName}/iter-${input.iteration}`),
    };
  },
  async buildTrainingData(input) {
    const rows = (kind: string) => mockRef(`data/${input.runName}/iter-${input.iteration}/${kind}`);
    const datasets = { sft: rows('sft'), dpo: rows('dpo'), rl: rows('rl') };
    return { ...datasets, roles: { agent: datasets }, manifest: rows('manifest') };
  },
  async buildScorerData() {
    return { roles: {}, counts: {} };
  },
  async serveScorers() {
    return {};
  },
  async trackIteration() {
    return [];
  },
  async trainCheckpoint(input) {
    return {
      checkpoint: trainedCheckpoint(input.runName, input.iteration, input.role),
      manifest: mockRef(`train/${input.runName}/iter-${input.iteration}/${input.role ?? 'model'}`),
      finalLoss: 0.5,
      steps: 10,
    };
  },
};

/** A mock that does `step` first (which may throw, or wait) and then answers as the default. */
export function defaultAfter<N extends ActivityName>(name: N, step: (input: InputOf<N>, call: CallCount) => unknown): MockFn<N> {
  const fallback = DEFAULT_MOCKS[name] as unknown as MockFn<N>;
  return (input, call) => Promise.resolve(step(input, call)).then(() => fallback(input, call));
}

/** The mocks with `overrides`, and the log of every call they answered. */
export function mockActivities(overrides: MockOverrides = {}) {
  const calls: ActivityCall[] = [];
  const counts = new Map<ActivityName, number>();
  const mocks: MockOverrides = { ...DEFAULT_MOCKS, ...overrides };
  const activities = Object.fromEntries(
    (Object.keys(DEFAULT_MOCKS) as ActivityName[]).map((name) => [
      name,
      async (sent: never) => {
        const { workflowExecution, taskQueue, attempt } = Context.current().info;
        const n = (counts.get(name) ?? 0) + 1;
        counts.set(name, n);
        const { input, configRef } = withConfig(sent) as { input: never; configRef?: ConfigRef };
        calls.push({
          name,
          input,
          ...(configRef ? { configRef } : {}),
          workflowId: workflowExecution?.workflowId ?? '',
          taskQueue,
          attempt,
        });
        return (mocks[name] as MockFn<ActivityName>)(input, { n, attempt });
      },
    ]),
  ) as unknown as ActivitySignatures;
  return {
    activities,
    calls,
    /** The calls of one activity, in the order they started. */
    callsOf: <N extends ActivityName>(name: N) => calls.filter((c): c is ActivityCall<N> => c.name === name),
  };
}

/** The activities one workflow ran, in order, a run of the same activity as one entry `name×count` (shards run side
 *  by side, so only their number is fixed). keepConfig, bookkeeping before a stage, is left out. */
export function activityOrder(calls: readonly ActivityCall[], workflowId: string): string[] {
  const runs: Array<{ name: string; count: number }> = [];
  for (const c of calls.filter((x) => x.workflowId === workflowId && x.name !== 'keepConfig')) {
    const last = runs.at(-1);
    if (last?.name === c.name) last.count++;
    else runs.push({ name: c.name, count: 1 });
  }
  return runs.map((r) => (r.count > 1 ? `${r.name}×${r.count}` : r.name));
}

/** What each stage runs with the default mocks (a training loop), as activityOrder writes it. */
const STAGE_CALLS: Record<Stage, string[]> = {
  deploy: ['deployCheckpoint'],
  generate: ['planIteration', `runShard×${DEFAULT_SHARDS}`],
  evaluate: ['evaluateIteration'],
  'build-data': ['buildTrainingData'],
  undeploy: ['undeployCheckpoint'],
  train: ['trainCheckpoint'],
};
export const callsOfStages = (...stages: Stage[]): string[] => stages.flatMap((st) => STAGE_CALLS[st]);
/** A whole iteration with the default mocks. */
export const ITERATION_CALLS = callsOfStages(...STAGES);

/** A failure no retry fixes, as activities raise them for a user's input (activities/index.ts). */
export const nonRetryable = (message: string, type = 'TrainerConfigError') => ApplicationFailure.nonRetryable(message, type);

/** The failure of a call to a model server the loop deployed that is gone (activities/llm/served-gone.ts). */
export const servedEndpointGone = (endpoint: EndpointRef) =>
  ApplicationFailure.create({
    type: SERVED_ENDPOINT_GONE,
    nonRetryable: true,
    message: `${endpoint.baseUrl} (model ${endpoint.model}): the model server the loop deployed is gone (connection refused for 5 s)`,
  });

/** An activity that waits until the test releases it, heartbeating meanwhile (so no heartbeat timeout retries it). */
export function holdUntilReleased() {
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  let arrived = 0;
  return {
    /** Calls that have reached the hold so far. */
    arrived: () => arrived,
    release,
    async wait(): Promise<void> {
      arrived++;
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 500);
      try {
        await released;
      } finally {
        clearInterval(beat);
      }
    },
  };
}
