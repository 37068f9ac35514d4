// The body of a 200 chat completion (OpenAI API reference, "The chat completion object"): the policy's replies, or
// vLLM's prompt log-probs when the request asks `prompt_logprobs`.
import { randomUUID } from 'node:crypto';
import type { ChatBody } from './chat-request';
import { invalid } from './json-http';
import { fitJsonSchema, requestedSchema } from './json-schema-reply';
import type { Policy } from './policy';
import { simulatedTokens } from './simulated-tokens';

export function chatAnswer(body: ChatBody, policy: Policy, modelName: string): unknown {
  return body.raw.prompt_logprobs != null ? promptLogProbPayload(body, policy, modelName) : completionPayload(body, policy, modelName);
}

function completionPayload(body: ChatBody, policy: Policy, modelName: string): unknown {
  const reply = policy({
    model: body.model,
    messages: body.messages,
    n: body.n,
    seed: body.seed,
    temperature: body.temperature,
    maxTokens: body.maxTokens,
  });
  if (reply.texts.length !== body.n) throw new Error(`policy returned ${reply.texts.length} texts for n=${body.n}`);
  const completion = reply.completionTokens.reduce((a, b) => a + b, 0);
  const schema = requestedSchema(body.raw);
  const texts = schema === undefined ? reply.texts : reply.texts.map((t) => fitJsonSchema(t, schema));
  return {
    ...completionHead(modelName),
    choices: texts.map((content, index) => ({
      index,
      message: { role: 'assistant', content },
      logprobs: null,
      finish_reason: 'stop',
    })),
    usage: { prompt_tokens: reply.promptTokens, completion_tokens: completion, total_tokens: reply.promptTokens + completion },
  };
}

// vLLM's prompt log-probs (activities/llm/logprob-api.ts asks them): every prompt token but the first gets an
// entry; the last message's words get the policy's mean log-prob, the context's tokens -1.
function promptLogProbPayload(body: ChatBody, policy: Policy, modelName: string): unknown {
  const meanLogProb = policy.meanLogProb;
  if (!meanLogProb) throw invalid('this server gives no prompt log-probs', 'prompt_logprobs');
  const last = body.messages.at(-1);
  if (last?.role !== 'assistant') throw invalid('prompt_logprobs needs a last assistant message', 'messages');
  const total = simulatedTokens(body.messages, false);
  const context = simulatedTokens(body.messages.slice(0, -1), true);
  const mean = meanLogProb({ model: body.model, messages: body.messages });
  const entry = (i: number, lp: number) => ({ [String(i)]: { logprob: lp, rank: 1, decoded_token: `t${i}` } });
  return {
    ...completionHead(modelName),
    choices: [{ index: 0, message: { role: 'assistant', content: '' }, logprobs: null, finish_reason: 'length' }],
    prompt_logprobs: Array.from({ length: total }, (_, i) => (i === 0 ? null : entry(i, i < context ? -1 : mean))),
    usage: { prompt_tokens: total, completion_tokens: 1, total_tokens: total + 1 },
  };
}

const completionHead = (modelName: string) => ({
  id: `chatcmpl-${randomUUID()}`,
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: modelName,
});
