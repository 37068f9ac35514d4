// Builds the SFT and preference datasets from the training split's records, in the trainer's format.
import { ApplicationFailure } from '@temporalio/activity';
import type { ArtifactRef, LlmUsage, ShardResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import { recipeRuntime } from '../recipes/runtime';
import { Context } from '@temporalio/activity';
import path from 'node:path';
import { RequestCache } from '../llm/cache';
import { createChat, externalEndpointRef, newUsageCounter, type EndpointRef, type UsageCounter } from '../llm/client';
import type { Chat } from '../llm/types';

/** SWEET-RL's models: the served policy samples candidates; the critic (default: the human's endpoint, else the
 *  agent's) ranks them. Through the durable cache like every call, so a retried stage pays for nothing twice. */
function modelsFor(input: StageContext, agent: EndpointRef, usage: UsageCounter): { agent: Chat; critic: Chat } {
  const r = input.config.recipe;
  const criticEndpoint = r.name !== 'coral' ? (r.data.critic ? externalEndpointRef(r.data.critic) : r.human.endpoint ? externalEndpointRef(r.human.endpoint) : agent) : agent;
  const opts = {
    cache: new RequestCache(path.join(input.config.stateDir, 'llm-cache')), llm: input.config.llm, usage,
    signal: Context.current().cancellationSignal,
  };
  return { agent: createChat({ ...opts, endpoint: agent }), critic: createChat({ ...opts, endpoint: criticEndpoint }) };
}
import { storeFor, writeStageManifest } from '../manifest';

export async function buildTrainingData(
  input: StageContext & { checkpoint: string; shards: ShardResult[]; agent?: EndpointRef },
): Promise<{ sft?: ArtifactRef; dpo?: ArtifactRef; manifest: ArtifactRef; usage: LlmUsage }> {
  const store = storeFor(input.config.stateDir);
  const records = input.shards.flatMap((s) => store.readJsonl<unknown>(s.records));
  const runtime = recipeRuntime(input.config);
  const counter = newUsageCounter();
  const data = runtime.buildDataWithModels && input.agent
    ? await runtime.buildDataWithModels(records, modelsFor(input, input.agent, counter))
    : runtime.buildData(records);
  const usage: LlmUsage = { calls: counter.calls, cachedCalls: counter.cachedCalls, tokens: counter.promptTokens + counter.completionTokens };
  const toRef = (lines: string[]) => (lines.length ? store.put(lines.join('\n') + '\n', { ext: '.jsonl', rows: lines.length }) : undefined);
  const sft = toRef(data.sft);
  const dpo = toRef(data.dpo);
  const method = input.config.trainer?.method;
  if (method === 'sft' && !sft)
    throw ApplicationFailure.nonRetryable(`no SFT examples: none of the ${records.length} sampled conversations reached a correct agreement`, 'EmptyDataset');
  if (method === 'dpo' && !dpo)
    throw ApplicationFailure.nonRetryable(`no preference pairs: no turn of the ${records.length} sampled conversations had both a correct and an incorrect candidate (raise recipe.beamSize or trainSamples)`, 'EmptyDataset');
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
