// Builds the SFT and preference datasets from the training split's records, in the trainer's format: one pair of
// datasets per trained model role (debate's generators and critics each learn from their own outputs).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { BuiltData, LlmUsage, ShardResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import type { ArtifactRef } from '../artifacts/ref';
import { recipeRuntime } from '../recipes/runtime';
import { requestCacheFor } from '../llm/cache';
import { createChat, newUsageCounter, type EndpointRef, type UsageCounter } from '../llm/client';
import { modelRoles, primaryRole, roleChats, roleEndpoints, rolesOfKind } from '../llm/roles';
import type { Chat } from '../llm/types';
import { storeFor, writeStageManifest } from '../manifest';

/** The models a recipe's data builder calls (SWEET-RL: the served policy samples candidates, the critic ranks
 *  them). Through the durable cache like every call, so a retried stage pays for nothing twice. */
function chatsFor(
  input: StageContext & { agent: EndpointRef; roles?: Record<string, EndpointRef> },
  usage: UsageCounter,
): Record<string, Chat> {
  const opts = {
    cache: requestCacheFor(input.config.stateDir),
    llm: input.config.llm,
    usage,
    signal: Context.current().cancellationSignal,
  };
  return roleChats(roleEndpoints(input.config, input.agent, input.roles), (endpoint) => createChat({ ...opts, endpoint }));
}

export async function buildTrainingData(
  input: StageContext & { checkpoint: string; shards: ShardResult[]; agent?: EndpointRef; roles?: Record<string, EndpointRef> },
): Promise<BuiltData> {
  const store = storeFor(input.config.stateDir);
  const records = input.shards.flatMap((s) => store.readJsonl<unknown>(s.records));
  const runtime = recipeRuntime(input.config);
  const counter = newUsageCounter();
  const data =
    runtime.buildDataWithModels && input.agent
      ? await runtime.buildDataWithModels(records, chatsFor({ ...input, agent: input.agent }, counter))
      : runtime.buildData(records);
  const usage: LlmUsage = {
    calls: counter.calls,
    cachedCalls: counter.cachedCalls,
    tokens: counter.promptTokens + counter.completionTokens,
  };
  const toRef = (lines: string[]) => (lines.length ? store.put(`${lines.join('\n')}\n`, { ext: '.jsonl', rows: lines.length }) : undefined);
  // Only roles the config trains get datasets; a frozen or external role's examples are counted, not kept.
  const resolved = modelRoles(input.config, input.checkpoint);
  const trained = rolesOfKind(resolved, 'trained');
  const roles: Record<string, { sft?: ArtifactRef; dpo?: ArtifactRef }> = {};
  for (const role of trained) {
    const d = data.byRole[role];
    roles[role] = { sft: toRef(d?.sft ?? []), dpo: toRef(d?.dpo ?? []) };
  }
  const method = input.config.trainer?.method;
  const has = (r: { sft?: ArtifactRef; dpo?: ArtifactRef }) => (method === 'dpo' ? r.dpo : r.sft);
  // A role without examples keeps its checkpoint this iteration; with none for any role there is nothing to train.
  if (method && trained.length && !trained.some((r) => has(roles[r])))
    throw ApplicationFailure.nonRetryable(
      method === 'sft'
        ? `no SFT examples: none of the ${records.length} sampled conversations reached a correct agreement`
        : `no preference pairs: no turn of the ${records.length} sampled conversations had both a correct and an incorrect candidate (raise recipe.beamSize or trainSamples)`,
      'EmptyDataset',
    );
  const extra = Object.fromEntries(Object.entries(data.extra ?? {}).map(([name, lines]) => [name, toRef(lines) ?? null]));
  const primary = primaryRole(resolved);
  const { sft, dpo } = (primary && roles[primary]) || {};
  const perRole = trained.length > 1 ? roles : {};
  const manifest = writeStageManifest(input.config.stateDir, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'build-data',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`train_shard_${i}`, s.records])) },
    params: { data: input.config.recipe.data },
    outputs: {
      sft: sft ?? null,
      dpo: dpo ?? null,
      ...Object.fromEntries(
        Object.entries(perRole).flatMap(([r, d]) => [
          [`${r}_sft`, d.sft ?? null],
          [`${r}_dpo`, d.dpo ?? null],
        ]),
      ),
      ...extra,
      ...data.counts,
    },
    tokens: { prompt: counter.promptTokens, completion: counter.completionTokens },
  });
  return { sft, dpo, roles, manifest, usage };
}
