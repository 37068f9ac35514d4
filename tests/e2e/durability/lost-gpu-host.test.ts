// A gpu host lost mid-train: two worker hosts share only the Temporal server and an S3 bucket (a real SeaweedFS),
// host A polls workflows,llm,cpu,sandbox and host B gpu, each with its own state dir. Host B is SIGKILLed after
// the trainer's step S was published to the bucket, and its state dir deleted (the machine is gone); host C, a new
// gpu host with a new state dir, resumes training from the newest published step — no earlier step trained again —
// and the run completes. The trainer is the STAND-IN trainer (scripts/stand-in-trainer.ts: a real subprocess that
// saves a checkpoint every 2 steps and resumes from {resume_from}); no GPU or weights here.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectStoreFor } from '../../../activities/storage/run-storage';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { startCliWorker } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { S3_START_TIMEOUT_MS, startS3Server, type S3Server } from '../../helpers/s3-server';
import { startDevServer } from '../../helpers/temporal';
import { waitUntil } from '../../helpers/wait';

let env: TestWorkflowEnvironment;
let s3: S3Server;
beforeAll(async () => {
  [env, s3] = await Promise.all([startDevServer(), startS3Server()]);
  Object.assign(process.env, s3.env); // this process reads the bucket too (the published step's pointer)
}, S3_START_TIMEOUT_MS);
afterAll(async () => {
  await env?.teardown();
  await s3?.stop();
});

const STEPS = 40;

describe('a gpu host lost while it trains', () => {
  it('a new gpu host resumes from the newest step published to the bucket, and the run completes', async () => {
    const starter = tempStateDir('lost-gpu-starter-');
    const [hostA, hostB, hostC] = ['a', 'b', 'c'].map((h) => tempStateDir(`lost-gpu-${h}-`));
    for (const h of [hostA, hostB, hostC]) mkdirSync(path.join(h, 'cwd'));
    const runName = 'lost-gpu';
    const config = testConfig(starter, (c) => {
      c.iterations = 1;
      c.recipe.limit = 4;
      c.storage = { kind: 's3', bucket: s3.bucket, prefix: 'lost', endpoint: s3.endpoint };
      // 40 steps of 300 ms, a checkpoint every 2: long enough to be killed mid-way, whatever the machine.
      c.trainer = {
        kind: 'command',
        method: 'dpo',
        command: [...STAND_IN_TRAINER, '--steps', String(STEPS), '--step-ms', '300', '--save-every', '2'],
        heartbeatTimeoutSeconds: 3,
      };
    });
    const workerEnv = { TEMPORAL_ADDRESS: env.address, ...s3.env };
    const gpuHost = (dir: string) => startCliWorker(workerEnv, ['--queues', 'gpu', '--state-dir', dir], path.join(dir, 'cwd'));
    const a = await startCliWorker(workerEnv, ['--queues', 'workflows,llm,cpu,sandbox', '--state-dir', hostA], path.join(hostA, 'cwd'));
    const b = await gpuHost(hostB);
    let c: Awaited<ReturnType<typeof gpuHost>> | undefined;
    try {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      // The pointer to the newest step uploaded from host B (written only once that step's upload completed).
      const pointer = async () => {
        const bytes = await objectStoreFor(config).get(`checkpoints/${runName}/iter-1.partial/latest.json`);
        return bytes && (JSON.parse(bytes.toString('utf8')) as { step: number });
      };
      await waitUntil(async () => ((await pointer())?.step ?? 0) >= 4 && pointer(), 180_000, 'host B published step 4');
      b.worker.kill('SIGKILL');
      await b.worker;
      rmSync(hostB, { recursive: true, force: true });
      const lastPublished = (await pointer())!.step; // an upload under way as host B died may have completed

      c = await gpuHost(hostC);
      const result = await Promise.race([
        handle.result(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no result in 200 s\n--- host A:\n${a.output()}\n--- host C:\n${c!.output()}`)), 200_000),
        ),
      ]);
      expect(result.iterations).toHaveLength(1);
      expect(result.iterations[0].nextCheckpoint).toBe(`s3://${s3.bucket}/lost/checkpoints/${runName}/iter-1`);

      // Host C fetched the published step to its own disk and the trainer went on from the step after it.
      const log = readFileSync(path.join(hostC, 'logs', runName, 'train-iter-0.log'), 'utf8');
      const m = /resuming from (\S+) at step (\d+)/.exec(log);
      expect(m, log).not.toBeNull();
      const step = Number(m![2]);
      expect(m![1]).toBe(path.join(hostC, 'train', runName, 'iter-0', 'resumed', `step-${step}`));
      expect(step).toBe(lastPublished);
      expect(step).toBeLessThan(STEPS);
      expect(Number(/\bstep (\d+)\/\d+/.exec(log.slice(m!.index))?.[1])).toBe(step + 1);
      expect(result.iterations[0].train).toMatchObject({ steps: STEPS, resumedFromStep: step });
      expect(existsSync(path.join(hostA, 'checkpoints'))).toBe(false); // training ran on the gpu hosts only
    } finally {
      b.worker.kill('SIGKILL');
      await Promise.all([a.stop(), c?.stop()]);
    }
  }, 420_000);
});
