// Endpoint limits shared across worker processes (llm.sharedLimits): two real processes, each sending calls through
// the project's client to ONE counting endpoint, coordinated by a real redis-server. The endpoint's own count of
// requests in service is the judge; without the shared section the same two processes exceed the limit.
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCacheFor } from '../../../../activities/llm/cache';
import { createChat } from '../../../../activities/llm/client';
import { newUsageCounter } from '../../../../activities/llm/usage';
import { closeSharedLimits } from '../../../../activities/llm/shared-limiter';
import { freePort } from '../../../../activities/serving/free-port';
import { ConfigError, loadConfig } from '../../../../configs/load';
import { llmSchema } from '../../../../configs/schema';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { type LocalRedis, startLocalRedis } from '../../../../cli/stack/redis';
import { type ClientJob, type ClientProcess, startClient as startJob, together } from '../../../../scripts/limits-clients';
import { startLimitsEndpoint, type LimitsEndpoint } from '../../../helpers/limits-endpoint';
import { demoConfigError, tempStateDir } from '../../../helpers/config';
import { waitUntil } from '../../../helpers/wait';

let redis: LocalRedis;
let endpoint: LimitsEndpoint;

beforeAll(async () => {
  redis = await startLocalRedis();
  endpoint = await startLimitsEndpoint(40);
});
afterAll(async () => {
  closeSharedLimits(); // the unreachable-Redis test's clients would otherwise retry for the rest of this test process
  await endpoint?.close();
  await redis?.stop();
});

function startClient(job: Partial<ClientJob> & { label: string; calls: number }): ClientProcess {
  return startJob({ baseUrl: endpoint.baseUrl, model: endpoint.model, maxConcurrency: 4, inFlight: 16, ...job });
}

/** Two processes of 80 calls, 16 in flight each, against maxConcurrency 4; the endpoint's peak and who it served. */
async function twoProcesses(shared: boolean) {
  endpoint.reset();
  const sharedLimits = shared ? { redis: redis.url } : undefined;
  const job = { calls: 80, sharedLimits, waitForGo: true };
  const results = await together([startClient({ ...job, label: `${shared}-a` }), startClient({ ...job, label: `${shared}-b` })]);
  return { results, peak: endpoint.peak(), served: endpoint.seen.map((s) => s.prompt.split(' ')[0]) };
}

describe('shared endpoint limits', () => {
  it('two processes sharing maxConcurrency through Redis never exceed it together, and both progress', async () => {
    const run = await twoProcesses(true);
    expect(run.results.map((r) => r.calls)).toEqual([80, 80]);
    expect(run.peak).toBeLessThanOrEqual(4);
    // First come first served across processes: while both are sending, the endpoint serves both.
    const overlap = run.served.slice(0, 80);
    expect(overlap).toContain('true-a');
    expect(overlap).toContain('true-b');
  }, 120_000);

  it('without llm.sharedLimits each process keeps its own maxConcurrency, and together they exceed it', async () => {
    const run = await twoProcesses(false);
    expect(run.results.map((r) => r.calls)).toEqual([80, 80]);
    expect(run.peak).toBeGreaterThan(4);
  }, 120_000);

  /** A process holding both slots of a maxConcurrency-2 endpoint (its calls never answered), a second process's
   *  three calls queued behind it, and a Redis connection to watch them (leases, queue). */
  async function queuedBehindHolder(label: string) {
    const sharedLimits = { redis: redis.url, leaseSeconds: 1 };
    endpoint.reset();
    const holder = startClient({ label: 'hold', calls: 2, inFlight: 2, maxConcurrency: 2, sharedLimits });
    holder.done.catch(() => {}); // it dies by SIGKILL
    await waitUntil(async () => endpoint.seen.filter((s) => s.prompt.startsWith('hold')).length === 2, 60_000, 'the holder');
    // The sentinel is Redis itself: the holder's leases, and the waiter's three tickets queued behind them.
    const db = new Redis(redis.url);
    const [leases] = await db.keys('collab-loop:limits:*:leases');
    const queue = leases.replace(/leases$/, 'queue');
    const firstExpiry = Number((await db.zrange(leases, '-1', '-1', 'WITHSCORES'))[1]);
    const waiter = startClient({ label, calls: 3, inFlight: 3, maxConcurrency: 2, sharedLimits });
    await waitUntil(async () => (await db.zcard(queue)) === 3, 60_000, "the waiter's tickets");
    /** Kills the holder; the waiter's three calls then all reach the endpoint. */
    const killHolderThenWaiterIsServed = async () => {
      db.disconnect();
      holder.child.kill('SIGKILL');
      expect((await waiter.done).calls).toBe(3);
      expect(endpoint.seen.filter((s) => s.prompt.startsWith(label))).toHaveLength(3);
    };
    return { db, leases, queue, firstExpiry, killHolderThenWaiterIsServed };
  }

  it("a killed process's permits come back after the lease; until then the other process waits", async () => {
    const { db, leases, firstExpiry, killHolderThenWaiterIsServed } = await queuedBehindHolder('after');
    // Both leases renewed past a whole lease after they would have lapsed unrenewed: the holder is alive and still
    // holds both slots, and nothing of the waiter's got through.
    await waitUntil(async () => Number((await db.zrange(leases, '0', '0', 'WITHSCORES'))[1]) > firstExpiry + 1000, 60_000, 'renewals');
    expect(await db.zcard(leases)).toBe(2);
    expect(endpoint.seen.filter((s) => s.prompt.startsWith('after'))).toEqual([]);
    await killHolderThenWaiterIsServed();
  }, 120_000);

  it('a waiter whose place in the queue lapsed (a Redis blip) goes back in line and is served', async () => {
    const { db, queue, killHolderThenWaiterIsServed } = await queuedBehindHolder('blip');
    // What a blip longer than a lease leaves: the queue forgot the waiter's tickets. Its renewals put them back.
    await db.del(queue, `${queue}-expiry`);
    await waitUntil(async () => (await db.zcard(queue)) === 3, 60_000, 'the tickets back in line');
    await killHolderThenWaiterIsServed();
  }, 120_000);

  it('tokensPerMinute: the tokens two processes send in any minute stay within the limit', async () => {
    endpoint.reset();
    // Each call reserves 100 prompt tokens (400 characters / 4) + 8 = 108 and uses 102: five fit in 600, the rest
    // wait until the first ones leave the minute.
    const job = { calls: 4, inFlight: 4, tokensPerMinute: 600, promptChars: 400, sharedLimits: { redis: redis.url }, waitForGo: true };
    const [a, b] = await together([startClient({ ...job, label: 'tpm-a' }), startClient({ ...job, label: 'tpm-b' })]);
    expect(a.calls + b.calls).toBe(8);
    const seen = [...endpoint.seen].sort((x, y) => x.at - y.at);
    expect(seen).toHaveLength(8);
    // Any window starting at a request: arrivals are admissions plus a moment of transit, so the window is a second
    // short of the minute.
    for (const s of seen) {
      const inWindow = seen.filter((o) => o.at >= s.at && o.at < s.at + 59_000);
      expect(inWindow.reduce((sum, o) => sum + o.tokens, 0)).toBeLessThanOrEqual(600);
    }
  }, 180_000);

  it('an unreachable Redis is one retryable error naming its URL and the field', async () => {
    const url = `redis://127.0.0.1:${await freePort()}/0`;
    const chat = createChat({
      endpoint: { baseUrl: endpoint.baseUrl, model: endpoint.model, cacheId: 'm', maxConcurrency: 2 },
      cache: requestCacheFor({ stateDir: tempStateDir() }),
      llm: llmSchema.parse({ callRetries: 0, sharedLimits: { redis: url } }),
      usage: newUsageCounter(),
    });
    const err = await chat({ messages: [{ role: 'user', content: 'q' }], decoding: { temperature: 0, maxTokens: 4 }, sampleKey: 's' }).then(
      () => undefined,
      (e: Error & { type?: string; nonRetryable?: boolean }) => e,
    );
    expect(err?.type).toBe('SharedLimitsUnavailable');
    expect(err?.nonRetryable).toBe(false);
    expect(err?.message).toContain(`cannot use the Redis at ${url} (llm.sharedLimits.redis)`);
  }, 60_000);

  it('config errors name the field: a non-Redis URL, a password in the URL, a zero tokensPerMinute', () => {
    const demo = path.join(PROJECT_ROOT, 'configs', 'demo.yaml');
    const notRedis = demoConfigError(['llm.sharedLimits.redis=http://cache:6379']);
    expect(notRedis).toBeInstanceOf(ConfigError);
    expect(notRedis.field).toBe('llm.sharedLimits.redis');
    expect(notRedis.message).toMatch(/must be a Redis URL such as redis:\/\/redis-host:6379\/0/);
    const password = demoConfigError(['llm.sharedLimits.redis=redis://:secret@cache:6379/0']);
    expect(password.field).toBe('llm.sharedLimits.redis');
    expect(password.message).toMatch(/COLLAB_LOOP_REDIS_PASSWORD/);
    expect(password.message).not.toMatch(/secret/);
    const ep = ['server.kind=external', 'server.endpoint.baseUrl=http://127.0.0.1:8000/v1', 'server.endpoint.model=m'];
    expect(demoConfigError([...ep, 'server.endpoint.tokensPerMinute=0']).field).toBe('server.endpoint.tokensPerMinute');
    const { config } = loadConfig(demo, { overrides: ['llm.sharedLimits.redis=redis://cache:6379/0'] });
    expect(config.llm.sharedLimits).toEqual({ redis: 'redis://cache:6379/0', leaseSeconds: 15 });
  });
});
