// A model role whose endpoint speaks a scoring API instead of chat completions (activities/llm/scoring-api.ts), so a
// reward role can be a reward model (vLLM's pooling API) or a scoring service (COMET-KIWI's POST /predict/). Real
// HTTP servers started here answer; the client is the one recipes get from createChat, with its durable cache.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modelRoleSchema } from '../../../../contracts/config-fields';
import type { LlmConfig } from '../../../../contracts/config';
import { requestCacheFor, requestCacheKey } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter, type UsageCounter } from '../../../../activities/llm/usage';
import { externalEndpointRef } from '../../../../contracts/endpoint';
import type { EndpointRef } from '../../../../contracts/endpoint';
import type { ChatCall } from '../../../../activities/llm/types';
import { json, startServer, type TestServer } from '../../../helpers/recording-server';
import { startVllmPoolingStandIn as startPooling } from '../../../helpers/vllm-pooling';

/** The score the stand-in KIWI service gives a (src, mt) pair: deterministic, different for different pairs. */
const kiwiScore = (src: string, mt: string) => Number((mt.length / (src.length + mt.length)).toFixed(6));

type KiwiFault = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * A scoring service with the COMET-KIWI FastAPI shape (the TOA seed's): POST <route> {inputs: {batch_size, workers,
 * data: [{src, mt}]}} → {scores: [...]}. `faults` are answered first, one per request; `answered` counts scores paid.
 */
async function startKiwiService(route = '/predict/') {
  const faults: KiwiFault[] = [];
  const state = { answered: 0 };
  const server = await startServer((req, res) => {
    if (req.method !== 'POST' || req.url !== route) return json(res, 404, { detail: 'Not Found' });
    const fault = faults.shift();
    if (fault) return json(res, fault.status, fault.body, fault.headers);
    const data = (req.body as { inputs: { data: Array<{ src: string; mt: string }> } }).inputs.data;
    state.answered++;
    json(res, 200, { scores: data.map((d) => kiwiScore(d.src, d.mt)) });
  });
  return { ...server, faults, state };
}

const LLM: LlmConfig = { requestTimeoutSeconds: 5, callRetries: 2, maxRetryDelaySeconds: 30, outageToleranceSeconds: 0 }; // the call retries alone: an endpoint that is down is waited for in endpoint-outage.test.ts

const call = (src: string, mt: string, sampleKey = 'p0/reward'): ChatCall => ({
  messages: [
    { role: 'user', content: src },
    { role: 'assistant', content: mt },
  ],
  decoding: { temperature: 0, maxTokens: 1 },
  sampleKey,
});

let cacheDir: string;
let usage: UsageCounter;
let sleeps: number[];
const servers: TestServer[] = [];

beforeEach(() => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'scoring-api-'));
  usage = newUsageCounter();
  sleeps = [];
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function chatFor(endpoint: Partial<EndpointRef> & Pick<EndpointRef, 'baseUrl'>, llm: LlmConfig = LLM) {
  return createChat({
    endpoint: { model: 'wmt22-cometkiwi-da', cacheId: 'wmt22-cometkiwi-da', maxConcurrency: 4, ...endpoint },
    cache: requestCacheFor({ stateDir: cacheDir }),
    llm,
    usage,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

describe('score API: a plain HTTP scoring service (COMET-KIWI shape)', () => {
  it('posts the KIWI body with the request key to baseUrl + /predict/ and answers scores[0] as the text', async () => {
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    const c = call('Guten Morgen, wie geht es dir?', 'Good morning, how are you?');
    const out = await chatFor({ baseUrl: kiwi.url, api: 'score' })(c);

    expect(kiwi.received).toHaveLength(1);
    const [req] = kiwi.received;
    expect(req.url).toBe('/predict/');
    expect(req.body).toEqual({
      inputs: { batch_size: 1, workers: 1, data: [{ src: 'Guten Morgen, wie geht es dir?', mt: 'Good morning, how are you?' }] },
    });
    expect(req.headers['x-collab-request-key']).toBe(requestCacheKey('wmt22-cometkiwi-da', c, 'score'));
    expect(req.headers.authorization).toBeUndefined();
    expect(out).toEqual({
      texts: [String(kiwiScore('Guten Morgen, wie geht es dir?', 'Good morning, how are you?'))],
      finishReasons: ['stop'],
      usage: { promptTokens: 0, completionTokens: 0 },
      cached: false,
    });
    expect(Number(out.texts[0])).toBeCloseTo(26 / 56, 6);
  });

  it('uses the configured path and sends the key named by apiKeyEnv as a Bearer token', async () => {
    const kiwi = await startKiwiService('/kiwi/v2/score');
    servers.push(kiwi);
    process.env.SCORING_API_TEST_KEY = 'kiwi-secret';
    try {
      const out = await chatFor({ baseUrl: `${kiwi.url}/`, api: 'score', path: '/kiwi/v2/score', apiKeyEnv: 'SCORING_API_TEST_KEY' })(
        call('Dobré ráno', 'Good morning'),
      );
      expect(kiwi.received.map((r) => r.url)).toEqual(['/kiwi/v2/score']);
      expect(kiwi.received[0].headers.authorization).toBe('Bearer kiwi-secret');
      expect(Number(out.texts[0])).toBe(kiwiScore('Dobré ráno', 'Good morning'));
    } finally {
      delete process.env.SCORING_API_TEST_KEY;
    }
  });

  it('retries a 503, honouring Retry-After, and pays for the score once', async () => {
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    kiwi.faults.push({ status: 503, body: { detail: 'model loading' }, headers: { 'retry-after': '2' } });
    const out = await chatFor({ baseUrl: kiwi.url, api: 'score' })(call('Góðan daginn', 'Good day'));

    expect(kiwi.received).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
    expect(kiwi.state.answered).toBe(1);
    expect(Number(out.texts[0])).toBe(kiwiScore('Góðan daginn', 'Good day'));
    expect(usage).toMatchObject({ calls: 1, cachedCalls: 0 });
  });

  it('does not retry a 400 and fails for good naming the endpoint and what the service said', async () => {
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    kiwi.faults.push({ status: 400, body: { detail: 'mt is too long' } });
    const err = await chatFor({ baseUrl: kiwi.url, api: 'score' })(call('Привет', 'Hello')).catch((e) => e);

    expect(err).toMatchObject({ type: 'LlmBadRequest', nonRetryable: true });
    expect(err.message).toContain(kiwi.url);
    expect(err.message).toContain('HTTP 400');
    expect(err.message).toContain('mt is too long');
    expect(kiwi.received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('an answer without a finite score is a bad response naming the endpoint, never a score', async () => {
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    for (let i = 0; i <= LLM.callRetries; i++) kiwi.faults.push({ status: 200, body: { predictions: [0.8] } });
    const err = await chatFor({ baseUrl: kiwi.url, api: 'score' })(call('你好', 'Hello')).catch((e) => e);

    expect(err).toMatchObject({ type: 'LlmBadResponse' });
    expect(err.message).toContain(kiwi.url);
    expect(err.message).toContain('scores[0]');
    // Retryable like a malformed chat completion: the client's attempts, then Temporal's.
    expect(kiwi.received).toHaveLength(LLM.callRetries + 1);
    expect(err.nonRetryable).toBe(false);
  });

  it('serves the second identical call from the durable cache, even in a new worker, without a request', async () => {
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    const c = call('Guten Abend', 'Good evening');
    const first = await chatFor({ baseUrl: kiwi.url, api: 'score' })(c);
    // A new client over the same cache directory: what a restarted worker sees after the first one was killed.
    const again = await chatFor({ baseUrl: kiwi.url, api: 'score' })(c);

    expect(kiwi.received).toHaveLength(1);
    expect(again).toEqual({ ...first, cached: true });
    expect(await requestCacheFor({ stateDir: cacheDir }).get(requestCacheKey('wmt22-cometkiwi-da', c, 'score'))).toEqual({
      texts: first.texts,
      finishReasons: ['stop'],
      usage: { promptTokens: 0, completionTokens: 0 },
    });
    expect(usage).toMatchObject({ calls: 2, cachedCalls: 1 });
  });

  it('refuses n > 1 and calls that are not a [user, assistant] pair before sending anything', async () => {
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    const chat = chatFor({ baseUrl: kiwi.url, api: 'score' });
    const many = await chat({ ...call('a', 'b'), n: 4 }).catch((e) => e);
    expect(many).toMatchObject({ type: 'LlmBadRequest', nonRetryable: true });
    expect(many.message).toContain('n = 4');
    const judgeStyle = await chat({ ...call('a', 'b'), messages: [{ role: 'user', content: 'Rate this answer 1-10: b' }] }).catch((e) => e);
    expect(judgeStyle).toMatchObject({ type: 'LlmBadRequest', nonRetryable: true });
    expect(judgeStyle.message).toContain('[user]');
    expect(kiwi.received).toHaveLength(0);
  });

  it('a refused connection and a service that never answers are retryable failures', async () => {
    const gone = await startKiwiService();
    await gone.close();
    const refused = await chatFor({ baseUrl: gone.url, api: 'score' })(call('x', 'y')).catch((e) => e);
    expect(refused).toMatchObject({ type: 'LlmConnectionError', nonRetryable: false });
    expect(refused.message).toContain(gone.url);
    expect(sleeps).toHaveLength(LLM.callRetries);

    const silent = await startServer(() => {}); // reads the request, never answers
    servers.push(silent);
    const timedOut = await chatFor(
      { baseUrl: silent.url, api: 'score' },
      { ...LLM, requestTimeoutSeconds: 0.3, callRetries: 0 },
    )(call('x', 'y')).catch((e) => e);
    expect(timedOut).toMatchObject({ type: 'LlmTimeout', nonRetryable: false });
    expect(timedOut.message).toContain(silent.url);
  });
});

/** The vLLM pooling stand-in (../helpers/vllm-pooling.ts), closed after each test. */
async function startVllmPoolingStandIn(data: unknown) {
  const server = await startPooling(data);
  servers.push(server);
  return server;
}

describe('reward API: a reward model behind vLLM pooling (stand-in server)', () => {
  const rm = { model: 'Skywork/Skywork-Reward-V2-Llama-3.1-8B', cacheId: 'Skywork/Skywork-Reward-V2-Llama-3.1-8B' };

  it('posts the conversation to /pooling at the server root and reads the sequence reward', async () => {
    const vllm = await startVllmPoolingStandIn([3.4375]);
    const c = call('What is the capital of France?', 'Paris.');
    const out = await chatFor({ baseUrl: `${vllm.url}/v1`, api: 'reward', ...rm })(c);

    expect(vllm.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /pooling']);
    expect(vllm.received[0].body).toEqual({
      model: rm.model,
      messages: [
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: 'Paris.' },
      ],
      use_activation: false,
    });
    expect(vllm.received[0].headers['x-collab-request-key']).toBe(requestCacheKey(rm.cacheId, c, 'reward'));
    expect(out).toEqual({ texts: ['3.4375'], finishReasons: ['stop'], usage: { promptTokens: 37, completionTokens: 0 }, cached: false });
    expect(usage.paidPromptTokens).toBe(37);
  });

  it("reads a token reward model's reward at the last token", async () => {
    const vllm = await startVllmPoolingStandIn([[0.25], [-1.5], [-0.75]]);
    const out = await chatFor({ baseUrl: `${vllm.url}/v1`, api: 'reward', ...rm })(call('2+2?', '4'));
    expect(out.texts).toEqual(['-0.75']);
  });

  it('a pooling answer that is not one reward (an embedding, class probabilities) is a bad response', async () => {
    const vllm = await startVllmPoolingStandIn([0.12, 0.88]);
    const err = await chatFor({ baseUrl: vllm.url, api: 'reward', ...rm }, { ...LLM, callRetries: 0 })(call('q', 'r')).catch((e) => e);
    expect(err).toMatchObject({ type: 'LlmBadResponse' });
    expect(err.message).toContain(vllm.url);
    expect(err.message).toContain('[0.12,0.88]');
  });
});

describe('how recipes see a scoring endpoint', () => {
  it("the returned Chat's api is the endpoint's (chat when it names none)", () => {
    const base = { baseUrl: 'http://127.0.0.1:1' };
    expect(chatFor(base).api).toBe('chat');
    expect(chatFor({ ...base, api: 'chat' }).api).toBe('chat');
    expect(chatFor({ ...base, api: 'reward' }).api).toBe('reward');
    expect(chatFor({ ...base, api: 'score' }).api).toBe('score');
  });

  it("chat cache keys are unchanged; a scoring endpoint's keys differ, so a chat answer is never served as a score", async () => {
    const c = call('Translate: Guten Morgen', 'Good morning');
    // Computed by requestCacheKey before endpoints had an api: existing caches of chat endpoints stay valid.
    const chatKey = '2dc995b4c3fbd2a8b5e9197f3da3aa05b8c3d06e715591c55baf865930f3c95f';
    expect(requestCacheKey('wmt22-cometkiwi-da', c)).toBe(chatKey);
    expect(requestCacheKey('wmt22-cometkiwi-da', c, 'chat')).toBe(chatKey);
    expect(requestCacheKey('wmt22-cometkiwi-da', c, 'score')).not.toBe(chatKey);
    expect(requestCacheKey('wmt22-cometkiwi-da', c, 'reward')).not.toBe(chatKey);
    expect(requestCacheKey('wmt22-cometkiwi-da', c, 'reward')).not.toBe(requestCacheKey('wmt22-cometkiwi-da', c, 'score'));

    // A judge's answer to the same messages, cached under the same model name, must not come back as the score.
    await requestCacheFor({ stateDir: cacheDir }).put(chatKey, {
      texts: ['9'],
      finishReasons: ['stop'],
      usage: { promptTokens: 10, completionTokens: 1 },
    });
    const kiwi = await startKiwiService();
    servers.push(kiwi);
    const out = await chatFor({ baseUrl: kiwi.url, api: 'score' })(c);
    expect(out.cached).toBe(false);
    expect(kiwi.received).toHaveLength(1);
    expect(out.texts).toEqual([String(kiwiScore('Translate: Guten Morgen', 'Good morning'))]);
  });
});

describe('config: models.<role> external endpoints', () => {
  it('an endpoint with api: score and a path parses, and reaches the activities as its EndpointRef', () => {
    const role = modelRoleSchema.parse({
      kind: 'external',
      endpoint: { baseUrl: 'http://127.0.0.1:8001', model: 'wmt22-cometkiwi-da', api: 'score', path: '/predict/' },
    });
    expect(role).toEqual({
      kind: 'external',
      endpoint: { baseUrl: 'http://127.0.0.1:8001', model: 'wmt22-cometkiwi-da', api: 'score', path: '/predict/', maxConcurrency: 32 },
    });
    if (role.kind !== 'external') throw new Error('unreachable');
    expect(externalEndpointRef(role.endpoint)).toEqual({
      baseUrl: 'http://127.0.0.1:8001',
      model: 'wmt22-cometkiwi-da',
      cacheId: 'wmt22-cometkiwi-da',
      apiKeyEnv: undefined,
      maxConcurrency: 32,
      api: 'score',
      path: '/predict/',
    });
  });

  it('an endpoint that names no api is chat, and its EndpointRef carries no api (as before)', () => {
    const role = modelRoleSchema.parse({ kind: 'external', endpoint: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'judge' } });
    if (role.kind !== 'external') throw new Error('unreachable');
    expect(role.endpoint.api).toBe('chat');
    expect(externalEndpointRef(role.endpoint)).not.toHaveProperty('api');
  });

  it('an unknown api, a path without api: score, or a relative path fail naming the field', () => {
    const issues = (endpoint: object) => {
      const r = modelRoleSchema.safeParse({ kind: 'external', endpoint: { baseUrl: 'http://127.0.0.1:8001', model: 'rm', ...endpoint } });
      expect(r.success).toBe(false);
      return r.error!.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    };
    expect(issues({ api: 'bogus' })).toEqual([{ path: 'endpoint.api', message: expect.stringContaining('"chat"') }]);
    expect(issues({ api: 'reward', path: '/score' })).toEqual([{ path: 'endpoint.path', message: expect.stringContaining('api: score') }]);
    expect(issues({ api: 'score', path: 'predict' })).toEqual([{ path: 'endpoint.path', message: expect.stringContaining('"/"') }]);
  });
});
