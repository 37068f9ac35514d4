// CollabLLM's judges, extractor and user simulator, and TOA's judge reward, against the project's dry-run server (a real HTTP server) through
// the real chat client: with `structuredOutputs: json_schema` each call carries the reply's zod schema as
// `response_format`, the server answers an object fitting it (as guided decoding does) and the reply is read in one
// request; with `parse` (the default) the same server's free-text reply is parsed and re-asked as before.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestCacheFor, requestCacheKey } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import type { ChatCall } from '../../../../activities/llm/types';
import { accuracyJudge, extractFinal, interactivityJudge } from '../../../../activities/recipes/collabllm/metrics';
import { DEFAULT_COLLABLLM_PROMPTS } from '../../../../activities/recipes/collabllm/prompts';
import { simulateUserTurn } from '../../../../activities/recipes/collabllm/user-simulator';
import { startOpenAICompatibleServer, type RunningServer } from '../../../../activities/serving/openai-compatible-server';
import { fitJsonSchema } from '../../../../activities/serving/openai-compatible/json-schema-reply';
import { scoreResponse } from '../../../../activities/recipes/toa/reward';
import { DEFAULT_TOA_PROMPTS } from '../../../../activities/recipes/toa/prompts';

/** What the policy answers next: plain prose, never the JSON the prompt asks for — or JSON, when set. */
let reply = 'The assistant did fine, I would say.';
let server: RunningServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer({
    modelName: 'judge',
    policy: (req) => ({ texts: Array.from({ length: req.n }, () => reply), promptTokens: 5, completionTokens: [3] }),
  });
});
afterAll(() => server?.close());
beforeEach(() => {
  server.resetStats();
  reply = 'The assistant did fine, I would say.';
});

const chat = (structuredOutputs?: 'json_schema') =>
  createChat({
    endpoint: {
      baseUrl: `${server.url}/v1`,
      model: 'judge',
      cacheId: 'judge',
      maxConcurrency: 4,
      ...(structuredOutputs ? { structuredOutputs } : {}),
    },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'structured-outputs-')) }),
    llm: { requestTimeoutSeconds: 5, callRetries: 0, maxRetryDelaySeconds: 1, outageToleranceSeconds: 0 },
    usage: newUsageCounter(),
  });

const conversation = [
  { role: 'user' as const, content: 'what is 17*23?' },
  { role: 'assistant' as const, content: 'It is 391.' },
];
const judging = { parseRetries: 2, key: 'c0/f0', prompts: DEFAULT_COLLABLLM_PROMPTS };
const simulator = {
  prompts: DEFAULT_COLLABLLM_PROMPTS,
  task: { description: 'question answering', goal: 'what is 17 * 23?' },
  decoding: { temperature: 1, maxTokens: 256, seed: 3 },
  parseRetries: 2,
};

describe('structured outputs (endpoint structuredOutputs: json_schema)', () => {
  it('judges and the extractor get a schema-fitting reply in one request each', async () => {
    const c = chat('json_schema');
    expect(await accuracyJudge(c, { question: '17*23?', groundTruth: '391', conversation }, judging)).toMatchObject({ score: 0 });
    expect(server.stats().completed).toBe(1);
    reply = '{"thought": "asks good questions", "interactivity": 0.75}';
    expect(await interactivityJudge(c, { conversation }, judging)).toMatchObject({ score: 0.75 });
    reply = 'The final answer is 391.';
    expect(await extractFinal(c, { conversation, kind: 'answer' }, judging)).toMatchObject({ text: 'The final answer is 391.' });
    expect(server.stats().completed).toBe(3);
  });

  it('the user simulator gets its message in one request', async () => {
    reply = 'hey, can you help me multiply two numbers?';
    const turn = await simulateUserTurn({ ...simulator, chat: chat('json_schema'), history: [], key: 'u0' });
    expect(turn).toMatchObject({ kind: 'message', text: 'hey, can you help me multiply two numbers?' });
    expect(server.stats().completed).toBe(1);
  });

  it("TOA's judge reward: the schema's score in one request; parse reads a score amid prose", async () => {
    const task = { id: 't1', kind: 'instruction' as const, instruction: 'List three primes.' };
    const o = { key: 'toa/k', maxTokens: 64, parseRetries: 2, prompts: DEFAULT_TOA_PROMPTS };
    reply = 'Fine answer. {"score": 8, "why": "correct"}';
    expect(await scoreResponse(chat('json_schema'), task, '2, 3, 5', o)).toMatchObject({ reward: 8 });
    expect(server.stats().completed).toBe(1);
    reply = 'Score = 7.5';
    expect(await scoreResponse(chat(), task, '2, 3, 5', o)).toMatchObject({ reward: 7.5 });
    // Fitted to the schema, the prose has no score: the schema's least (1), as a guided decoder would have to say.
    expect(await scoreResponse(chat('json_schema'), task, '2, 3, 5', o)).toMatchObject({ reward: 1 });
  });

  it('parse (the default) still parses and re-asks: prose is unreadable, JSON is read', async () => {
    const c = chat();
    const missing = await accuracyJudge(c, { question: '17*23?', groundTruth: '391', conversation }, judging);
    expect(missing).toMatchObject({ missing: expect.stringContaining('unreadable reply after 3 attempts') });
    expect(server.stats().completed).toBe(3);
    const failed = await simulateUserTurn({ ...simulator, chat: c, history: [], key: 'u1' });
    expect(failed.kind).toBe('failed');
    reply = '```json\n{"current_answer": "", "thought": "start", "response": "hi, 17 times 23?"}\n```';
    expect(await simulateUserTurn({ ...simulator, chat: c, history: [], key: 'u2' })).toMatchObject({ text: 'hi, 17 times 23?' });
  });

  it('keys the request cache by response_format: a schema-bound answer is never served to a free-text call', () => {
    const call: ChatCall = {
      messages: [{ role: 'user', content: 'judge this' }],
      decoding: { temperature: 0, maxTokens: 8 },
      sampleKey: 'k',
    };
    const withSchema: ChatCall = {
      ...call,
      responseFormat: { type: 'json_schema', json_schema: { name: 'accuracy', strict: true, schema: { type: 'object' } } },
    };
    expect(requestCacheKey('m', withSchema)).not.toBe(requestCacheKey('m', call));
  });

  it("the dry-run server keeps the policy's fitting fields and fills the others from the schema", () => {
    const schema = {
      type: 'object',
      properties: { thought: { type: 'string' }, accuracy: { type: 'integer', minimum: 0, maximum: 1 }, verdict: { enum: ['yes', 'no'] } },
    };
    expect(JSON.parse(fitJsonSchema('sure: {"thought": "ok", "accuracy": 1, "extra": true}', schema))).toEqual({
      thought: 'ok',
      accuracy: 1,
      verdict: 'yes',
    });
    expect(JSON.parse(fitJsonSchema('{"accuracy": 7}', schema))).toEqual({ thought: '', accuracy: 0, verdict: 'yes' });
  });
});
