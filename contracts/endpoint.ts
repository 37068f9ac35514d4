// What travels through Temporal to name a model endpoint: its address and identity, never its key.
import type { ExternalEndpoint } from './config-fields';

/** How an endpoint is asked: chat completions, one of the scoring APIs (activities/llm/scoring-api.ts), or the
 *  mean log-prob of the last message (activities/llm/logprob-api.ts; set by the loop, never by a config). */
export type ModelApi = 'chat' | 'reward' | 'score' | 'logprob';

/** The EndpointRef field for a config's `structuredOutputs` (absent when `parse`, so refs stay as they were). */
export const structuredOutputsRef = (s: string | undefined): Pick<EndpointRef, 'structuredOutputs'> =>
  s === 'json_schema' ? { structuredOutputs: 'json_schema' } : {};

/** An endpoint as the stages pass it around. `cacheId` names the exact weights (model + checkpoint), not the URL. */
export interface EndpointRef {
  baseUrl: string;
  model: string;
  cacheId: string;
  apiKeyEnv?: string;
  /** A loop-served endpoint that requires its run's key: the reference each host derives it from
   *  (activities/serving/served-key.ts). The key itself never travels. */
  apiKeyRef?: string;
  maxConcurrency: number;
  /** Tokens per sliding minute (external endpoints only; contracts/config-fields.ts). */
  tokensPerMinute?: number;
  /**
   * How the server deviates from the OpenAI API. `transformers-serve`: ignores `n` (one choice per request) and
   * samples only when a JSON `generation_config` in the body says so (the checkpoint's own config wins otherwise).
   */
  dialect?: 'openai' | 'transformers-serve';
  /** The API it speaks (contracts/config-fields.ts externalEndpointSchema): absent = chat, as every loop-served endpoint. */
  api?: ModelApi;
  /** api score only: the scoring route under baseUrl (default /predict/). */
  path?: string;
  /** `json_schema`: the server honours `response_format: json_schema` (contracts/config-fields.ts STRUCTURED_OUTPUTS);
   *  absent: replies are parsed and re-asked. */
  structuredOutputs?: 'json_schema';
  /** Started by the loop's deploy (activities/serving/checkpoint-servers.ts): such a server never restarts by
   *  itself, so a refused connection means it is gone (activities/llm/served-gone.ts), not that it restarts. */
  served?: boolean;
}

/** An endpoint named in the config (not deployed by the loop): its model name is its identity for the cache. */
export const externalEndpointRef = (e: ExternalEndpoint): EndpointRef => ({
  baseUrl: e.baseUrl,
  model: e.model,
  cacheId: e.model,
  apiKeyEnv: e.apiKeyEnv,
  maxConcurrency: e.maxConcurrency,
  ...(e.tokensPerMinute !== undefined ? { tokensPerMinute: e.tokensPerMinute } : {}),
  ...(e.api && e.api !== 'chat' ? { api: e.api } : {}),
  ...(e.path !== undefined ? { path: e.path } : {}),
  ...structuredOutputsRef(e.structuredOutputs),
});
