// A model server the loop deployed (EndpointRef.served) that refuses connections is gone, not restarting: nothing but
// a new deploy starts it again (activities/llm/served-gone.ts). Its calls fail within seconds as the non-retryable
// ServedEndpointGone, which makes the iteration deploy again, instead of waiting out llm.outageToleranceSeconds.
// Against a real HTTP endpoint stopped and started on its port.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import { SERVED_GONE_GRACE_MS } from '../../../../activities/llm/served-gone';
import type { ChatCall } from '../../../../activities/llm/types';
import type { LlmConfig } from '../../../../contracts/config';
import { NON_RETRYABLE_ERRORS } from '../../../../contracts/errors';
import { type RestartableEndpoint, startGatewayProxy, startRestartableEndpoint } from '../../../helpers/endpoint';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The default outage tolerance: a served endpoint's refusals must not be waited out for its length.
const llm: LlmConfig = { requestTimeoutSeconds: 5, callRetries: 0, maxRetryDelaySeconds: 1, outageToleranceSeconds: 600 };
// One request per test: the client shares identical calls in flight (client.ts), so no test waits on another's.
const call = (sampleKey: string): ChatCall => ({
  messages: [{ role: 'user', content: 'Which planet is largest?' }],
  decoding: { temperature: 0, maxTokens: 8 },
  sampleKey,
});

let endpoint: RestartableEndpoint;
afterEach(async () => {
  await endpoint?.close();
});

function servedChat(url: string) {
  return createChat({
    endpoint: { baseUrl: `${url}/v1`, model: 'counted-model', cacheId: 'counted-model', maxConcurrency: 2, served: true },
    cache: requestCacheFor({ stateDir: mkdtempSync(path.join(os.tmpdir(), 'served-gone-')) }),
    llm,
    usage: newUsageCounter(),
    role: 'agent',
  });
}

describe('a loop-served endpoint', () => {
  it('that refuses connections fails within seconds as ServedEndpointGone, naming the endpoint and role', async () => {
    endpoint = await startRestartableEndpoint();
    await endpoint.stop();
    const started = Date.now();
    const err = await servedChat(endpoint.url)(call('gone')).catch((e) => e);
    const waited = Date.now() - started;
    expect(err).toMatchObject({ type: 'ServedEndpointGone', nonRetryable: true });
    expect(err.message).toContain(`${endpoint.url}/v1 (model counted-model, role agent)`);
    expect(err.message).toMatch(/the model server the loop deployed is gone \(connection refused for \d+ s\)/);
    expect(waited).toBeGreaterThanOrEqual(SERVED_GONE_GRACE_MS); // the grace was given…
    expect(waited).toBeLessThan(60_000); // …and the 600 s outage tolerance was not waited out
    expect(NON_RETRYABLE_ERRORS).toContain('ServedEndpointGone'); // no activity retry asks it again
  });

  it('back within the grace is answered, once', async () => {
    endpoint = await startRestartableEndpoint();
    await endpoint.stop();
    const answer = servedChat(endpoint.url)(call('back'));
    await sleep(SERVED_GONE_GRACE_MS / 5);
    await endpoint.start();
    expect((await answer).texts).toHaveLength(1);
    expect(endpoint.stats()).toMatchObject({ completed: 1, duplicates: 0 });
  });

  it('answering 503 for longer than the grace is still waited for: a living server that is busy', async () => {
    endpoint = await startRestartableEndpoint();
    const until = Date.now() + SERVED_GONE_GRACE_MS + 2_000;
    const proxy = await startGatewayProxy(endpoint, () => (Date.now() < until ? 503 : undefined));
    try {
      const out = await servedChat(proxy.url)(call('busy'));
      expect(out.texts).toHaveLength(1);
      expect(endpoint.stats()).toMatchObject({ completed: 1, duplicates: 0 });
    } finally {
      await proxy.close();
    }
  });
});
