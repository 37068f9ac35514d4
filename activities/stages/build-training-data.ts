// Builds the SFT and preference datasets from the training split's records, in the trainer's format: one pair of
// datasets per trained model role (debate's generators and critics each learn from their own outputs).
import { ApplicationFailure } from '@temporalio/activity';
import type { BuiltData, LlmUsage, RoleDatasets } from '../../contracts/run';
import { DATASET_OF } from '../../contracts/train-methods';
import type { TrainMethod } from '../training/adapters/types';
import type { BuildDataInput } from '../../contracts/activities';
import { recipeOf, recipeRuntime } from '../recipes/runtime';
import type { UsageCounter } from '../llm/usage';
import { modelRoles, primaryRole, rolesOfKind, totalUsage } from '../llm/roles';
import { spendByRole } from '../llm/spend';
import { type BudgetSpender, budgetSpender } from '../llm/budget-ledger';
import { writeStageManifest } from '../manifest';
import { storeFor } from '../artifacts/store';
import type { RecipeRuntime, RoleTrainingData, TrainingData } from '../recipes/types';
import type { ArtifactRef } from '../../contracts/artifact-ref';
import type { ArtifactStore } from '../artifacts/store';
import { buildToFiles } from '../data/dataset-files';
import { localStateDir } from '../storage/run-storage';
import { builderChats, logProbChats } from '../data/builder-models';
import { datasetRef } from '../data/dataset-ref';
import { totalTokens } from '../llm/usage';

const NOTHING_TO_TRAIN: Record<keyof RoleDatasets, (n: number, method: TrainMethod) => string> = {
  sft: (n) => `no SFT examples: none of the ${n} sampled conversations reached a correct agreement`,
  dpo: (n) =>
    `no preference pairs: no turn of the ${n} sampled conversations had both a correct and an incorrect candidate (raise recipe.beamSize or trainSamples)`,
  rl: (n, method) =>
    `no prompts for online RL: the recipe built none from the ${n} sampled conversations (is trainer.method ${method} supported by it?)`,
};

/** The datasets a build made, by name (`<role>/<dataset>`, `extra/<name>`), and how many records it read. */
interface Built {
  datasets: (name: string) => Promise<ArtifactRef | undefined>;
  extra: string[];
  counts: Record<string, number>;
  records: number;
}

/** A recipe with a streaming builder: records read shard by shard, rows written to files as they are made. */
async function streamed(store: ArtifactStore, input: BuildDataInput, builder: RecipeRuntime['dataBuilder']): Promise<Built> {
  const shards = input.shards.map((s) => s.records);
  const { refs, counts, records } = await buildToFiles(store, localStateDir(input.config), shards, builder);
  const extra = [...refs.keys()].filter((n) => n.startsWith('extra/')).map((n) => n.slice('extra/'.length));
  return { datasets: async (name) => refs.get(name), extra, counts, records };
}

/** Rows built in memory (`buildDataWithModels`), kept as artifacts when asked for. */
function inMemory(store: ArtifactStore, data: TrainingData, records: number): Built {
  const lines = (name: string): string[] | undefined => {
    const [scope, dataset] = name.split('/') as [string, string];
    return scope === 'extra' ? data.extra?.[dataset] : data.byRole[scope]?.[dataset as keyof RoleTrainingData];
  };
  return { datasets: (name) => datasetRef(store, lines(name) ?? []), extra: Object.keys(data.extra ?? {}), counts: data.counts, records };
}

export async function buildTrainingData(input: BuildDataInput): Promise<BuiltData> {
  const store = storeFor(input.config);
  const runtime = await recipeRuntime(input.config);
  const declared = recipeOf(input.config).roles(input.config.recipe);
  const agent = input.agent;
  const byRole: Record<string, UsageCounter> = {};
  let built: Built;
  let budget: BudgetSpender | undefined;
  if (runtime.buildDataWithModels && agent) {
    budget = await budgetSpender(input);
    const { chats, usage } = builderChats({ ...input, agent }, declared, budget);
    Object.assign(byRole, usage);
    const logProbs = input.scorers ? await logProbChats({ ...input, agent, scorers: input.scorers }, declared, byRole, budget) : undefined;
    const records = await store.readJsonlAll<unknown>(input.shards.map((s) => s.records));
    built = inMemory(store, await runtime.buildDataWithModels(records, chats, logProbs), records.length);
  } else built = await streamed(store, input, (sink) => runtime.dataBuilder(sink));
  const counter = totalUsage(Object.values(byRole));
  const usage: LlmUsage = {
    calls: counter.calls,
    cachedCalls: counter.cachedCalls,
    tokens: totalTokens(counter),
  };
  // Only roles the config trains get datasets; a frozen or external role's examples are counted, not kept.
  const resolved = modelRoles(input.config, declared, input.checkpoint);
  const trained = rolesOfKind(resolved, 'trained');
  const roles: Record<string, RoleDatasets> = {};
  for (const role of trained) {
    const rl = await built.datasets(`${role}/rl`);
    roles[role] = input.scorers?.[role]?.data ?? {
      sft: await built.datasets(`${role}/sft`),
      dpo: await built.datasets(`${role}/dpo`),
      ...(rl ? { rl } : {}),
    };
  }
  const method = input.config.trainer?.method;
  // A role without examples keeps its checkpoint this iteration; with none for any role there is nothing to train.
  if (method && trained.length && !trained.some((r) => roles[r][DATASET_OF[method]]))
    throw ApplicationFailure.nonRetryable(NOTHING_TO_TRAIN[DATASET_OF[method]](built.records, method), 'EmptyDataset');
  const extra = Object.fromEntries(
    await Promise.all(built.extra.map(async (name) => [name, (await built.datasets(`extra/${name}`)) ?? null])),
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
      ...built.counts,
    },
    tokens: { prompt: counter.promptTokens, completion: counter.completionTokens },
  });
  await budget?.finish();
  return { sft, dpo, ...(rl ? { rl } : {}), roles, manifest, usage, spend: spendByRole(byRole, input.config, declared) };
}
