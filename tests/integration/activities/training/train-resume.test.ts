// The train stage resuming where the last attempt got to (activities/training/train-checkpoint.ts): on another host,
// from the newest step published to the run's bucket (a real SeaweedFS), fetched to its own disk — for a `command`
// trainer and for a built-in one (TRL on a tiny model, CPU); on the same host, from the last checkpoint the trainer
// announced even when no heartbeat carried it; and a retry after the trainer finished keeps its output. The
// `command` trainer is the STAND-IN (scripts/stand-in-trainer.ts: a real subprocess that saves step checkpoints and
// resumes from {resume_from}); no GPU or weights here.
import { MockActivityEnvironment } from '@temporalio/testing';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { trainCheckpoint } from '../../../../activities/stages/train-checkpoint';
import { storeFor } from '../../../../activities/artifacts/store';
import { newestPublishedStep } from '../../../../activities/training/published-steps';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../../helpers/config';
import { s3Storage, useS3Server } from '../../../helpers/s3-server';
import { realCpuLoop, tinyBaseCheckpoint } from '../../../helpers/tiny-model';
import { waitUntil } from '../../../helpers/wait';

const server = useS3Server();
type TrainResult = Awaited<ReturnType<typeof trainCheckpoint>>;

/** A stand-in trainer of 12 steps (saved every 4) whose first attempt dies after step 8, as on a failed GPU, and the
 *  stage's input on one DPO row; `where` patches the config (state dir, storage). */
async function trainingThatCrashesAt8(runName: string, stateDir: string, where: (c: Record<string, any>) => void = () => {}) {
  const config = testConfig(stateDir, (c) => {
    where(c);
    c.trainer = {
      kind: 'command',
      method: 'dpo',
      command: [...STAND_IN_TRAINER, '--steps', '12', '--crash-after-step', '8'],
      heartbeatTimeoutSeconds: 10,
    };
  });
  const dpo = await storeFor(config).putJsonl([{ prompt: 'p', chosen: 'a', rejected: 'b' }]);
  const input = { runName, iteration: 0, config, checkpoint: config.baseCheckpoint, data: { dpo } };
  await expect(new MockActivityEnvironment().run(trainCheckpoint, input)).rejects.toThrow(/simulated crash after step 8/);
  return { config, input, dpo };
}

describe('a train stage retried on another host', () => {
  it('resumes from the newest step the first host published, fetched to its own disk', async () => {
    const hostA = tempStateDir('train-host-a-');
    // The base checkpoint outside host A's state dir: it outlives that host, as one in the store would.
    const { config, input, dpo } = await trainingThatCrashesAt8('moved', tempStateDir('train-starter-'), (c) => {
      c.stateDir = hostA;
      c.storage = s3Storage(server(), 'steps-c');
    });
    const onA = path.join(hostA, 'checkpoints', 'moved', 'iter-1.partial', 'step-8');
    expect(existsSync(onA)).toBe(true);
    expect(await newestPublishedStep(config, 'moved/iter-1', dpo.sha256)).toMatchObject({ step: 8 });

    // Host A is gone; the retry on host B gets host A's last heartbeat (a path on A's disk).
    rmSync(hostA, { recursive: true, force: true });
    const hostB = tempStateDir('train-host-b-');
    const retry = new MockActivityEnvironment({
      attempt: 2,
      heartbeatDetails: { attempt: 1, step: 8, checkpoint: onA, checkpointStep: 8 },
    });
    const result = (await retry.run(trainCheckpoint, { ...input, config: { ...config, stateDir: hostB } })) as TrainResult;
    const log = readFileSync(path.join(hostB, 'logs', 'moved', 'train-iter-0.log'), 'utf8');
    const fetched = path.join(hostB, 'train', 'moved', 'iter-0', 'resumed', 'step-8');
    expect(log).toContain(`resuming from ${fetched} at step 8`);
    expect(/\bstep (\d+)\/12/.exec(log)?.[1]).toBe('9'); // no step before 9 is trained again
    expect(result.steps).toBe(12);
    expect(result.resumedFromStep).toBe(8);
  }, 120_000);
});

describe('a command trainer retried on the same host', () => {
  it('resumes from the last checkpoint it announced, though no heartbeat carried it to the server', async () => {
    const stateDir = tempStateDir('train-same-host-');
    const { input } = await trainingThatCrashesAt8('same-host', stateDir);
    // The worker died before its last heartbeats reached the server: the retry gets no details at all.
    const result = (await new MockActivityEnvironment({ attempt: 2 }).run(trainCheckpoint, input)) as TrainResult;
    const log = readFileSync(path.join(stateDir, 'logs', 'same-host', 'train-iter-0.log'), 'utf8');
    expect(log).toContain(`resuming from ${path.join(stateDir, 'checkpoints', 'same-host', 'iter-1.partial', 'step-8')} at step 8`);
    expect(result).toMatchObject({ steps: 12, resumedFromStep: 8 });
  }, 120_000);
});

describe('a built-in trainer (TRL, tiny model on CPU) retried on another host', () => {
  it('resumes from the newest checkpoint-N the first host published, put back in its own work dir', async () => {
    const starter = tempStateDir('trl-starter-');
    const base = await tinyBaseCheckpoint(starter);
    const hostA = tempStateDir('trl-host-a-');
    const config = testConfig(starter, (c) => {
      // Gradient accumulation makes each step slow enough that the first host is stopped well before step 8.
      realCpuLoop(base, { method: 'sft', maxSteps: 8, saveSteps: 2, gradientAccumulation: 4, maxLength: 256 })(c);
      c.stateDir = hostA;
      c.storage = s3Storage(server(), 'steps-trl');
    });
    const rows = Array.from({ length: 16 }, (_, i) => ({
      prompt: [{ role: 'user', content: `What is ${i} + ${i + 1}?` }],
      completion: [{ role: 'assistant', content: `The answer is ${2 * i + 1}.` }],
    }));
    const sft = await storeFor(config).putJsonl(rows);
    const input = { runName: 'trl-moved', iteration: 0, config, checkpoint: base, data: { sft } };
    // Host A trains until its first checkpoint is in the bucket, then is gone (its attempt cancelled, its disk lost).
    const first = new MockActivityEnvironment();
    const running = first.run(trainCheckpoint, input).catch((e: unknown) => e);
    const published = await waitUntil(() => newestPublishedStep(config, 'trl-moved/iter-1', sft.sha256), 240_000, 'a published step');
    first.cancel();
    await running;
    rmSync(hostA, { recursive: true, force: true });

    const hostB = tempStateDir('trl-host-b-');
    const result = (await new MockActivityEnvironment({ attempt: 2 }).run(trainCheckpoint, {
      ...input,
      config: { ...config, stateDir: hostB },
    })) as TrainResult;
    const log = readFileSync(path.join(hostB, 'logs', 'trl-moved', 'train-iter-0.log'), 'utf8');
    const resumed = Number(/collab-loop-resumed \{"step": (\d+)\}/.exec(log)?.[1]);
    expect(resumed).toBeGreaterThanOrEqual(published.step);
    expect(log).toContain(`resumes from ${path.join(hostB, 'train', 'trl-moved', 'iter-0', 'work', `checkpoint-${resumed}`)}`);
    expect(result).toMatchObject({ steps: 8, resumedFromStep: resumed });
  }, 600_000);
});

describe('a train stage retried after its trainer finished', () => {
  it('records the finished output instead of training again', async () => {
    const stateDir = tempStateDir('train-finished-');
    const config = testConfig(stateDir, (c) => {
      c.trainer = { kind: 'command', method: 'dpo', command: [...STAND_IN_TRAINER, '--steps', '30'], heartbeatTimeoutSeconds: 10 };
    });
    const dpo = await storeFor(config).putJsonl([{ prompt: 'p', chosen: 'a', rejected: 'b' }]);
    const input = { runName: 'again', iteration: 0, config, checkpoint: config.baseCheckpoint, data: { dpo } };
    const first = (await new MockActivityEnvironment().run(trainCheckpoint, input)) as TrainResult;
    // The stage failed after the trainer exited, before the lineage beside the weights was written (the store down
    // beyond its tolerance while the manifest was written): `collab-loop retry` starts the stage anew.
    const output = path.join(stateDir, 'checkpoints', 'again', 'iter-1');
    rmSync(path.join(output, 'collab-loop-checkpoint.json'));
    const retried = (await new MockActivityEnvironment().run(trainCheckpoint, input)) as TrainResult;
    const log = readFileSync(path.join(stateDir, 'logs', 'again', 'train-iter-0.log'), 'utf8');
    expect(log.match(/· train: /g)).toHaveLength(1); // the trainer ran once
    expect(retried.checkpoint).toBe(output);
    expect(retried.steps).toBe(30);
    expect(retried.finalLoss).toBe(first.finalLoss);
    expect(existsSync(path.join(output, 'collab-loop-checkpoint.json'))).toBe(true);
  }, 120_000);
});
