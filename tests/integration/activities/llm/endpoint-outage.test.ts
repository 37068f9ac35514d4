// An endpoint that is down (a restarting vLLM or proxy: refused or reset connections) is waited for per call, for up
// to llm.outageToleranceSeconds, instead of spending the call's few retries; a real HTTP endpoint stopped and started
// again on its port.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import type { ChatCall } from '../../../../activities/llm/types';
import type { LlmConfig } from '../../../../contracts/config';
import { type RestartableEndpoint, startGatewayProxy, startRestartableEndpoint } from '../../../helpers/endpoint';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// No call retries at all: whatever is waited out here is waited out as an outage.
const llm = (outageToleranceSeconds: number): LlmConfig => ({
  requestTimeoutSeconds: 5,
  callRetries: 0,
  maxRetryDelaySeconds: 1,
  outageToleranceSeconds,
});
const call: ChatCall = {
  messages: [{ role: 'user', content: 'Which planet is largest?' }],
  decoding: { temperature: 0, maxTokens: 8 },
  sampleKey: 'q0',
};

let endpoint: RestartableEndpoint;
afterEach(async () => {
  await endpoint?.close();
});

function chatOn(e: RestartableEndpoint, config: LlmConfig, signal?: AbortSignal) {
  return createChat({
    endpoint: { baseUrl: `${e.url}/v1`, model: 'counted-model', cacheId: 'counted-model', maxConcurrency: 2 },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'endpoint-outage-')) }),
    llm: config,
    usage: newUsageCounter(),
    signal,
  });
}

describe('an LLM endpoint that is down', () => {
  it('is waited for until it is back on its port, and the call is answered once', async () => {
    endpoint = await startRestartableEndpoint();
    await endpoint.stop();
    const answer = chatOn(endpoint, llm(600))(call);
    await sleep(3_000);
    await endpoint.start();
    const out = await answer;
    expect(out.texts).toHaveLength(1);
    expect(endpoint.stats()).toMatchObject({ completed: 1, duplicates: 0 });
  });

  it('fails after llm.outageToleranceSeconds with a message naming the endpoint and the field', async () => {
    endpoint = await startRestartableEndpoint();
    await endpoint.stop();
    const err = await chatOn(endpoint, llm(1))(call).catch((e) => e);
    expect(err).toMatchObject({ type: 'LlmConnectionError', nonRetryable: false });
    expect(err.message).toContain(endpoint.url);
    expect(err.message).toMatch(/still failing after 1 s; llm\.outageToleranceSeconds is 1\)/);
  });

  it('behind a proxy answering 502, 503 and 504 while it restarts, is waited for too', async () => {
    endpoint = await startRestartableEndpoint();
    const gateway = [502, 503, 504];
    const proxy = await startGatewayProxy(endpoint, () => gateway.shift());
    try {
      const viaProxy = { ...endpoint, url: proxy.url };
      expect((await chatOn(viaProxy, llm(600))(call)).texts).toHaveLength(1);
      expect(gateway).toEqual([]);
      expect(endpoint.stats()).toMatchObject({ completed: 1, duplicates: 0 });
    } finally {
      await proxy.close();
    }
  });

  it('is not what a 500 or a 429 means: those keep the call retries', async () => {
    for (const kind of ['500', '429'] as const) {
      endpoint = await startRestartableEndpoint({ faults: { rate: 1, kinds: [kind] } });
      const err = await chatOn(endpoint, llm(600))(call).catch((e) => e);
      expect(err.message).not.toContain('outageToleranceSeconds');
      expect(endpoint.stats().faulted).toBe(1); // callRetries 0: asked once, not waited for
      await endpoint.close();
    }
  });

  it('stops waiting when the activity is cancelled', async () => {
    endpoint = await startRestartableEndpoint();
    await endpoint.stop();
    const cancel = new AbortController();
    const answer = chatOn(endpoint, llm(600), cancel.signal)(call).catch((e) => e);
    await sleep(1_000);
    cancel.abort(new Error('activity cancelled'));
    // Settles long before the tolerance: the wait ends with the cancellation.
    expect(await answer).toMatchObject({ message: 'activity cancelled' });
  });
});
