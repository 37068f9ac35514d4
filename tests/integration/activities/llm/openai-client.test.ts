// The chat path goes through the openai SDK (activities/llm/openai-client.ts) as a model server or proxy sees it: the
// SDK's headers, the bearer key from the endpoint's apiKeyEnv (none for a keyless endpoint), and the project's
// retries alone — one request per attempt, never the SDK's own. A real HTTP server records every request.
import { mkdtempSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LlmConfig } from '../../../../contracts/config';
import type { EndpointRef } from '../../../../contracts/endpoint';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { type ChatClientOptions, createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import type { ChatCall, RequestCache, TokenUsage } from '../../../../activities/llm/types';
import { json, startServer, type TestServer } from '../../../helpers/recording-server';

/** HTTP statuses to answer the next requests with, before answering 200. */
let failures: number[] = [];
let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const status = failures.shift();
    if (status) return json(res, status, { error: { message: `scripted ${status}` } });
    json(res, 200, {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: (req.body as { model: string }).model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
  });
});
afterAll(() => server?.close());
beforeEach(() => {
  server.received.length = 0;
  failures = [];
});

const call = (content: string): ChatCall => ({
  messages: [{ role: 'user', content }],
  decoding: { temperature: 0, maxTokens: 4 },
  sampleKey: content,
});

/** `more`: a cache, a usage counter or a budget of the test's own. */
function chat(endpoint: Partial<EndpointRef>, llm: Partial<LlmConfig> = {}, more: Partial<ChatClientOptions> = {}) {
  return createChat({
    endpoint: { baseUrl: `${server.url}/v1`, model: 'm', cacheId: 'm', maxConcurrency: 4, ...endpoint },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'openai-client-')) }),
    llm: { requestTimeoutSeconds: 5, callRetries: 2, maxRetryDelaySeconds: 1, outageToleranceSeconds: 0, ...llm },
    usage: newUsageCounter(),
    sleep: async () => {},
    ...more,
  });
}

describe('chat through the openai SDK', () => {
  it("sends the SDK's headers and the bearer key named by apiKeyEnv", async () => {
    process.env.OPENAI_CLIENT_TEST_KEY = 'sk-test-123';
    const answer = await chat({ apiKeyEnv: 'OPENAI_CLIENT_TEST_KEY' })(call('hello'));
    expect(answer.texts).toEqual(['ok']);
    expect(server.received).toHaveLength(1);
    const [r] = server.received;
    expect(r.url).toBe('/v1/chat/completions');
    expect(r.headers['user-agent']).toMatch(/^OpenAI\/JS \d+\.\d+\.\d+/);
    expect(r.headers['x-stainless-lang']).toBe('js');
    expect(r.headers['x-stainless-package-version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.headers['x-stainless-runtime']).toBe('node');
    expect(r.headers['x-stainless-retry-count']).toBe('0');
    expect(r.headers.authorization).toBe('Bearer sk-test-123');
    expect(r.headers['x-collab-request-key']).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body).toMatchObject({ model: 'm', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 });
  });

  it('sends no Authorization to an endpoint without apiKeyEnv', async () => {
    await chat({})(call('keyless'));
    expect(server.received).toHaveLength(1);
    expect(server.received[0].headers.authorization).toBeUndefined();
    expect(server.received[0].headers['x-stainless-lang']).toBe('js');
  });

  it("retries as the project does: one request per attempt, the SDK's own retries off", async () => {
    failures = [500, 503, 429];
    // callRetries 2: three attempts, all failing — and three requests, not the SDK's three per attempt.
    await expect(chat({}, { callRetries: 2 })(call('flaky'))).rejects.toThrow(/HTTP 429/);
    expect(server.received).toHaveLength(3);
    expect(server.received.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '0', '0']);

    server.received.length = 0;
    failures = [500];
    await expect(chat({}, { callRetries: 0 })(call('once'))).rejects.toThrow(/HTTP 500/);
    expect(server.received).toHaveLength(1);

    server.received.length = 0;
    failures = [400];
    await expect(chat({}, { callRetries: 2 })(call('bad'))).rejects.toThrow(/HTTP 400/);
    expect(server.received).toHaveLength(1);
  });

  // A worker killed at any moment may lose only answers not yet in the cache; the endpoint's slot is held until the
  // cache has the answer, so those are at most maxConcurrency (the bound tests/e2e/collabllm-loop.test.ts checks).
  it("holds the endpoint's slot until the cache has kept the answer", async () => {
    let release!: () => void;
    const kept = new Promise<void>((r) => (release = r));
    let putStarted!: () => void;
    const firstPut = new Promise<void>((r) => (putStarted = r));
    const slowCache: RequestCache = {
      get: async () => undefined,
      put: async () => {
        putStarted();
        await kept;
      },
    };
    const send = chat({ maxConcurrency: 1, model: 'slot' }, {}, { cache: slowCache });
    const both = Promise.all([send(call('first')), send(call('second'))]);
    try {
      await firstPut;
      // Answered, not yet kept: the second call waits for the slot. Had the slot been freed, the second request would
      // reach the server in milliseconds; half a second to show it does is enough, and no wait can fail this test.
      for (let i = 0; i < 25 && server.received.length < 2; i++) await delay(20);
      expect(server.received).toHaveLength(1);
    } finally {
      release();
    }
    expect((await both).map((a) => a.texts)).toEqual([['ok'], ['ok']]);
    expect(server.received).toHaveLength(2);
  });

  it("fails a call whose answer the cache cannot keep with the cache's error, sending it once and charging it", async () => {
    const fullDisk: RequestCache = {
      get: async () => undefined,
      put: async () => Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
    };
    const charged: Array<TokenUsage | undefined> = [];
    const usage = newUsageCounter();
    const send = chat(
      { model: 'full', cacheId: 'full' },
      { callRetries: 2 },
      {
        cache: fullDisk,
        usage,
        budget: {
          reserve: async () => async (used) => void charged.push(used),
          record: async () => {},
        },
      },
    );
    await expect(send(call('kept?'))).rejects.toThrow(/ENOSPC/);
    expect(server.received).toHaveLength(1); // not retried: the endpoint answered
    expect(usage.failedCalls).toBe(0); // and is not counted as failing
    expect(charged).toEqual([{ promptTokens: 3, completionTokens: 1 }]); // the budget pays what the answer used
  });
});
