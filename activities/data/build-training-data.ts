// Builds the SFT and preference datasets from the training split's records, in the trainer's format.
import { ApplicationFailure } from '@temporalio/activity';
import type { ArtifactRef, LlmUsage, ShardResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import { recipeRuntime } from '../recipes/runtime';
import { Context } from '@temporalio/activity';
import { requestCacheFor } from '../llm/cache';
import { createChat, newUsageCounter, type EndpointRef, type UsageCounter } from '../llm/client';
import { roleChats, roleEndpoints } from '../llm/roles';
import type { Chat } from '../llm/types';

/** The models a recipe's data builder calls (SWEET-RL: the served policy samples candidates, the critic ranks
 *  them). Through the durable cache like every call, so a retried stage pays for nothing twice. */
function modelsFor(input: StageContext, agent: EndpointRef, usage: UsageCounter): { agent: Chat; chats: Record<string, Chat> } {
  const opts = {
    cache: requestCacheFor(input.config.stateDir),
    llm: input.config.llm,
    usage,
    signal: Context.current().cancellationSignal,
  };
  const make = (endpoint: EndpointRef) => createChat({ ...opts, endpoint });
  return { agent: make(agent), chats: roleChats(roleEndpoints(input.config, agent), make) };
}
import { storeFor, writeStageManifest } from '../manifest';

export async function buildTrainingData(
  input: StageContext & { checkpoint: string; shards: ShardResult[]; agent?: EndpointRef },
): Promise<{ sft?: ArtifactRef; dpo?: ArtifactRef; manifest: ArtifactRef; usage: LlmUsage }> {
  const store = storeFor(input.config.stateDir);
  const records = input.shards.flatMap((s) => store.readJsonl<unknown>(s.records));
  const runtime = recipeRuntime(input.config);
  const counter = newUsageCounter();
  const data =
    runtime.buildDataWithModels && input.agent
      ? await runtime.buildDataWithModels(records, modelsFor(input, input.agent, counter))
      : runtime.buildData(records);
  const usage: LlmUsage = {
    calls: counter.calls,
    cachedCalls: counter.cachedCalls,
    tokens: counter.promptTokens + counter.completionTokens,
  };
  const toRef = (lines: string[]) => (lines.length ? store.put(`${lines.join('\n')}\n`, { ext: '.jsonl', rows: lines.length }) : undefined);
  const sft = toRef(data.sft);
  const dpo = toRef(data.dpo);
  const method = input.config.trainer?.method;
  if (method === 'sft' && !sft)
    throw ApplicationFailure.nonRetryable(
      `no SFT examples: none of the ${records.length} sampled conversations reached a correct agreement`,
      'EmptyDataset',
    );
  if (method === 'dpo' && !dpo)
    throw ApplicationFailure.nonRetryable(
      `no preference pairs: no turn of the ${records.length} sampled conversations had both a correct and an incorrect candidate (raise recipe.beamSize or trainSamples)`,
      'EmptyDataset',
    );
  const manifest = writeStageManifest(input.config.stateDir, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'build-data',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`train_shard_${i}`, s.records])) },
    params: { data: input.config.recipe.data },
    outputs: { sft: sft ?? null, dpo: dpo ?? null, ...data.counts },
    tokens: { prompt: counter.promptTokens, completion: counter.completionTokens },
  });
  return { sft, dpo, manifest, usage };
}
