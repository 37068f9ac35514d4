// The request cache on S3: answers go out as journal objects, a batch per PUT, and a miss costs no request of its
// own — what lets a run on S3 go about as fast as on local disk. What a user relies on besides: every answer a killed
// worker had acknowledged is found by a worker on another host (so at most the calls in flight are paid again), a
// worker that starts on a host reads no journal object the host has indexed already (the index is in the host's state
// dir, shared by its processes), and answers cached one object per answer (runs cached before the journals) are still
// found.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ObjectRequestCache, requestCacheFor } from '../../../../activities/llm/cache';
import { ObjectJournalCache } from '../../../../activities/llm/object-journal-cache';
import { objectStoreFor } from '../../../../activities/storage/run-storage';
import { tempStateDir } from '../../../helpers/config';
import { ackedBeforeKill } from '../../../helpers/killed-writer';
import { waitUntil } from '../../../helpers/wait';
import { s3Storage, useS3Server } from '../../../helpers/s3-server';
import { type S3RequestLog, startS3RequestLog } from '../../../helpers/s3-request-log';

const server = useS3Server();
let log: S3RequestLog;
beforeAll(async () => {
  log = await startS3RequestLog(server().endpoint);
});
afterAll(() => log?.close());

const answer = (n: number) => ({ texts: [`answer ${n}`], finishReasons: ['stop'], usage: { promptTokens: n, completionTokens: 1 } });
/** A run's storage section through the request log, under a prefix of its own. */
const storage = (prefix = `runs/${randomUUID()}`) => s3Storage(server(), prefix, { endpoint: log.endpoint });
/** A worker on another host: its own state dir, so its own cache over the same store. */
const hostCache = (s: ReturnType<typeof storage>) => requestCacheFor({ stateDir: tempStateDir('host-'), storage: s });
const isObjectGet = (r: string) => r.startsWith('GET ') && !r.includes('list-type=');

describe('request cache on S3', () => {
  it('calls that miss cost no GET each, answers go out in batches, and another host finds them all', async () => {
    const s = storage();
    const cache = hostCache(s);
    await cache.get('warm-up'); // the first look: lists the (empty) journals once
    const from = log.requests.length;
    const rounds = 20;
    const perRound = 8;
    for (let r = 0; r < rounds; r++)
      await Promise.all(
        Array.from({ length: perRound }, async (_, i) => {
          const key = `k${r * perRound + i}`;
          expect(await cache.get(key)).toBeUndefined(); // a fresh call: a miss
          await cache.put(key, answer(r * perRound + i));
        }),
      );
    const requests = log.requests.slice(from);
    expect(requests.filter(isObjectGet)).toEqual([]);
    const puts = requests.filter((r) => r.startsWith('PUT ')).length;
    expect(puts).toBeGreaterThan(0);
    expect(puts).toBeLessThanOrEqual(rounds); // one object per batch, not one per answer

    const elsewhere = hostCache(s);
    for (let n = 0; n < rounds * perRound; n++) expect(await elsewhere.get(`k${n}`)).toEqual(answer(n));
  }, 120_000);

  it('a worker that starts on a host reads only the journal objects the host has not indexed', async () => {
    const s = storage();
    const store = objectStoreFor({ stateDir: tempStateDir(), storage: s });
    const dir = path.join(tempStateDir('host-'), 'llm-cache-unsaved');
    const first = new ObjectJournalCache(store, dir);
    for (let n = 0; n < 5; n++) await first.put(`k${n}`, answer(n)); // one journal object each
    await first.close();
    await hostCache(s).put('k5', answer(5)); // another host's object, not indexed here
    const from = log.requests.length;
    const restarted = new ObjectJournalCache(store, dir);
    expect(await restarted.get('k3')).toEqual(answer(3)); // from the index: a GET of its object, for the answer
    expect(await restarted.get('k5')).toEqual(answer(5)); // a miss: lists, and reads the one object not indexed
    expect(await restarted.get('missing')).toBeUndefined();
    expect(log.requests.slice(from).filter(isObjectGet)).toHaveLength(2);
    await restarted.close();
  }, 60_000);

  it('every answer a SIGKILLed worker acknowledged is found on another host', async () => {
    const s = storage();
    const acked = await ackedBeforeKill(tempStateDir('killed-'), 400, s);
    const reader = hostCache(s);
    const found = await Promise.all(acked.map(async (n) => (await reader.get(`w-${n}`))?.usage.promptTokens));
    expect(found).toEqual(acked);
  }, 120_000);

  it('answers cached one object per answer are still found, also those written after the first look', async () => {
    // Keys as the cache makes them (sha256 hex): per-answer objects list before llm-cache/journal/.
    const [old1, old3] = ['a1', 'f3'].map((h) => h.padEnd(64, '0'));
    const s = storage();
    const older = new ObjectRequestCache(objectStoreFor({ stateDir: tempStateDir(), storage: s }));
    await older.put(old1, answer(1));
    const cache = hostCache(s);
    await cache.put('new-2', answer(2));
    expect(await cache.get(old1)).toEqual(answer(1));
    expect(await cache.get('new-2')).toEqual(answer(2));
    // A worker of the previous release still writing per-answer objects during a rolling upgrade.
    const s2 = storage();
    const upgraded = hostCache(s2);
    expect(await upgraded.get(old3)).toBeUndefined();
    await new ObjectRequestCache(objectStoreFor({ stateDir: tempStateDir(), storage: s2 })).put(old3, answer(3));
    await waitUntil(async () => (await upgraded.get(old3)) !== undefined, 30_000, 'the later per-answer object');
  }, 60_000);

  it('once the store holds journals and no per-answer object, later looks for new answers list only the journals', async () => {
    const run = `runs/${randomUUID()}`;
    const s = storage(run);
    await hostCache(s).put('j1', answer(1)); // a worker of this release has written
    const cache = hostCache(s);
    expect(await cache.get('j1')).toEqual(answer(1)); // the first look: journals, no per-answer object
    const from = log.requests.length;
    const listedPrefixes = () =>
      log.requests.slice(from).flatMap((r) => {
        const q = new URL(r.slice(r.indexOf(' ') + 1), 'http://s3').searchParams;
        const prefix = q.get('prefix') ?? '';
        return q.has('list-type') && prefix.startsWith(`${run}/`) ? [prefix] : [];
      });
    // Misses look again (every REFRESH_MS at most) until one has listed the journals twice.
    let n = 0;
    await waitUntil(async () => (await cache.get(`miss-${n++}`)) === undefined && listedPrefixes().length >= 2, 30_000, 'two more looks');
    expect(listedPrefixes().every((p) => p.endsWith('llm-cache/journal/'))).toBe(true);
  }, 60_000);

  it('a stage cancelled while its answer waits for the batch PUT does not fail the other stages in that batch', async () => {
    const s = storage();
    const cache = hostCache(s);
    const [cancelled, other] = [new MockActivityEnvironment(), new MockActivityEnvironment()];
    const first = cancelled.run(() => cache.put('c1', answer(1))).catch(() => undefined);
    const second = other.run(() => cache.put('c2', answer(2)));
    cancelled.cancel(); // before the batch holding both answers goes out
    await second;
    await first;
    expect(await hostCache(s).get('c2')).toEqual(answer(2));
  }, 60_000);
});
