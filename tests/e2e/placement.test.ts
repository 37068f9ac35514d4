// Placement across gpu hosts: two gpu workers of different classes (a100, h100), each with its own GPU indices, and a
// host for the rest, sharing only a Temporal dev server and a SeaweedFS bucket. The config pins the agent role to
// h100: its trainer and its server run on the h100 host, scheduled on collab-loop-gpu-h100, and get
// CUDA_VISIBLE_DEVICES from that host's --gpus. The h100 host serves to other hosts (--serve-host), so its servers
// require the run's key: the loop's calls carry it, and no workflow history holds it.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_QUEUES } from '../../contracts/run';
import { storeFor } from '../../activities/artifacts/store';
import { SERVE_SECRET_ENV } from '../../activities/host-env';
import { servedKey } from '../../activities/llm/served-key';
import { startCliWorker } from '../helpers/cli';
import { tempStateDir, testConfig } from '../helpers/config';
import { S3_START_TIMEOUT_MS, startS3Server, type S3Server } from '../helpers/s3-server';
import { startDevServer } from '../helpers/temporal';
import { runOnHosts } from '../helpers/two-hosts';
import { recordHistoriesIfAsked } from '../helpers/run-loop';

let env: TestWorkflowEnvironment;
let s3: S3Server;
beforeAll(async () => {
  [env, s3] = await Promise.all([startDevServer(), startS3Server()]);
  Object.assign(process.env, s3.env); // this process reads the bucket too (the deploy manifest)
}, S3_START_TIMEOUT_MS);
afterAll(async () => {
  await env?.teardown();
  await s3?.stop();
});

/** The text of every payload in a history (JSON-encoded values: inputs, results, details), concatenated. */
function payloadText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(payloadText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(payloadText).join('\n');
  return '';
}

/** Every line of the logs a host wrote for a run, by file name. */
function logs(stateDir: string, run: string): Record<string, string> {
  const dir = path.join(stateDir, 'logs', run);
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

describe('placement: a role pinned to a gpu class', () => {
  it('trains and serves the pinned role on the h100 host, with GPU indices from its pool', async () => {
    const secret = 'placement-cluster-secret';
    const workerEnv = { TEMPORAL_ADDRESS: env.address, ...s3.env, [SERVE_SECRET_ENV]: secret };
    const starter = tempStateDir('placement-starter-');
    const host = (name: string) => {
      const dir = tempStateDir(`placement-${name}-`);
      mkdirSync(path.join(dir, 'cwd'));
      return dir;
    };
    const [rest, a100, h100] = [host('rest'), host('a100'), host('h100')];
    const start = (dir: string, args: string[]) => startCliWorker(workerEnv, [...args, '--state-dir', dir], path.join(dir, 'cwd'));
    const runName = 'pinned';
    const config = testConfig(starter, (c) => {
      c.iterations = 1;
      c.recipe.limit = 4;
      c.storage = { kind: 's3', bucket: s3.bucket, prefix: 'placement', endpoint: s3.endpoint };
      c.models = { agent: { kind: 'trained', gpuClass: 'h100' } };
    });
    const workers = [
      await start(rest, ['--queues', 'workflows,llm,cpu,sandbox']),
      await start(a100, ['--queues', 'gpu', '--gpu-class', 'a100', '--gpus', '0,1']),
      await start(h100, ['--queues', 'gpu', '--gpu-class', 'h100', '--gpus', '6,7', '--serve-host', '127.0.0.1']),
    ];
    const [, a100Worker, h100Worker] = workers;
    const output = () => workers.map((w, i) => `--- worker ${i}:\n${w.output()}`).join('\n');
    try {
      const { result } = await runOnHosts(env.client, runName, config, output);
      expect(result.iterations).toHaveLength(1);
      expect(result.iterations[0].nextCheckpoint).toBeDefined();

      // Every gpu activity of the run (its iterations are child workflows) went to the h100 queue and was picked
      // up by the h100 worker.
      const gpuWork: Array<{ type: string; queue: string; identity: string }> = [];
      let histories = '';
      for await (const w of env.client.workflow.list()) {
        const { events } = await env.client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
        histories += payloadText(events);
        const scheduled = new Map<string, { type: string; queue: string }>();
        for (const e of events ?? []) {
          const s = e.activityTaskScheduledEventAttributes;
          if (s) scheduled.set(String(e.eventId), { type: s.activityType?.name ?? '', queue: s.taskQueue?.name ?? '' });
          const st = e.activityTaskStartedEventAttributes;
          const which = st && scheduled.get(String(st.scheduledEventId));
          if (which?.queue.startsWith(TASK_QUEUES.gpu)) gpuWork.push({ ...which, identity: st?.identity ?? '' });
        }
      }
      const types = gpuWork.map((w) => w.type);
      expect(types).toContain('trainCheckpoint');
      expect(types).toContain('deployCheckpoint');
      for (const w of gpuWork) {
        expect(w.queue).toBe(`${TASK_QUEUES.gpu}-h100`);
        expect(w.identity.startsWith(`${h100Worker.worker.pid}@`)).toBe(true);
      }

      // The trainer and the model server ran on the h100 host with one of its GPUs; the a100 host ran nothing.
      const h100Logs = logs(h100, runName);
      const trainLog = Object.entries(h100Logs).find(([f]) => f.startsWith('train-iter-0'))?.[1] ?? '';
      const trainerSaw = /^CUDA_VISIBLE_DEVICES=(.*)$/m.exec(trainLog)?.[1];
      expect(['6', '7']).toContain(trainerSaw);
      const serverLog = Object.entries(h100Logs).find(([f]) => f.startsWith('server-iter-0-model'))?.[1] ?? '';
      expect(serverLog).toMatch(/model server on GPUs [67] \(CUDA_VISIBLE_DEVICES\)/);
      const deploy = await storeFor(config).readJson<{ params: { gpus?: number[] } }>(result.iterations[0].manifests.deploy);
      expect(deploy.params.gpus).toHaveLength(1);
      expect([6, 7]).toContain(deploy.params.gpus?.[0]);
      expect(logs(a100, runName)).toEqual({});
      expect(a100Worker.output()).toContain(`${TASK_QUEUES.gpu}-a100`);
      // The served endpoints carried only the key's reference; the key (derived as every host derives it) is in no
      // history, and the server refused the loop nothing (it completed).
      process.env[SERVE_SECRET_ENV] = secret;
      const key = servedKey(runName, 'test');
      delete process.env[SERVE_SECRET_ENV];
      expect(histories).toContain(`"apiKeyRef":"${runName}"`);
      expect(histories).not.toContain(key);
      expect(histories).not.toContain(secret);
      await recordHistoriesIfAsked(env, runName, 'coral'); // RECORD_HISTORIES=gpu-placement-v1, for tests/workflows/replay.test.ts
      // Every index is back in the pool: no process of the run holds one.
      expect(existsSync(path.join(h100, 'processes')) ? readdirSync(path.join(h100, 'processes')) : []).toEqual([]);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  }, 300_000);
});
