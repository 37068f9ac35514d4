// The LLM client's metrics (activities/metrics.ts) as an operator reads them: answered calls, cache hits, paid
// requests and tokens, and failed requests by error kind — retried ones apart from the ones given up. A real HTTP
// endpoint answers; the meter records what the worker's Prometheus exporter would receive.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmConfig } from '../../../../contracts/config';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import { withRunLabel } from '../../../../activities/metrics';
import type { ChatCall } from '../../../../activities/llm/types';
import { recordMetrics, type RecordingMeter } from '../../../helpers/recording-meter';
import { json, startServer, type TestServer } from '../../../helpers/recording-server';

/** Answers the chat requests it is given, after the scripted failures (one HTTP status per request). */
let failures: number[] = [];
let server: TestServer;
let metrics: RecordingMeter;
beforeAll(async () => {
  metrics = recordMetrics();
  server = await startServer((req, res) => {
    const status = failures.shift();
    if (status) return json(res, status, { error: { message: `scripted ${status}` } });
    const model = (req.body as { model: string }).model;
    if (model !== 'm1') return json(res, 404, { error: { message: `no model ${model}` } });
    json(res, 200, {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
  });
});
afterAll(async () => {
  metrics.stop();
  await server?.close();
});

const LLM: LlmConfig = { requestTimeoutSeconds: 5, callRetries: 2, maxRetryDelaySeconds: 1, outageToleranceSeconds: 600 };
const call = (content: string): ChatCall => ({
  messages: [{ role: 'user', content }],
  decoding: { temperature: 0, maxTokens: 4 },
  sampleKey: content,
});

function chat(model: string, served = false, usage = newUsageCounter()) {
  return createChat({
    endpoint: { baseUrl: `${server.url}/v1`, model, cacheId: model, maxConcurrency: 2, served },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'client-metrics-')) }),
    llm: LLM,
    usage,
    role: 'critic',
    sleep: async () => {},
  });
}

describe('LLM client metrics', () => {
  it('counts calls, cache hits, paid tokens and retries by kind, labelled by run, role and model', async () => {
    const c = chat('m1');
    failures = [500, 429];
    await withRunLabel('r1', async () => {
      await c(call('a'));
      await c(call('a')); // from the cache
    });
    const labels = { run: 'r1', role: 'critic', endpoint: 'm1' };
    expect(metrics.sum('collab_loop_llm_calls', labels)).toBe(2);
    expect(metrics.sum('collab_loop_llm_cache_hits', labels)).toBe(1);
    expect(metrics.sum('collab_loop_llm_requests', labels)).toBe(1);
    expect(metrics.sum('collab_loop_llm_prompt_tokens', labels)).toBe(7);
    expect(metrics.sum('collab_loop_llm_completion_tokens', labels)).toBe(2);
    expect(metrics.sum('collab_loop_llm_retries', { ...labels, kind: 'LlmServerError' })).toBe(1);
    expect(metrics.sum('collab_loop_llm_retries', { ...labels, kind: 'LlmRateLimited' })).toBe(1);
    expect(metrics.sum('collab_loop_llm_failures', labels)).toBe(0);
  });

  it('counts a call given up as a failure of its kind, and nothing as paid', async () => {
    const c = chat('missing');
    await expect(withRunLabel('r2', () => c(call('b')))).rejects.toThrow(/no model missing/);
    const labels = { run: 'r2', role: 'critic', endpoint: 'missing' };
    expect(metrics.sum('collab_loop_llm_failures', { ...labels, kind: 'LlmNotFound' })).toBe(1);
    expect(metrics.sum('collab_loop_llm_retries', labels)).toBe(0);
    expect(metrics.sum('collab_loop_llm_requests', labels)).toBe(0);
    expect(metrics.sum('collab_loop_llm_calls', labels)).toBe(0);
  });

  it('tells sent calls from answers of the durable cache and answers shared with an identical call in flight', async () => {
    const usage = newUsageCounter();
    const c = chat('m1', false, usage);
    const before = server.received.length;
    await Promise.all([c(call('d')), c(call('d')), c(call('d'))]); // one request, two sharing it
    await c(call('d')); // from the cache
    expect(server.received.length - before).toBe(1);
    expect(usage).toMatchObject({ calls: 4, cachedCalls: 3, sharedCalls: 2 });
  });

  it('labels a checkpoint the loop serves by role and iteration, not by its model id', async () => {
    // A checkpoint fetched from S3 is served under its content hash (sim-<64 hex>); the label stays readable.
    await withRunLabel('r3', () => chat('m1', true)(call('c')), 3);
    expect(metrics.sum('collab_loop_llm_calls', { run: 'r3', role: 'critic', endpoint: 'critic@iter-3' })).toBe(1);
    expect(metrics.sum('collab_loop_llm_calls', { run: 'r3', endpoint: 'm1' })).toBe(0);
  });
});
