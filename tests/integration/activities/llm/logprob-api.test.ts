// Mean log-probs of a conversation's last message from a served model (activities/llm/logprob-api.ts), as SWEET-RL's
// learned critic and its policy baseline need them: vLLM's /tokenize for the context's length, then its
// prompt_logprobs. A real HTTP server in vLLM's answer shape (a STAND-IN for vLLM, which needs a GPU) and the
// project's dry-run server answer; the client is the one recipes get from createChat, with its durable cache.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import type { ChatCall, ChatMessage } from '../../../../activities/llm/types';
import { startOpenAICompatibleServer, type Policy } from '../../../../activities/serving/openai-compatible-server';
import { json, startServer, type TestServer } from '../../../helpers/recording-server';

const LLM = { requestTimeoutSeconds: 5, callRetries: 1, maxRetryDelaySeconds: 1, outageToleranceSeconds: 600 };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const call = (messages: ChatMessage[], sampleKey = 'logprob/critic/t1'): ChatCall => ({
  messages,
  decoding: { temperature: 0, maxTokens: 1 },
  sampleKey,
});
const CONTEXT: ChatMessage[] = [
  { role: 'system', content: 'You help write a function.' },
  { role: 'user', content: 'I need a tax calculator.' },
];

function logProbChat(baseUrl: string) {
  const usage = newUsageCounter();
  const chat = createChat({
    endpoint: { baseUrl, model: 'critic', cacheId: 'critic@iter-1', maxConcurrency: 4, api: 'logprob' },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'logprob-')) }),
    llm: LLM,
    usage,
    sleep: async () => undefined,
  });
  return { chat, usage };
}

/** vLLM's shapes: /tokenize → {count}; chat completions with prompt_logprobs → one entry per prompt token. */
async function startVllmShaped(prefixCount: number, tokenLogProbs: number[]): Promise<TestServer> {
  const server = await startServer((req, res) => {
    if (req.url === '/tokenize') return json(res, 200, { count: prefixCount, max_model_len: 8192, tokens: [] });
    if (req.url === '/v1/chat/completions')
      return json(res, 200, {
        choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'length' }],
        prompt_logprobs: [
          null,
          ...tokenLogProbs.slice(1).map((lp, i) => ({ [String(100 + i)]: { logprob: lp, rank: 1, decoded_token: 't' } })),
        ],
        usage: { prompt_tokens: tokenLogProbs.length, completion_tokens: 1 },
      });
    json(res, 404, { detail: 'Not Found' });
  });
  closers.push(() => server.close());
  return server;
}

describe('log-prob API (vLLM prompt log-probs)', () => {
  it('asks /tokenize for the context and averages only the tokens after it', async () => {
    // 6 prompt tokens: the first 4 are the context (with the assistant header), the last 2 the action.
    const vllm = await startVllmShaped(4, [0, -9, -9, -9, -0.5, -1.5]);
    const { chat } = logProbChat(`${vllm.url}/v1`);
    const messages: ChatMessage[] = [...CONTEXT, { role: 'assistant', content: 'What is the rate?' }];
    const out = await chat(call(messages));
    expect(Number(out.texts[0])).toBeCloseTo(-1, 10);

    const [tokenize, completion] = vllm.received;
    expect(tokenize.url).toBe('/tokenize'); // at the server root, not under /v1
    expect(tokenize.body).toEqual({ model: 'critic', messages: CONTEXT, add_generation_prompt: true });
    expect(completion.url).toBe('/v1/chat/completions');
    expect(completion.body).toMatchObject({ model: 'critic', messages, add_generation_prompt: false, max_tokens: 1, prompt_logprobs: 0 });
    expect(completion.headers['x-collab-request-key']).toBe(tokenize.headers['x-collab-request-key']);
  });

  it('is paid once: the same call again comes from the durable cache', async () => {
    const vllm = await startVllmShaped(2, [0, -1, -2, -3]);
    const { chat, usage } = logProbChat(`${vllm.url}/v1`);
    const c = call([...CONTEXT.slice(1), { role: 'assistant', content: 'ok' }]);
    const first = await chat(c);
    const again = await chat(c);
    expect(again.texts).toEqual(first.texts);
    expect(again.cached).toBe(true);
    expect(vllm.received).toHaveLength(2); // one /tokenize + one completion, for both calls
    expect(usage.cachedCalls).toBe(1);
  });

  it('refuses a call whose last message is not the action, before any request', async () => {
    const vllm = await startVllmShaped(2, [0, -1, -2]);
    const { chat } = logProbChat(`${vllm.url}/v1`);
    await expect(chat(call(CONTEXT))).rejects.toThrow(/log-prob call is \[context messages\.\.\., assistant: the action\]/);
    expect(vllm.received).toHaveLength(0);
  });

  it('names a server that gives no prompt log-probs', async () => {
    const plain = await startServer((req, res) =>
      req.url === '/tokenize'
        ? json(res, 200, { count: 1 })
        : json(res, 200, { choices: [{ index: 0, message: { role: 'assistant', content: 'x' } }] }),
    );
    closers.push(() => plain.close());
    const { chat } = logProbChat(`${plain.url}/v1`);
    await expect(chat(call([...CONTEXT, { role: 'assistant', content: 'x' }]))).rejects.toThrow(/no prompt_logprobs list/);
  });

  it("the dry-run server answers with its policy's mean log-prob of the action", async () => {
    const seen: string[] = [];
    const policy: Policy = Object.assign(() => ({ texts: ['x'], promptTokens: 1, completionTokens: [1] }), {
      meanLogProb: (req: { messages: Array<{ role: string; content: unknown }> }) => {
        seen.push(String(req.messages.at(-1)!.content));
        return String(req.messages.at(-1)!.content).includes('rate') ? -0.25 : -4;
      },
    });
    const sim = await startOpenAICompatibleServer({ modelName: 'critic', policy });
    closers.push(() => sim.close());
    const { chat } = logProbChat(`${sim.url}/v1`);
    const good = await chat(call([...CONTEXT, { role: 'assistant', content: 'What tax rate applies to you?' }], 'a'));
    const bad = await chat(call([...CONTEXT, { role: 'assistant', content: 'I WANT TO ANSWER: def f(): pass' }], 'b'));
    expect(Number(good.texts[0])).toBeCloseTo(-0.25, 10);
    expect(Number(bad.texts[0])).toBeCloseTo(-4, 10);
    expect(seen).toEqual(['What tax rate applies to you?', 'I WANT TO ANSWER: def f(): pass']);
  });
});
