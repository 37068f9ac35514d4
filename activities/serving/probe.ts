// The deploy stage's probe: a few fixed evaluation prompts, greedy, sent to the freshly served checkpoint through
// the normal LLM client (so they are cached and counted like any call). Its answers are recorded as an artifact;
// when the agents are SIMULATED this is what shows that the trained weights really are served each iteration.
import type { StageContext } from '../../contracts/activities';
import type { ProbeResult } from '../../contracts/run';
import { sha256Hex } from '../storage/content-hash';
import { requestCacheFor } from '../llm/cache';
import { createChat } from '../llm/client';
import { newUsageCounter } from '../llm/usage';
import type { EndpointRef } from '../../contracts/endpoint';
import { storeFor } from '../artifacts/store';
import type { ChatMessage } from '../llm/types';
import { Context } from '@temporalio/activity';

/** `prompts`: the recipe's first evaluation prompts (RecipeRuntime.probePrompts). */
export async function probeServedModel(
  c: StageContext,
  endpoint: EndpointRef,
  probe: { prompts: ChatMessage[][]; maxTokens: number },
): Promise<ProbeResult> {
  const { prompts } = probe;
  const usage = newUsageCounter();
  const chat = createChat({
    endpoint,
    cache: requestCacheFor(c.config),
    llm: c.config.llm,
    usage,
    signal: Context.current().cancellationSignal,
  });
  const records = [];
  for (const [i, messages] of prompts.entries()) {
    const out = await chat({
      messages,
      decoding: { temperature: 0, maxTokens: probe.maxTokens, seed: c.config.seed },
      sampleKey: `probe-${i}`,
    });
    records.push({
      prompt: i,
      model: endpoint.model,
      cacheId: endpoint.cacheId,
      text: out.texts[0],
      finishReason: out.finishReasons[0],
      usage: out.usage,
    });
  }
  const store = storeFor(c.config);
  return {
    records: await store.putJsonl(records),
    prompts: records.length,
    model: endpoint.model,
    completionTokens: usage.completionTokens,
    answersSha256: sha256Hex(JSON.stringify(records.map((r) => r.text))),
  };
}
