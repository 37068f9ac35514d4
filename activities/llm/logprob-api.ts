// The mean log-prob of a conversation's last (assistant) message under a served model: what SWEET-RL's critic and
// its policy baseline are (sweet_rl scripts/rank_best_of_n.py asks vLLM for prompt log-probs, max_tokens 1). Two
// requests to vLLM's OpenAI-compatible server, both standard vLLM routes:
//   POST <root>/tokenize {model, messages: all but the last, add_generation_prompt: true} → {count}: the prefix's
//        length in tokens, so the action's tokens can be told from the context's;
//   POST <baseUrl>/chat/completions {model, messages: all, add_generation_prompt: false, max_tokens: 1,
//        prompt_logprobs: 0} → prompt_logprobs: one entry per prompt token (null for the first), each
//        {token_id: {logprob, ...}} holding the actual token's log-prob.
// The mean runs over every token after the prefix: the action and the chat template's end-of-turn marker (the seed
// also counts its template tokens around the action). One call here is one log-prob: createChat (client.ts) puts it
// behind the durable request cache, the endpoint's limiter and retries; its answer is texts [String(mean)].
import { ApplicationFailure } from '@temporalio/common';
import { LlmBadResponse } from './errors';
import { postJson, type PostOptions } from './post-json';
import type { ChatCall, CachedAnswer } from './types';

export interface LogProbEndpoint {
  baseUrl: string;
  model: string;
}

/** A log-prob call is [context..., assistant: action] with n = 1; anything else is the caller's bug. */
export function checkLogProbCall(call: ChatCall, where: string): void {
  const fail = (why: string) =>
    ApplicationFailure.create({
      type: 'LlmBadRequest',
      nonRetryable: true,
      message: `${where}: a log-prob call is [context messages..., assistant: the action] with n = 1; ${why}`,
    });
  if ((call.n ?? 1) !== 1) throw fail(`this call asked for n = ${call.n}`);
  if (call.messages.length < 2 || call.messages.at(-1)!.role !== 'assistant')
    throw fail(`got roles [${call.messages.map((m) => m.role).join(', ')}]`);
}

/** The actual token's log-prob at each prompt position (null where the server gives none, i.e. the first). */
function promptLogProbs(body: unknown, where: string): Array<number | null> {
  const entries = (body as { prompt_logprobs?: unknown } | null)?.prompt_logprobs;
  if (!Array.isArray(entries))
    throw new LlmBadResponse(`${where}: response has no prompt_logprobs list (does the server support vLLM's prompt_logprobs?)`);
  return entries.map((e, i) => {
    if (e === null) return null;
    const values = e && typeof e === 'object' ? Object.values(e as Record<string, { logprob?: unknown }>) : [];
    const lp = values[0]?.logprob;
    if (typeof lp !== 'number' || Number.isNaN(lp)) throw new LlmBadResponse(`${where}: prompt_logprobs[${i}] has no numeric logprob`);
    return lp;
  });
}

/** One mean log-prob, once: no cache and no retries here (createChat adds both). */
export async function logProbOnce(endpoint: LogProbEndpoint, call: ChatCall, o: PostOptions): Promise<CachedAnswer> {
  const base = endpoint.baseUrl.replace(/\/+$/, '');
  const where = `${endpoint.baseUrl} (log-prob API)`;
  const prefix = (await postJson(
    `${base.replace(/\/v1$/, '')}/tokenize`,
    { model: endpoint.model, messages: call.messages.slice(0, -1), add_generation_prompt: true },
    o,
  )) as { count?: unknown } | null;
  const count = prefix?.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
    throw new LlmBadResponse(`${where}: /tokenize answered no integer "count"`);
  const full = await postJson(
    `${base}/chat/completions`,
    { model: endpoint.model, messages: call.messages, add_generation_prompt: false, max_tokens: 1, prompt_logprobs: 0, temperature: 0 },
    o,
  );
  const action = promptLogProbs(full, where).slice(count);
  const values = action.filter((v): v is number => v !== null);
  if (values.length === 0) throw new LlmBadResponse(`${where}: the prompt has no tokens after its ${count}-token prefix (empty action?)`);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const promptTokens = (full as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
  return {
    texts: [String(mean)],
    finishReasons: ['stop'],
    usage: { promptTokens: typeof promptTokens === 'number' ? promptTokens : 0, completionTokens: 0 },
  };
}
