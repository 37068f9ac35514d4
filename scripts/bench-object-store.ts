// Throughput of the two ObjectStores side by side, on the two shapes of data a run stores: many small artifacts
// (500 objects of 64 KB through put/get, 8 in flight, as a stage writes its shards' outputs) and one checkpoint-like
// file (256 MB of random bytes through putFile/getFile: 16 parts of 16 MiB, 4 in flight, on S3). The S3 side is a
// SeaweedFS server this bench starts on this machine (loopback, its data on the same disk), so the figures show the
// protocol's and the server's cost, not a network's. Figures are printed, never asserted.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalObjectStore } from '../activities/storage/local-object-store';
import type { ObjectStore } from '../activities/storage/object-store';
import { S3ObjectStore } from '../activities/storage/s3-object-store';
import { s3StorageSchema } from '../activities/storage/storage-config';
import { startS3Server } from '../cli/stack/seaweedfs';

const ARTIFACTS = 500;
const ARTIFACT_BYTES = 64 * 1024;
const IN_FLIGHT = 8;
const CHECKPOINT_BYTES = 256 * 1024 * 1024;

interface Rates {
  artifactsWrite: number;
  artifactsRead: number;
  checkpointWrite: number;
  checkpointRead: number;
}

/** MB/s (10^6 bytes) of `bytes` moved by `work`. */
async function rate(bytes: number, work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return bytes / 1e6 / ((performance.now() - t0) / 1000);
}

async function inFlight(n: number, each: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) await each(next++);
    }),
  );
}

async function measure(store: ObjectStore, checkpoint: string, dir: string): Promise<Rates> {
  const blobs = Array.from({ length: ARTIFACTS }, () => randomBytes(ARTIFACT_BYTES));
  const key = (i: number) => `artifacts/objects/${(i % 256).toString(16).padStart(2, '0')}/${i}.bin`;
  const total = ARTIFACTS * ARTIFACT_BYTES;
  const artifactsWrite = await rate(total, () => inFlight(ARTIFACTS, (i) => store.put(key(i), blobs[i])));
  const artifactsRead = await rate(total, () =>
    inFlight(ARTIFACTS, async (i) => {
      if ((await store.get(key(i)))?.length !== ARTIFACT_BYTES) throw new Error(`bench object-store: ${key(i)} read back wrong`);
    }),
  );
  const checkpointWrite = await rate(CHECKPOINT_BYTES, () => store.putFile('checkpoints/iter-1/model.bin', checkpoint));
  const dest = path.join(dir, 'downloaded.bin');
  const checkpointRead = await rate(CHECKPOINT_BYTES, () => store.getFile('checkpoints/iter-1/model.bin', dest));
  rmSync(dest, { force: true });
  return { artifactsWrite, artifactsRead, checkpointWrite, checkpointRead };
}

export async function benchObjectStore(): Promise<{ local: Rates; s3: Rates }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-bench-store-'));
  const server = await startS3Server();
  try {
    const checkpoint = path.join(dir, 'checkpoint.bin');
    writeFileSync(checkpoint, randomBytes(CHECKPOINT_BYTES));
    const local = await measure(new LocalObjectStore(path.join(dir, 'store')), checkpoint, dir);
    Object.assign(process.env, server.env); // the SDK's default credential chain, as on a worker
    const s3 = await measure(
      new S3ObjectStore(s3StorageSchema.parse({ kind: 's3', bucket: server.bucket, prefix: 'bench', endpoint: server.endpoint })),
      checkpoint,
      dir,
    );
    const row = (what: string, l: number, s: number) =>
      console.log(`  ${what.padEnd(42)} ${l.toFixed(0).padStart(8)} ${s.toFixed(0).padStart(8)}   ${(s / l).toFixed(2)}`);
    console.log('\nobject-store — MB/s, local directory vs S3 (SeaweedFS on this machine, loopback)');
    console.log(`  ${''.padEnd(42)} ${'local'.padStart(8)} ${'s3'.padStart(8)}   s3/local`);
    row(`artifacts put (${ARTIFACTS} × 64 KB, ${IN_FLIGHT} in flight)`, local.artifactsWrite, s3.artifactsWrite);
    row('artifacts get', local.artifactsRead, s3.artifactsRead);
    row(`checkpoint putFile (${CHECKPOINT_BYTES / 1024 / 1024} MiB)`, local.checkpointWrite, s3.checkpointWrite);
    row('checkpoint getFile', local.checkpointRead, s3.checkpointRead);
    return { local, s3 };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
