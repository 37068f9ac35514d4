// The request cache on S3 while the store is down: an answer that arrives then is not lost. The put returns (the
// answer is on this host's disk), a retry of the call in this process or a restarted one finds it without asking the
// model again, and once the store is back the answer is written there, where another host finds it.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ObjectJournalCache } from '../../../../activities/llm/object-journal-cache';
import { S3ObjectStore } from '../../../../activities/storage/s3-object-store';
import { s3StorageSchema } from '../../../../activities/storage/storage-config';
import { tempStateDir } from '../../../helpers/config';
import { useS3Server } from '../../../helpers/s3-server';

const server = useS3Server();

const answer = (n: number) => ({ texts: [`answer ${n}`], finishReasons: ['stop'], usage: { promptTokens: n, completionTokens: 1 } });

describe('request cache answers the S3 store cannot take yet', () => {
  it('are kept on this host, found by a retry and a restarted process, and saved once the store is back', async () => {
    const s3 = server();
    const store = new S3ObjectStore(
      s3StorageSchema.parse({ kind: 's3', bucket: s3.bucket, prefix: `runs/${randomUUID()}`, endpoint: s3.endpoint }),
    );
    const dir = path.join(tempStateDir('unsaved-'), 'llm-cache-unsaved');
    const cache = new ObjectJournalCache(store, dir);
    await cache.put('before', answer(0));

    await s3.halt();
    try {
      await Promise.all([1, 2, 3].map((n) => cache.put(`k${n}`, answer(n)))); // returns although the store is down
      expect(cache.unsaved?.size).toBe(3);
      expect(await cache.get('k2')).toEqual(answer(2)); // the retried call, same process
      expect(existsSync(dir)).toBe(true);
      // A restarted worker on this host: a new process's cache over the same directory.
      const restarted = new ObjectJournalCache(store, dir);
      expect(await restarted.get('k3')).toEqual(answer(3));
    } finally {
      await s3.resume();
    }
    await cache.unsaved?.saved();
    expect(cache.unsaved?.size).toBe(0);
    // Another host: its own directory (no local journal, no index yet), only the store.
    const elsewhere = new ObjectJournalCache(store, path.join(tempStateDir('elsewhere-'), 'llm-cache-unsaved'));
    for (const n of [0, 1, 2, 3]) expect(await elsewhere.get(n ? `k${n}` : 'before')).toEqual(answer(n));
  }, 120_000);
});
