// Injected faults as the real `openai` client sees them, and their seeded, reproducible rate.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createFaultPlan } from '../../../../activities/serving/faults';
import {
  echoPolicy,
  startOpenAICompatibleServer,
  type FaultOptions,
  type RunningServer,
} from '../../../../activities/serving/openai-compatible-server';

const open: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function start(faults: FaultOptions, clientOpts: { timeout?: number } = {}) {
  const server = await startOpenAICompatibleServer({ modelName: 'sim-model', policy: echoPolicy, faults });
  open.push(server);
  return { server, client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0, ...clientOpts }) };
}

const ask = (client: OpenAI, key: string) =>
  client.chat.completions.create(
    { model: 'sim-model', messages: [{ role: 'user', content: key }] },
    { headers: { 'x-collab-request-key': key } },
  );

/** The code of the network error under an SDK connection error (undici wraps it in "fetch failed"). */
function networkCode(err: unknown): string | undefined {
  for (let e = err as { cause?: unknown; code?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.code === 'string' && e.code !== 'UND_ERR_SOCKET') return e.code;
  return undefined;
}

describe('injected faults at rate 1', () => {
  it("'429' is a RateLimitError with retry-after headers", async () => {
    const { client, server } = await start({ rate: 1, kinds: ['429'], retryAfterMs: 1200 });
    const err = await ask(client, 'k').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.headers.get('retry-after-ms')).toBe('1200');
    expect(err.headers.get('retry-after')).toBe('2');
    expect(err.code).toBe('rate_limit_exceeded');
    expect(server.stats()).toMatchObject({ received: 1, faulted: 1, completed: 0, byKey: {} });
  });

  it("'429' defaults to retry-after-ms 50", async () => {
    const { client } = await start({ rate: 1, kinds: ['429'] });
    const err = await ask(client, 'k').catch((e) => e);
    expect([err.headers.get('retry-after-ms'), err.headers.get('retry-after')]).toEqual(['50', '1']);
  });

  it("'500' is an InternalServerError", async () => {
    const { client, server } = await start({ rate: 1, kinds: ['500'] });
    const err = await ask(client, 'k').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(500);
    expect(server.stats()).toMatchObject({ faulted: 1, completed: 0, byKey: {} });
  });

  it("'reset' drops the connection: APIConnectionError from ECONNRESET", async () => {
    const { client, server } = await start({ rate: 1, kinds: ['reset'] });
    const err = await ask(client, 'k').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(networkCode(err)).toBe('ECONNRESET');
    expect(server.stats()).toMatchObject({ faulted: 1, completed: 0, byKey: {} });
  });

  it("'timeout' holds the request (the client's timeout fires) and close() does not wait for it", async () => {
    // Held for 10 minutes, longer than any test may run: close() returning at all, and the held request failing
    // with a dropped connection, prove that close() cut it rather than waiting out the hold.
    const { client, server } = await start({ rate: 1, kinds: ['timeout'], holdMs: 600_000 }, { timeout: 400 });
    const t0 = performance.now();
    const err = await ask(client, 'k').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(350); // not before the client's timeout (a lower bound)
    const pending = ask(new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 }), 'k2').catch((e) => e);
    while (server.stats().faulted < 2) await new Promise((r) => setTimeout(r, 5)); // the second request is held now
    await server.close();
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(server.stats()).toMatchObject({ faulted: 2, completed: 0, byKey: {} });
  });

  it("'timeout' resets the connection after the hold", async () => {
    const { client } = await start({ rate: 1, kinds: ['timeout'], holdMs: 300 });
    const t0 = performance.now();
    const err = await ask(client, 'k').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(networkCode(err)).toBe('ECONNRESET');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
  });
});

describe('fault rate', () => {
  async function pattern(seed: number): Promise<{ outcomes: string[]; stats: ReturnType<RunningServer['stats']> }> {
    const { client, server } = await start({ rate: 0.2, kinds: ['429', '500', 'reset'], seed });
    const outcomes: string[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await ask(client, `k${i}`).then(
        () => 'ok',
        (e) => (e instanceof OpenAI.APIConnectionError ? 'reset' : String(e.status)),
      );
      outcomes.push(r);
    }
    return { outcomes, stats: server.stats() };
  }

  it('fails about 20% of 200 requests, reproducibly for a seed, and never counts a faulted one', async () => {
    const a = await pattern(42);
    const failed = a.outcomes.filter((o) => o !== 'ok').length;
    expect(failed).toBeGreaterThanOrEqual(20);
    expect(failed).toBeLessThanOrEqual(60);
    expect(new Set(a.outcomes.filter((o) => o !== 'ok'))).toEqual(new Set(['429', '500', 'reset']));
    expect(a.stats).toMatchObject({ received: 200, faulted: failed, completed: 200 - failed, duplicates: 0 });
    expect(Object.keys(a.stats.byKey).sort()).toEqual(a.outcomes.flatMap((o, i) => (o === 'ok' ? [`k${i}`] : [])).sort());

    expect((await pattern(42)).outcomes).toEqual(a.outcomes);
    expect((await pattern(43)).outcomes).not.toEqual(a.outcomes);
  });

  it('the fault plan is a pure function of seed and arrival index', () => {
    const draw = (seed: number, rate: number) => {
      const next = createFaultPlan({ rate, kinds: ['429', '500'], seed });
      return Array.from({ length: 1000 }, () => next() ?? '-');
    };
    expect(draw(7, 0.2)).toEqual(draw(7, 0.2));
    expect(draw(7, 0).every((k) => k === '-')).toBe(true);
    expect(draw(7, 1).every((k) => k !== '-')).toBe(true);
    const hits = draw(7, 0.2).filter((k) => k !== '-').length;
    expect(hits).toBeGreaterThan(150);
    expect(hits).toBeLessThan(250);
    expect(() => createFaultPlan({ rate: 0.5, kinds: ['418' as never] })).toThrow(/unknown 418/);
  });
});
