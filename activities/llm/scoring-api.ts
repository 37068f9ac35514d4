// The two scoring APIs a model role's endpoint may speak instead of chat completions (contracts/config-fields.ts `api`), so a
// reward role can be a reward model or a scoring service. One request here is one score: createChat (client.ts)
// puts it behind the same durable request cache, per-endpoint limiter, retries and usage accounting as a chat call.
//
//   reward — a reward model served by vLLM's pooling runner (`vllm serve <rm> --runner pooling`; vLLM detects the
//            runner and the pooling task by itself for reward-model architectures). As vLLM's docs specify
//            (https://docs.vllm.ai/en/latest/models/pooling_models/reward/ — online serving of reward models is the
//            Pooling API; https://docs.vllm.ai/en/latest/models/pooling_models/#pooling-api — its request takes
//            the Embeddings API's input, here the chat form `messages`, and answers {data: [{index, object:
//            "pooling", data}], usage: {prompt_tokens, ...}}): POST <server root>/pooling with
//            {model, messages, use_activation: false}. No `task` is sent, so the server pools with its default task
//            for the model (a sequence reward model: classify, data = [reward]; a token reward model:
//            token_classify, data = one [reward] per token, the last being the sequence's). `use_activation: false`
//            (documented for classify) asks for the reward head's raw output — the reward as the model defines it —
//            rather than a sigmoid of it, which saturates at 1.0 for large rewards and would tie the best responses.
//            The /pooling route is at the server root, not under /v1, so a baseUrl ending in /v1 loses it.
//   score  — a plain HTTP scoring service, e.g. the COMET-KIWI FastAPI service of the TOA seed: POST baseUrl+path
//            (default /predict/) with {inputs: {batch_size: 1, workers: 1, data: [{src, mt}]}}, answered
//            {scores: [float]}.
//
// The call follows the convention documented next to Chat (types.ts): messages [user: question or source,
// assistant: response]. The answer is cached like a chat answer: texts [String(score)], finish reason 'stop'.
import { ApplicationFailure } from '@temporalio/common';
import { LlmBadResponse } from './errors';
import { postJson, type PostOptions } from './post-json';
import type { ChatCall, ChatMessage, ModelApi, CachedAnswer } from './types';

/** What a scoring request needs of its endpoint (contracts/endpoint.ts's EndpointRef has it all). */
export interface ScoringEndpoint {
  baseUrl: string;
  model: string;
  api: Exclude<ModelApi, 'chat' | 'logprob'>;
  /** api score only: the scoring route under baseUrl. */
  path?: string;
}

export const DEFAULT_SCORE_PATH = '/predict/';

/** Where a scoring request goes: vLLM's /pooling at the server root, or the scoring service's route. */
export function scoringUrl(endpoint: ScoringEndpoint): string {
  const base = endpoint.baseUrl.replace(/\/+$/, '');
  if (endpoint.api === 'reward') return `${base.replace(/\/v1$/, '')}/pooling`;
  return `${base}${endpoint.path ?? DEFAULT_SCORE_PATH}`;
}

const textOf = (m: ChatMessage): string =>
  typeof m.content === 'string'
    ? m.content
    : m.content
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join('');

/**
 * The (question, response) pair of a scoring call, checked against the convention: the last message is the
 * assistant's response, the one before it the user's question (a system message may precede them for a reward
 * model's chat template). A call that breaks it is the recipe's bug: a non-retryable failure.
 */
export function scoringPair(call: ChatCall, where: string): { question: string; response: string } {
  const fail = (why: string) =>
    ApplicationFailure.create({
      type: 'LlmBadRequest',
      nonRetryable: true,
      message: `${where}: a scoring endpoint is asked with messages [user: question, assistant: response] and n = 1; ${why}`,
    });
  if ((call.n ?? 1) !== 1) throw fail(`this call asked for n = ${call.n} (one request scores one response)`);
  const [user, assistant] = call.messages.slice(-2);
  if (call.messages.length < 2 || user.role !== 'user' || assistant.role !== 'assistant')
    throw fail(`got roles [${call.messages.map((m) => m.role).join(', ')}]`);
  return { question: textOf(user), response: textOf(assistant) };
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** vLLM's pooling answer → the reward: data[0].data is [reward] (sequence task) or one [reward] per token (token
 *  task: the last token's is the sequence's). Anything else is not a reward model's answer. */
function rewardOf(body: unknown, where: string): number {
  const item = (body as { data?: Array<{ data?: unknown }> } | null)?.data?.[0];
  if (!item || !('data' in item)) throw new LlmBadResponse(`${where}: response has no data[0].data (not a vLLM pooling answer)`);
  let values = item.data;
  if (Array.isArray(values) && Array.isArray(values.at(-1))) values = values.at(-1);
  if (!Array.isArray(values) || values.length !== 1 || !finite(values[0]))
    throw new LlmBadResponse(
      `${where}: data[0].data is ${JSON.stringify(item.data)?.slice(0, 120)}, not one finite reward (is the model a reward model with one output?)`,
    );
  return values[0];
}

/** The scoring service's answer → the score: scores[0]. */
function scoreOf(body: unknown, where: string): number {
  const scores = (body as { scores?: unknown } | null)?.scores;
  if (!Array.isArray(scores) || !finite(scores[0]))
    throw new LlmBadResponse(`${where}: response has no finite scores[0] (got ${JSON.stringify(body)?.slice(0, 120)})`);
  return scores[0];
}

/**
 * One scoring request, once: no cache and no retries here (createChat adds both). Throws LlmHttpError for a non-2xx
 * answer, LlmNoAnswer for a timeout or a failed connection, LlmBadResponse for a 2xx answer without a finite score —
 * classifyLlmError (errors.ts) decides which are worth another attempt.
 */
export async function scoreOnce(endpoint: ScoringEndpoint, call: ChatCall, o: PostOptions): Promise<CachedAnswer> {
  const url = scoringUrl(endpoint);
  const where = `${endpoint.baseUrl} (${endpoint.api} API, POST ${url})`;
  const { question, response } = scoringPair(call, where);
  const body =
    endpoint.api === 'reward'
      ? { model: endpoint.model, messages: call.messages, use_activation: false }
      : { inputs: { batch_size: 1, workers: 1, data: [{ src: question, mt: response }] } };
  const parsed = await postJson(url, body, o, where);
  const score = endpoint.api === 'reward' ? rewardOf(parsed, where) : scoreOf(parsed, where);
  const promptTokens = (parsed as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
  return {
    texts: [String(score)],
    finishReasons: ['stop'],
    usage: { promptTokens: finite(promptTokens) ? promptTokens : 0, completionTokens: 0 },
  };
}
