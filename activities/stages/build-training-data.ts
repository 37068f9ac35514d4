// Builds the SFT and preference datasets from the training split's records, in the trainer's format: one pair of
// datasets per trained model role (debate's generators and critics each learn from their own outputs).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { BuiltData, LlmUsage, RoleDatasets, ShardResult } from '../../contracts/run';
import { DATASET_OF } from '../../contracts/train-methods';
import type { TrainMethod } from '../training/adapters/types';
import type { BuildDataInput, StageContext } from '../../contracts/activities';
import { recipeRuntime } from '../recipes/runtime';
import { requestCacheFor } from '../llm/cache';
import { createChat, newUsageCounter, type UsageCounter } from '../llm/client';
import type { EndpointRef } from '../../contracts/endpoint';
import { countedRoleChats, modelRoles, primaryRole, roleEndpoints, rolesOfKind, totalUsage } from '../llm/roles';
import { spendByRole } from '../llm/spend';
import type { Chat } from '../llm/types';
import { writeStageManifest } from '../manifest';
import { storeFor } from '../storage/run-storage';
import { localCheckpoint } from '../storage/checkpoints';
import { AGENT_ROLE, type TrainingData } from '../recipes/types';
import { scriptLogProbChat } from '../llm/script-logprobs';
import { servesLogProbs } from '../serving/log-prob-serving';
import type { ScorerModel } from '../../contracts/run';

/** The models a recipe's data builder calls (SWEET-RL: the served policy samples candidates, the critic ranks
 *  them). Through the durable cache like every call, so a retried stage pays for nothing twice. */
function chatsFor(input: StageContext & { agent: EndpointRef; roles?: Record<string, EndpointRef> }): {
  chats: Record<string, Chat>;
  usage: Record<string, UsageCounter>;
} {
  const opts = { cache: requestCacheFor(input.config), llm: input.config.llm, signal: Context.current().cancellationSignal };
  return countedRoleChats(roleEndpoints(input.config, input.agent, input.roles), (endpoint, usage, role) =>
    createChat({ ...opts, endpoint, usage, role }),
  );
}

const NOTHING_TO_TRAIN: Record<TrainMethod, (n: number) => string> = {
  sft: (n) => `no SFT examples: none of the ${n} sampled conversations reached a correct agreement`,
  dpo: (n) =>
    `no preference pairs: no turn of the ${n} sampled conversations had both a correct and an incorrect candidate (raise recipe.beamSize or trainSamples)`,
  grpo: (n) =>
    `no prompts for online RL: the recipe built none from the ${n} sampled conversations (is trainer.method grpo supported by it?)`,
};

/**
 * Per role, a Chat answering mean log-probs (RecipeRuntime.buildDataWithModels): over HTTP from a server that gives
 * prompt log-probs (vLLM, the simulator; scorer roles were served by serveScorers), else from the checkpoint by
 * scripts/python/mean_logprobs.py. The agent's is its served checkpoint; each scorer's, its checkpoint of this
 * iteration.
 */
async function logProbChatsFor(
  input: StageContext & { checkpoint: string; agent: EndpointRef; scorers: Record<string, ScorerModel> },
  usage: Record<string, UsageCounter>,
): Promise<Record<string, Chat>> {
  const signal = Context.current().cancellationSignal;
  const opts = { cache: requestCacheFor(input.config), llm: input.config.llm, signal };
  const agentCheckpoint = modelRoles(input.config, input.checkpoint)[AGENT_ROLE];
  const of = async (m: ScorerModel, role: string) => {
    usage[role] ??= newUsageCounter();
    return m.endpoint
      ? createChat({ ...opts, role, usage: usage[role], endpoint: { ...m.endpoint, api: 'logprob' } })
      : scriptLogProbChat(await localCheckpoint(input.config, m.checkpoint), { signal });
  };
  return {
    [AGENT_ROLE]: await of(
      {
        checkpoint: 'checkpoint' in agentCheckpoint ? agentCheckpoint.checkpoint : input.checkpoint,
        ...(servesLogProbs(input.config) ? { endpoint: input.agent } : {}),
      },
      AGENT_ROLE,
    ),
    ...Object.fromEntries(await Promise.all(Object.entries(input.scorers).map(async ([role, m]) => [role, await of(m, role)]))),
  };
}

/** The rows as a JSONL artifact; none for no rows (a dataset the trainer skips). */
const jsonlRef = async (store: ReturnType<typeof storeFor>, lines: string[]) =>
  lines.length ? store.put(`${lines.join('\n')}\n`, { ext: '.jsonl', rows: lines.length }) : undefined;

/** The rows that train the recipe's scorer roles (RecipeNeeds.scorers) before the data that needs them is built. */
export async function buildScorerData(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ roles: Record<string, RoleDatasets>; counts: Record<string, number> }> {
  const store = storeFor(input.config);
  const records = await store.readJsonlAll<unknown>(input.shards.map((s) => s.records));
  const runtime = recipeRuntime(input.config);
  if (!runtime.buildScorerData) throw ApplicationFailure.nonRetryable(`recipe ${input.config.recipe.name} trains no scorer`, 'ConfigError');
  const data = runtime.buildScorerData(records);
  const toRef = (lines: string[]) => jsonlRef(store, lines);
  const roles = Object.fromEntries(
    await Promise.all(Object.entries(data.byRole).map(async ([r, d]) => [r, { sft: await toRef(d.sft), dpo: await toRef(d.dpo) }])),
  );
  return { roles, counts: data.counts };
}

export async function buildTrainingData(input: BuildDataInput): Promise<BuiltData> {
  const store = storeFor(input.config);
  const records = await store.readJsonlAll<unknown>(input.shards.map((s) => s.records));
  const runtime = recipeRuntime(input.config);
  const agent = input.agent;
  const byRole: Record<string, UsageCounter> = {};
  let data: TrainingData;
  if (runtime.buildDataWithModels && agent) {
    const { chats, usage } = chatsFor({ ...input, agent });
    Object.assign(byRole, usage);
    const logProbs = input.scorers ? await logProbChatsFor({ ...input, agent, scorers: input.scorers }, byRole) : undefined;
    data = await runtime.buildDataWithModels(records, chats, logProbs);
  } else data = runtime.buildData(records);
  const counter = totalUsage(Object.values(byRole));
  const usage: LlmUsage = {
    calls: counter.calls,
    cachedCalls: counter.cachedCalls,
    tokens: counter.promptTokens + counter.completionTokens,
  };
  const toRef = (lines: string[]) => jsonlRef(store, lines);
  // Only roles the config trains get datasets; a frozen or external role's examples are counted, not kept.
  const resolved = modelRoles(input.config, input.checkpoint);
  const trained = rolesOfKind(resolved, 'trained');
  const roles: Record<string, RoleDatasets> = {};
  for (const role of trained) {
    const d = data.byRole[role];
    roles[role] = input.scorers?.[role]?.data ?? {
      sft: await toRef(d?.sft ?? []),
      dpo: await toRef(d?.dpo ?? []),
      ...(d?.rl ? { rl: await toRef(d.rl) } : {}),
    };
  }
  const method = input.config.trainer?.method;
  // A role without examples keeps its checkpoint this iteration; with none for any role there is nothing to train.
  if (method && trained.length && !trained.some((r) => roles[r][DATASET_OF[method]]))
    throw ApplicationFailure.nonRetryable(NOTHING_TO_TRAIN[method](records.length), 'EmptyDataset');
  const extra = Object.fromEntries(
    await Promise.all(Object.entries(data.extra ?? {}).map(async ([name, lines]) => [name, (await toRef(lines)) ?? null])),
  );
  const primary = primaryRole(resolved);
  const { sft, dpo, rl } = (primary && roles[primary]) || {};
  const perRole = trained.length > 1 ? roles : {};
  const manifest = await writeStageManifest(input.config, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'build-data',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`train_shard_${i}`, s.records])) },
    params: { data: input.config.recipe.data },
    outputs: {
      sft: sft ?? null,
      dpo: dpo ?? null,
      ...(rl ? { rl } : {}),
      ...Object.fromEntries(
        Object.entries(perRole).flatMap(([r, d]) => [
          [`${r}_sft`, d.sft ?? null],
          [`${r}_dpo`, d.dpo ?? null],
          ...(d.rl ? [[`${r}_rl`, d.rl]] : []),
        ]),
      ),
      ...extra,
      ...data.counts,
    },
    tokens: { prompt: counter.promptTokens, completion: counter.completionTokens },
  });
  return { sft, dpo, ...(rl ? { rl } : {}), roles, manifest, usage, spend: spendByRole(byRole, input.config) };
}
