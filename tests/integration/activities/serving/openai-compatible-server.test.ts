// The OpenAI-compatible server against the real `openai` client: response shape, errors, request counting and the
// capacity queue. The answers come from the echo policy or a counting stand-in policy (no model is involved).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  echoPolicy,
  startOpenAICompatibleServer,
  type Policy,
  type RunningServer,
  type ServerOptions,
} from '../../../../activities/serving/openai-compatible-server';

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const open: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function start(opts: Partial<ServerOptions> = {}): Promise<{ server: RunningServer; client: OpenAI }> {
  const server = await startOpenAICompatibleServer({ modelName: 'sim-model', policy: echoPolicy, ...opts });
  open.push(server);
  return { server, client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 }) };
}

const ask = (client: OpenAI, content: string, extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {}, key?: string) =>
  client.chat.completions.create(
    { model: 'sim-model', messages: [{ role: 'user', content }], ...extra },
    key ? { headers: { 'x-collab-request-key': key } } : undefined,
  );

/** Resolves once the server has taken in `n` chat requests in all (a request is queued in the same tick). */
async function received(server: RunningServer, n: number): Promise<void> {
  while (server.stats().received < n) await new Promise((r) => setTimeout(r, 1));
}

const post = (server: RunningServer, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('OpenAI-compatible server', () => {
  it('answers a chat completion in the OpenAI shape, with usage', async () => {
    const { client, server } = await start();
    const r = await ask(client, 'what is two plus two');
    expect(r.object).toBe('chat.completion');
    expect(r.id).toMatch(/^chatcmpl-/);
    expect(r.model).toBe('sim-model');
    expect(typeof r.created).toBe('number');
    expect(r.choices).toHaveLength(1);
    expect(r.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant' } });
    expect(r.choices[0].message.content).toMatch(/^echo [0-9a-f]{12} #0$/);
    expect(r.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
    // Deterministic: the same last message gets the same text; a different one does not.
    expect((await ask(client, 'what is two plus two')).choices[0].message.content).toBe(r.choices[0].message.content);
    expect((await ask(client, 'what is three plus three')).choices[0].message.content).not.toBe(r.choices[0].message.content);
    expect(server.stats()).toMatchObject({ received: 3, completed: 3, faulted: 0, inFlight: 0 });
  });

  it('returns n choices with summed completion tokens', async () => {
    const { client } = await start();
    const r = await ask(client, 'hello', { n: 3 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(new Set(r.choices.map((c) => c.message.content)).size).toBe(3);
    expect(r.usage).toEqual({ prompt_tokens: 1, completion_tokens: 9, total_tokens: 10 });
  });

  it('passes decoding parameters to the policy', async () => {
    const seen: unknown[] = [];
    const policy: Policy = (req) => {
      seen.push({ ...req });
      return echoPolicy(req);
    };
    const { client } = await start({ policy });
    await ask(client, 'a', { n: 2, seed: 7, temperature: 0.3, max_tokens: 64 });
    await ask(client, 'b');
    expect(seen).toEqual([
      { model: 'sim-model', messages: [{ role: 'user', content: 'a' }], n: 2, seed: 7, temperature: 0.3, maxTokens: 64 },
      { model: 'sim-model', messages: [{ role: 'user', content: 'b' }], n: 1, seed: undefined, temperature: 1, maxTokens: 1024 },
    ]);
  });

  it('serves /health and lists its one model as a simulator', async () => {
    const { client, server } = await start();
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    expect(models).toEqual([{ id: 'sim-model', object: 'model', created: 0, owned_by: 'collab-loop-simulator' }]);
  });

  it('rejects a wrong model name with 404 naming the served model', async () => {
    const { client, server } = await start();
    const err = await client.chat.completions
      .create({ model: 'sim-model-v2', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.status).toBe(404);
    expect(err.message).toContain('"sim-model"');
    expect(err.message).toContain('sim-model-v2');
    expect(err.code).toBe('model_not_found');
    expect(server.stats()).toMatchObject({ received: 1, completed: 0, byKey: {} });
  });

  it('requires the API key when one is set', async () => {
    const { server } = await start({ apiKey: 'sekret' });
    const wrong = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'nope', maxRetries: 0 });
    const err = await ask(wrong, 'hi').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    expect((await wrong.models.list().catch((e) => e)).status).toBe(401);
    const missing = await post(server, JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }));
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as ErrorBody).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    const right = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sekret', maxRetries: 0 });
    expect((await ask(right, 'hi')).choices).toHaveLength(1);
    expect((await fetch(`${server.url}/health`)).status).toBe(200); // readiness probes carry no key
    expect(server.stats()).toMatchObject({ received: 3, completed: 1 });
  });

  it('answers malformed requests with 400 in the OpenAI error shape', async () => {
    const { server, client } = await start();
    const cases: Array<[string, string]> = [
      ['{not json', 'not valid JSON'],
      ['[1,2]', 'JSON object'],
      [JSON.stringify({ model: 'sim-model' }), '"messages"'],
      [JSON.stringify({ model: 'sim-model', messages: [] }), '"messages"'],
      [JSON.stringify({ model: 'sim-model', messages: ['hi'] }), 'messages[0]'],
      [JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), '"model"'],
      [JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], n: 0 }), '"n"'],
      [JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' }), '"temperature"'],
      [JSON.stringify({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], stream: true }), 'streaming'],
    ];
    for (const [body, words] of cases) {
      const r = await post(server, body);
      expect(r.status, body).toBe(400);
      const e = ((await r.json()) as ErrorBody).error;
      expect(e.type).toBe('invalid_request_error');
      expect(e.message).toContain(words);
      expect(Object.keys(e).sort()).toEqual(['code', 'message', 'param', 'type']);
    }
    const err = await client.chat.completions
      .create({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(server.stats()).toMatchObject({ received: cases.length + 1, completed: 0 });
    expect((await fetch(`${server.url}/v1/nothing`)).status).toBe(404);
  });

  it('answers 500 when the policy throws, without counting the request', async () => {
    const { client, server } = await start({
      policy: () => {
        throw new Error('no task matches this question');
      },
    });
    const err = await ask(client, 'hi').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.message).toContain('no task matches this question');
    expect(server.stats()).toMatchObject({ completed: 0, faulted: 0, byKey: {}, inFlight: 0 });
    expect((await ask(client, 'again').catch((e) => e)).status).toBe(500); // the slot was given back
  });
});

describe('request counting', () => {
  it('counts 200s by x-collab-request-key and reports duplicates', async () => {
    const { client, server } = await start();
    await ask(client, 'q1', {}, 'key-a');
    await ask(client, 'q2', {}, 'key-b');
    expect(server.stats()).toMatchObject({ byKey: { 'key-a': 1, 'key-b': 1 }, duplicates: 0, completed: 2 });
    await ask(client, 'q1', {}, 'key-a');
    await ask(client, 'q1', {}, 'key-a');
    expect(server.stats()).toMatchObject({ byKey: { 'key-a': 3, 'key-b': 1 }, duplicates: 2, completed: 4 });
  });

  it('without the header, keys requests by the canonical JSON of what determines the answer', async () => {
    const { client, server } = await start();
    await ask(client, 'same', { temperature: 0.5, seed: 3 });
    // Same request, keys in another order: same key.
    await post(server, '{"seed":3,"messages":[{"content":"same","role":"user"}],"temperature":0.5,"model":"sim-model"}');
    expect(Object.values(server.stats().byKey)).toEqual([2]);
    expect(server.stats().duplicates).toBe(1);
    await ask(client, 'same', { temperature: 0.5, seed: 4 }); // another seed is another request
    await ask(client, 'same', { temperature: 0.5, seed: 3, top_p: 0.9 });
    expect(Object.values(server.stats().byKey).sort()).toEqual([1, 1, 2]);
    expect(Object.keys(server.stats().byKey)[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('serves stats over HTTP and resets them', async () => {
    const { client, server } = await start();
    await ask(client, 'q', {}, 'k');
    const s = await (await fetch(`${server.url}/stats`)).json();
    expect(s).toMatchObject({ received: 1, completed: 1, faulted: 0, inFlight: 0, maxInFlight: 1, byKey: { k: 1 }, duplicates: 0 });
    expect((await fetch(`${server.url}/stats/reset`, { method: 'POST' })).status).toBe(200);
    expect(server.stats()).toEqual({ received: 0, completed: 0, faulted: 0, inFlight: 0, maxInFlight: 0, byKey: {}, duplicates: 0 });
    await ask(client, 'q', {}, 'k');
    expect(server.stats()).toMatchObject({ byKey: { k: 1 }, duplicates: 0 });
    server.resetStats();
    expect(server.stats().completed).toBe(0);
  });
});

describe('capacity and latency', () => {
  it('serves at most `capacity` requests at once; the rest wait', async () => {
    const { client, server } = await start({ capacity: 2, latencyMs: 100 });
    const t0 = performance.now();
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(client, `q${i}`, {}, `k${i}`)));
    const elapsed = performance.now() - t0;
    expect(replies).toHaveLength(8);
    expect(elapsed).toBeGreaterThanOrEqual(350); // 4 waves of 100 ms (minus timer slack)
    const s = server.stats();
    expect(s.maxInFlight).toBe(2);
    expect(s).toMatchObject({ completed: 8, inFlight: 0, duplicates: 0 });
  });

  it('queues in arrival order (FIFO)', async () => {
    const order: string[] = [];
    const policy: Policy = (req) => {
      order.push(String(req.messages[0].content));
      return echoPolicy(req);
    };
    const { client, server } = await start({ capacity: 1, latencyMs: 40, policy });
    const pending: Promise<unknown>[] = [];
    for (const [i, q] of ['a', 'b', 'c', 'd', 'e'].entries()) {
      pending.push(ask(client, q));
      await received(server, i + 1); // arrival order a..e: each one is in before the next is sent
    }
    await Promise.all(pending);
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('drops a request whose client gave up while it was queued, without holding a slot for it', async () => {
    const served: Array<[string, number]> = [];
    const policy: Policy = (req) => {
      served.push([String(req.messages[0].content), performance.now()]);
      return echoPolicy(req);
    };
    const { client, server } = await start({ capacity: 1, latencyMs: 300, policy });
    const first = ask(client, 'first', {}, 'first');
    await received(server, 1);
    const abort = new AbortController();
    const quitter = client.chat.completions
      .create(
        { model: 'sim-model', messages: [{ role: 'user', content: 'quit' }] },
        { signal: abort.signal, headers: { 'x-collab-request-key': 'quit' } },
      )
      .catch((e) => e);
    await received(server, 2); // queued behind 'first'
    abort.abort();
    expect(await quitter).toBeInstanceOf(OpenAI.APIUserAbortError);
    const last = ask(client, 'last', {}, 'last');
    await Promise.all([first, last]);
    expect(served.map(([q]) => q)).toEqual(['first', 'last']);
    // 'last' got the slot as soon as 'first' left it (one latency later), not after the quitter's latency too.
    expect(served[1][1] - served[0][1]).toBeLessThan(450);
    expect(server.stats()).toMatchObject({ received: 3, completed: 2, byKey: { first: 1, last: 1 }, inFlight: 0, maxInFlight: 1 });
  });

  it('answers the n-th request once the answer gate allows n, and every request once the gate file is gone', async () => {
    const gate = path.join(mkdtempSync(path.join(os.tmpdir(), 'gate-')), 'answers');
    writeFileSync(gate, '1');
    const { client, server } = await start({ answerGate: gate });
    await ask(client, 'a', {}, 'a');
    let bAnswered = false;
    const b = ask(client, 'b', {}, 'b').then((r) => {
      bAnswered = true;
      return r;
    });
    await received(server, 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(bAnswered).toBe(false);
    expect(server.stats()).toMatchObject({ completed: 1 });
    writeFileSync(gate, '2');
    await b;
    const c = ask(client, 'c', {}, 'c');
    rmSync(gate);
    await c;
    expect(server.stats()).toMatchObject({ completed: 3, byKey: { a: 1, b: 1, c: 1 } });
  });

  it('rejects an impossible capacity', async () => {
    await expect(startOpenAICompatibleServer({ modelName: 'm', policy: echoPolicy, capacity: 0 })).rejects.toThrow(/capacity/);
  });
});
