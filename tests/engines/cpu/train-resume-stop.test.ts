// Real TRL runs under Temporal: a worker SIGKILLed mid-training is replaced and the retried train activity
// resumes from the last checkpoint TRL saved (not step 0); `collab-loop stop` during training kills the trainer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { isAlive } from '../../../activities/subprocess/process-group';
import { startDevServer } from '../../helpers/temporal';
import { withWorkers } from '../../helpers/workers';
import { tempStateDir, testConfig } from '../../helpers/config';
import { realCpuLoop, tinyBaseCheckpoint } from '../../helpers/tiny-model';
import { cli, cliProcess } from '../../helpers/cli';
import { waitUntil } from '../../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const completeCheckpoints = (workDir: string) =>
  existsSync(workDir)
    ? readdirSync(workDir).filter((d: string) => /^checkpoint-\d+$/.test(d) && existsSync(path.join(workDir, d, 'trainer_state.json')))
    : [];

describe('TRL training under Temporal', () => {
  it('resumes from the last saved checkpoint after the worker is SIGKILLed', async () => {
    const stateDir = tempStateDir();
    const base = await tinyBaseCheckpoint(stateDir);
    const config = testConfig(stateDir, (c) => {
      realCpuLoop(base, { maxSteps: 40, saveSteps: 2, heartbeatTimeoutSeconds: 8 })(c);
      c.iterations = 1;
      delete c.server.probe;
    });
    const runName = 'trl-resume';
    const workDir = path.join(stateDir, 'train', runName, 'iter-0', 'work');
    const workerEnv = { TEMPORAL_ADDRESS: env.address };
    const first = cliProcess(['worker'], workerEnv);
    const handle = await env.client.workflow.start(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config }],
    });
    await waitUntil(async () => completeCheckpoints(workDir).length > 0, 240_000, 'TRL saved a checkpoint');
    first.kill('SIGKILL');
    await first;
    const second = cliProcess(['worker'], workerEnv);
    try {
      const result = await handle.result();
      const train = result.iterations[0].train!;
      expect(train.resumedFromStep).toBeGreaterThanOrEqual(2); // continued from a saved checkpoint…
      expect(train.steps).toBe(40); // …and finished the run
      const log = readFileSync(path.join(stateDir, 'logs', runName, 'train-iter-0.log'), 'utf8');
      const resumed = /collab-loop-resumed \{"step": ?(\d+)\}/.exec(log);
      expect(Number(resumed?.[1])).toBe(train.resumedFromStep);
      // The first step the resumed attempt logged comes after the checkpoint, not from step 1.
      const after = log.slice(resumed!.index);
      const firstStep = Number(/collab-loop-progress \{"step": ?(\d+)/.exec(after)?.[1]);
      expect(firstStep).toBeGreaterThan(train.resumedFromStep!);
      const lineage = JSON.parse(readFileSync(path.join(result.iterations[0].nextCheckpoint!, 'collab-loop-checkpoint.json'), 'utf8'));
      expect(lineage.resumedFromStep).toBe(train.resumedFromStep);
    } finally {
      second.kill('SIGTERM');
      await second;
    }
  });

  it('stop during a TRL run kills the trainer process and closes the run', async () => {
    const stateDir = tempStateDir();
    const base = await tinyBaseCheckpoint(stateDir);
    const config = testConfig(stateDir, (c) => {
      realCpuLoop(base, { maxSteps: 100000, saveSteps: 0 })(c);
      c.iterations = 1;
      delete c.server.probe;
    });
    const runName = 'trl-stop';
    const pidFile = path.join(stateDir, 'trainers', runName, 'iter-0.json');
    const logFile = path.join(stateDir, 'logs', runName, 'train-iter-0.log');
    await withWorkers(env, async () => {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      await waitUntil(
        async () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('collab-loop-progress'),
        240_000,
        'TRL training',
      );
      const { pid } = JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number };
      expect(isAlive(pid)).toBe(true);
      const stop = await cli(['stop', runName], { TEMPORAL_ADDRESS: env.address });
      expect(stop.exitCode, stop.all).toBe(0);
      const result = await handle.result();
      expect(result.stopped).toBe(true);
      // Stopping waits until the trainer's process group is gone (WAIT_CANCELLATION_COMPLETED): no grace period.
      expect(isAlive(pid)).toBe(false);
      expect(existsSync(path.join(stateDir, 'checkpoints', runName, 'iter-1'))).toBe(false);
    });
  });
});
