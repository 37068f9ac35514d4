// Checkpoints between hosts (activities/storage/checkpoints.ts), against a real SeaweedFS: what the train stage
// publishes, the deploy stage on another host fetches byte for byte, checks against the index's hashes, and reuses;
// a retried publish uploads nothing already there.
import { MockActivityEnvironment } from '@temporalio/testing';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { localCheckpoint, publishCheckpoint } from '../../../../activities/storage/checkpoints';
import { objectStoreFor } from '../../../../activities/storage/run-storage';
import { storeFor } from '../../../../activities/artifacts/store';
import { trainCheckpoint } from '../../../../activities/stages/train-checkpoint';
import { stringify } from 'yaml';
import { cli } from '../../../helpers/cli';
import { tempStateDir, testConfig, testConfigRaw } from '../../../helpers/config';
import { s3Storage, useS3Server } from '../../../helpers/s3-server';

const server = useS3Server();

const inActivity = <T>(f: () => Promise<T>): Promise<T> => new MockActivityEnvironment().run(f);

function checkpointDir(): string {
  const dir = path.join(tempStateDir('ckpt-'), 'trained');
  mkdirSync(path.join(dir, 'tokenizer'), { recursive: true });
  writeFileSync(path.join(dir, 'model.safetensors'), Buffer.alloc(200_000, 7));
  writeFileSync(path.join(dir, 'config.json'), '{"layers": 2}');
  writeFileSync(path.join(dir, 'tokenizer', 'vocab.json'), '{"a": 1}');
  symlinkSync(path.join(dir, 'tokenizer', 'vocab.json'), path.join(dir, 'vocab.json')); // trainers link base files
  return dir;
}

const files = (dir: string, rel = ''): Record<string, string> =>
  Object.fromEntries(
    readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
      const p = rel ? `${rel}/${e.name}` : e.name;
      return e.isDirectory() ? Object.entries(files(dir, p)) : [[p, readFileSync(path.join(dir, p)).toString('base64')]];
    }),
  );

describe('checkpoints in an S3 bucket', () => {
  const storage = (prefix: string) => s3Storage(server(), prefix);

  it('another host fetches exactly what was published, once; a retried publish uploads nothing again', async () => {
    const trained = checkpointDir();
    const gpuHost = { stateDir: tempStateDir('gpu-host-'), storage: storage('ckpt-a') };
    const uri = await inActivity(() => publishCheckpoint(gpuHost, trained, 'run/iter-1'));
    expect(uri).toBe(`s3://${server().bucket}/ckpt-a/checkpoints/run/iter-1`);

    const putFile = vi.spyOn(objectStoreFor(gpuHost), 'putFile');
    expect(await inActivity(() => publishCheckpoint(gpuHost, trained, 'run/iter-1'))).toBe(uri);
    expect(putFile).not.toHaveBeenCalled();

    const servingHost = { stateDir: tempStateDir('serving-host-'), storage: storage('ckpt-a') };
    const fetched = await inActivity(() => localCheckpoint(servingHost, uri));
    expect(fetched.startsWith(path.join(servingHost.stateDir, 'checkpoint-cache'))).toBe(true);
    expect(files(fetched)).toEqual(files(trained));
    const getFile = vi.spyOn(objectStoreFor(servingHost), 'getFile');
    expect(await inActivity(() => localCheckpoint(servingHost, uri))).toBe(fetched);
    expect(getFile).not.toHaveBeenCalled();

    // Two stages of one worker asking at once share one download.
    const third = { stateDir: tempStateDir('third-host-'), storage: storage('ckpt-a') };
    const getFile3 = vi.spyOn(objectStoreFor(third), 'getFile');
    const both = await Promise.all([0, 1].map(() => inActivity(() => localCheckpoint(third, uri))));
    expect(both[0]).toBe(both[1]);
    expect(getFile3).toHaveBeenCalledTimes(Object.keys(files(trained)).length);
  });

  it('a train stage retried on another host finds the checkpoint the first host published, and trains nothing', async () => {
    const hostA = tempStateDir('train-a-');
    const config = testConfig(hostA, (c) => {
      c.storage = storage('ckpt-train');
    });
    const dpo = await storeFor(config).putJsonl([{ prompt: 'p', chosen: 'a', rejected: 'b' }]);
    const input = { runName: 'moved', iteration: 0, config, checkpoint: config.baseCheckpoint, data: { dpo } };
    const first = (await new MockActivityEnvironment().run(trainCheckpoint, input)) as Awaited<ReturnType<typeof trainCheckpoint>>;
    expect(first.checkpoint).toBe(`s3://${server().bucket}/ckpt-train/checkpoints/moved/iter-1`);
    // Its result was lost; the retry runs on host B, whose disk has none of host A's files.
    const hostB = tempStateDir('train-b-');
    const retried = await new MockActivityEnvironment().run(trainCheckpoint, { ...input, config: { ...config, stateDir: hostB } });
    expect(retried).toEqual(first);
    expect(existsSync(path.join(hostB, 'checkpoints', 'moved', 'iter-1'))).toBe(false);
    expect(existsSync(path.join(hostB, 'logs', 'moved', 'train-iter-0.log'))).toBe(false);
  }, 60_000);

  it('a blob that does not match the index fails the fetch and leaves no cached copy', async () => {
    const trained = checkpointDir();
    const config = { stateDir: tempStateDir('gpu-host-'), storage: storage('ckpt-b') };
    const uri = await inActivity(() => publishCheckpoint(config, trained, 'run/iter-1'));
    const objects = objectStoreFor(config);
    const blobs = (await objects.list('checkpoints/blobs/')).sort();
    expect(blobs).toHaveLength(3);
    for (const b of blobs) await objects.put(b, 'tampered');
    const other = { stateDir: tempStateDir('serving-host-'), storage: storage('ckpt-b') };
    await expect(inActivity(() => localCheckpoint(other, uri))).rejects.toThrow(/does not match its sha256/);
    expect(readdirSync(path.join(other.stateDir, 'checkpoint-cache'))).toEqual([]);
  });

  it('a name that was never published is one error naming it; local storage moves nothing', async () => {
    const config = { stateDir: tempStateDir('host-'), storage: storage('ckpt-c') };
    const missing = `s3://${server().bucket}/ckpt-c/checkpoints/run/iter-9`;
    await expect(inActivity(() => localCheckpoint(config, missing))).rejects.toThrow(`checkpoint ${missing}: no checkpoint-index.json`);
    const trained = checkpointDir();
    const local = { stateDir: tempStateDir('host-') };
    expect(await inActivity(() => publishCheckpoint(local, trained, 'run/iter-1'))).toBe(trained);
    expect(await inActivity(() => localCheckpoint(local, trained))).toBe(trained);
    expect(existsSync(path.join(local.stateDir, 'checkpoints'))).toBe(false);
  });
});

describe('collab-loop start with an S3 store it cannot use', () => {
  const start = async (patch: Record<string, unknown>, env: Record<string, string>) => {
    const stateDir = tempStateDir('start-s3-');
    const file = path.join(stateDir, 'run.yaml');
    const storage = { kind: 's3', bucket: server().bucket, endpoint: server().endpoint, ...patch };
    writeFileSync(file, stringify(testConfigRaw(stateDir, (raw) => Object.assign(raw, { storage }))));
    // No Temporal server on this address: the check comes first, before any connection.
    return { file, r: await cli(['start', file], { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' }) };
  };

  it('a wrong secret or a missing bucket is one line naming the file, the section and what to fix', async () => {
    const wrong = await start({}, { ...server().env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    expect(wrong.r.exitCode).not.toBe(0);
    expect(wrong.r.all).toContain(`${wrong.file}: storage:`);
    expect(wrong.r.all).toContain('AWS_SECRET_ACCESS_KEY');
    const missing = await start({ bucket: 'no-such-bucket' }, server().env);
    expect(missing.r.exitCode).not.toBe(0);
    expect(missing.r.all).toMatch(/storage:.*no-such-bucket/);
    for (const r of [wrong.r, missing.r]) expect(r.all).not.toMatch(/^\s+at /m); // no stack trace
  }, 60_000);
});
