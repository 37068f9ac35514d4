// Two worker "hosts" that share nothing but the Temporal server and an S3 bucket (a real SeaweedFS the test
// starts): separate state dirs and working directories, one polling workflows,llm,cpu,sandbox and the other gpu.
// A 2-iteration loop with the stand-in trainer completes; the checkpoint iteration 1 serves is fetched from the
// bucket into the gpu host's cache and is byte-identical to what iteration 0 trained.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../activities/storage/content-hash';
import { objectStoreFor } from '../../activities/storage/run-storage';
import { storeFor } from '../../activities/artifacts/store';
import { testConfig } from '../helpers/config';
import { S3_START_TIMEOUT_MS, startS3Server, type S3Server } from '../helpers/s3-server';
import { startDevServer } from '../helpers/temporal';
import { runOnHosts, twoHosts } from '../helpers/two-hosts';

let env: TestWorkflowEnvironment;
let s3: S3Server;
beforeAll(async () => {
  [env, s3] = await Promise.all([startDevServer(), startS3Server()]);
  Object.assign(process.env, s3.env); // this process reads the bucket too (to check what the hosts wrote)
}, S3_START_TIMEOUT_MS);
afterAll(async () => {
  await env?.teardown();
  await s3?.stop();
});

/** Every file under a directory, relative path → sha256. */
function tree(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, tree(dir, p));
    else out[p] = sha256Hex(readFileSync(path.join(dir, p)));
  }
  return out;
}

describe('workers on two hosts sharing only Temporal and the object store', () => {
  it('runs a 2-iteration loop; iteration 1 serves exactly the checkpoint iteration 0 trained', async () => {
    const { starter, hostA, hostB, start } = twoHosts('multi-host', { TEMPORAL_ADDRESS: env.address, ...s3.env });
    const runName = 'two-hosts';
    const config = testConfig(starter, (c) => {
      c.iterations = 2;
      c.recipe.limit = 4;
      c.storage = { kind: 's3', bucket: s3.bucket, prefix: 'team/loops', endpoint: s3.endpoint };
    });
    const a = await start('a');
    const b = await start('b');
    try {
      const { result } = await runOnHosts(env.client, runName, config, () => `--- host A:\n${a.output()}\n--- host B:\n${b.output()}`);
      expect(result.iterations).toHaveLength(2);
      const trained = result.iterations[0].nextCheckpoint!;
      expect(trained).toBe(`s3://${s3.bucket}/team/loops/checkpoints/${runName}/iter-1`);
      expect(result.iterations[1].checkpoint).toBe(trained);

      // What the gpu host trained (its own state dir) and what it served in iteration 1 (fetched from the bucket).
      const store = storeFor(config);
      const deploy1 = await store.readJson<{ params: { servedFrom: string } }>(result.iterations[1].manifests.deploy);
      const servedFrom = deploy1.params.servedFrom;
      expect(servedFrom.startsWith(path.join(hostB, 'checkpoint-cache'))).toBe(true);
      const trainedDir = path.join(hostB, 'checkpoints', runName, 'iter-1');
      const trainedFiles = tree(trainedDir);
      expect(Object.keys(trainedFiles).length).toBeGreaterThan(1);
      expect(tree(servedFrom)).toEqual(trainedFiles);

      // The run's bytes are in the bucket; neither host nor the starter keeps artifacts or cached answers locally.
      const keys = await objectStoreFor(config).list('');
      for (const prefix of ['artifacts/objects/', 'llm-cache/', 'checkpoints/blobs/', `artifacts/runs/${runName}/iter-1/deploy.json`])
        expect(keys.some((k) => k.startsWith(prefix))).toBe(true);
      for (const dir of [starter, hostA, hostB]) expect(existsSync(path.join(dir, 'llm-cache'))).toBe(false);
      expect(existsSync(path.join(hostA, 'artifacts'))).toBe(false);
      // Every stage ran where its queue is: generation on A, training and serving on B.
      expect(existsSync(path.join(hostA, 'checkpoints'))).toBe(false);
      expect(existsSync(path.join(hostB, 'servers', runName))).toBe(true);
      expect(Object.keys(result.iterations[1].metrics).length).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 300_000);
});
