// This host's checkpoint cache (activities/storage/checkpoint-cache.ts): kept under its cap by removing the least
// recently used entries, never one a live process holds a lease on or one handed out moments ago; and the host that
// trained a checkpoint serves it from its own files instead of downloading what it just uploaded.
import { MockActivityEnvironment } from '@temporalio/testing';
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkpointCacheDir, evictCheckpoints, leaseEntry } from '../../../../activities/storage/checkpoint-cache';
import { localCheckpoint, publishCheckpoint } from '../../../../activities/storage/checkpoints';
import { objectStoreFor } from '../../../../activities/storage/run-storage';
import { tempStateDir } from '../../../helpers/config';
import { s3Storage, useS3Server } from '../../../helpers/s3-server';

const server = useS3Server();
const MiB = 1024 * 1024;
const inActivity = <T>(f: () => Promise<T>): Promise<T> => new MockActivityEnvironment().run(f);

/** A cache entry of 1 MiB last used `agoMs` ago. */
function entry(stateDir: string, name: string, agoMs: number): string {
  const dir = path.join(checkpointCacheDir({ stateDir }), name.repeat(64));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'model.safetensors'), Buffer.alloc(MiB, 1));
  const at = new Date(Date.now() - agoMs);
  writeFileSync(`${dir}.used`, '');
  utimesSync(`${dir}.used`, at, at);
  return dir;
}

const HOUR = 3_600_000;

describe('checkpoint cache', () => {
  it('removes the least recently used entries first, never one leased by a live process or just handed out', async () => {
    const stateDir = tempStateDir('ckpt-cache-');
    const leased = entry(stateDir, 'a', 4 * HOUR); // the oldest, but a model server serves it
    const deadLease = entry(stateDir, 'b', 3 * HOUR); // leased by a server that is gone
    const older = entry(stateDir, 'c', 2 * HOUR);
    const newer = entry(stateDir, 'd', HOUR);
    const justUsed = entry(stateDir, 'e', 0); // a deploy stage between fetching it and starting its server
    const server = execa('sleep', ['600']);
    const gone = execa('true');
    await gone;
    try {
      await leaseEntry(leased, server.pid!);
      await leaseEntry(deadLease, gone.pid!);

      expect(await evictCheckpoints({ stateDir }, 4 * MiB)).toEqual([deadLease]);
      expect(await evictCheckpoints({ stateDir }, 3 * MiB)).toEqual([older]);
      expect(await evictCheckpoints({ stateDir }, 0)).toEqual([newer]);
      for (const kept of [leased, justUsed]) expect(existsSync(kept)).toBe(true);
      for (const removed of [deadLease, older, newer]) expect(existsSync(removed)).toBe(false);
    } finally {
      server.kill();
      await server.catch(() => {});
    }
    expect(await evictCheckpoints({ stateDir }, 0)).toEqual([leased]); // its server stopped
  });

  it('the host that trained a checkpoint serves it without downloading it; another host fetches it', async () => {
    const trained = path.join(tempStateDir('trained-'), 'iter-1');
    mkdirSync(path.join(trained, 'tokenizer'), { recursive: true });
    writeFileSync(path.join(trained, 'model.safetensors'), Buffer.alloc(300_000, 3));
    writeFileSync(path.join(trained, 'tokenizer', 'vocab.json'), '{"a": 1}');
    const gpuHost = { stateDir: tempStateDir('gpu-host-'), storage: s3Storage(server(), 'ckpt-cache') };
    const uri = await inActivity(() => publishCheckpoint(gpuHost, trained, 'run/iter-1'));

    const objects = objectStoreFor(gpuHost);
    const [getFile, get] = [vi.spyOn(objects, 'getFile'), vi.spyOn(objects, 'get')];
    const served = await inActivity(() => localCheckpoint(gpuHost, uri));
    expect(served.startsWith(checkpointCacheDir(gpuHost))).toBe(true);
    expect(getFile).not.toHaveBeenCalled();
    expect(get.mock.calls.map(([key]) => key)).toEqual(['checkpoints/run/iter-1/checkpoint-index.json']);
    expect(readFileSync(path.join(served, 'tokenizer', 'vocab.json'), 'utf8')).toBe('{"a": 1}');

    const otherHost = { stateDir: tempStateDir('other-host-'), storage: s3Storage(server(), 'ckpt-cache') };
    const fetched = await inActivity(() => localCheckpoint(otherHost, uri));
    expect(path.basename(fetched)).toBe(path.basename(served)); // the same entry name: the index's hash
    expect(readFileSync(path.join(fetched, 'model.safetensors'))).toEqual(readFileSync(path.join(trained, 'model.safetensors')));
  });
});
