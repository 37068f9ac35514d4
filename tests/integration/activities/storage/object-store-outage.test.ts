// The S3 store waits out a server that is down (SeaweedFS killed, then started again on the same data and port):
// a put, a get, a list and a multipart upload issued during the outage all complete once it is back, and what was
// written before is still there. A put asked to fail fast fails at once, and with no tolerance left the error
// still says what to check.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../../activities/storage/s3-object-store';
import { s3StorageSchema } from '../../../../activities/storage/storage-config';
import { StorageError } from '../../../../activities/storage/storage-error';
import { tempStateDir } from '../../../helpers/config';
import { useS3Server } from '../../../helpers/s3-server';

const MiB = 1024 * 1024;
const OUTAGE_MS = 6_000;

const server = useS3Server();
let scratch: string;
beforeAll(() => {
  scratch = tempStateDir('s3-outage-');
});
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const store = (over: Record<string, unknown> = {}) =>
  new S3ObjectStore(
    s3StorageSchema.parse({ kind: 's3', bucket: server().bucket, prefix: `runs/${randomUUID()}`, endpoint: server().endpoint, ...over }),
    { partSizeBytes: 5 * MiB },
  );

describe('an S3 store whose server is down for a few seconds', () => {
  it('completes the operations issued during the outage once the server is back', async () => {
    const s = store();
    await s.put('before.json', '{"written":"before"}');
    const file = path.join(scratch, 'model.bin');
    writeFileSync(file, randomBytes(12 * MiB)); // three parts

    await server().halt();
    const ops = Promise.all([s.put('during.json', '{"written":"during"}'), s.get('before.json'), s.list(''), s.putFile('model.bin', file)]);
    const failFast = await s.put('fast.json', 'x', { failFast: true }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await server().resume();
    const [, before, keys] = await ops;

    expect(failFast).toBeInstanceOf(StorageError);
    expect((failFast as StorageError).transient).toBe(true);
    expect(before?.toString()).toBe('{"written":"before"}');
    expect(keys).toContain('before.json');
    expect((await s.get('during.json'))?.toString()).toBe('{"written":"during"}');
    expect(sha((await s.get('model.bin'))!)).toBe(sha(readFileSync(file)));
  }, 120_000);

  it('gives up after storage.outageToleranceSeconds with the message that says what to check', async () => {
    const s = store({ outageToleranceSeconds: 1 });
    await server().halt();
    try {
      const e = await s.get('k').catch((err: unknown) => err);
      expect(e).toBeInstanceOf(StorageError);
      expect((e as Error).message).toMatch(/cannot reach the endpoint \(ECONNREFUSED\); check storage\.endpoint/);
      expect((e as Error).message).toMatch(/still failing after \d+ s; storage\.outageToleranceSeconds is 1/);
    } finally {
      await server().resume();
    }
  }, 120_000);

  it('a missing bucket still fails at once, without waiting', async () => {
    const e = await store({ bucket: 'no-such-bucket' })
      .put('k', 'v')
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(StorageError);
    expect((e as StorageError).transient).toBe(false);
    expect((e as Error).message).toMatch(/the bucket "no-such-bucket" does not exist there/);
  });
});
