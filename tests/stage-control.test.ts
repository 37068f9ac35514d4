// Steering a run from the CLI on a real server: a trainer that keeps crashing leaves the run in "needs
// attention" (not failed) with its log tail; `collab-loop retry` re-runs it; `stop` during training kills the
// trainer's whole process tree; `pause`/`resume` hold a run at a stage boundary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../workflows/loop';
import { iterationStatusQuery, iterationWorkflowId, loopStatusQuery, loopWorkflowId, pauseSignal } from '../workflows/messages';
import { TASK_QUEUES } from '../workflows/types';
import { isAlive } from '../activities/subprocess/process-group';
import { startDevServer } from './helpers/temporal';
import { withWorkers } from './helpers/workers';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from './helpers/config';
import { cli } from './helpers/cli';
import { waitUntil } from './helpers/wait';
import { waitQuiescent } from './helpers/quiescent';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});
const cliEnv = () => ({ TEMPORAL_ADDRESS: env.address });

describe('stage control', () => {
  it('a trainer failing 3 times leaves the run needing attention; retry after the fix completes it', async () => {
    const stateDir = tempStateDir();
    const marker = path.join(stateDir, 'fail-count');
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.trainer.command = [...STAND_IN_TRAINER, '--fail-first', '3', '--fail-marker', marker];
      c.trainer.maximumAttempts = 3;
    });
    const runName = 'attention';
    await withWorkers(env, async () => {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      const child = env.client.workflow.getHandle(iterationWorkflowId(runName, 0));
      const st = await waitUntil(
        async () => {
          const s = await child.query(iterationStatusQuery);
          return s.attention ? s : undefined;
        },
        90_000,
        'needs attention',
      );
      expect(st.attention!.stage).toBe('train');
      expect(st.attention!.error).toContain('simulated crash (attempt 3)'); // the log tail names the last attempt
      expect(readFileSync(marker, 'utf8')).toBe('3');
      expect((await handle.describe()).status.name).toBe('RUNNING'); // waiting, not failed

      const status = await cli(['status', runName], cliEnv());
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toContain('NEEDS ATTENTION in stage "train"');

      const retry = await cli(['retry', runName, '--set', 'trainer.maximumAttempts=2'], cliEnv());
      expect(retry.all).toContain('retrying from stage train');
      const result = await handle.result();
      expect(result.iterations[0].nextCheckpoint).toBeDefined();
      expect(readFileSync(marker, 'utf8')).toBe('4');

      const again = await cli(['retry', runName], cliEnv());
      expect(again.exitCode).toBe(2);
      expect(again.stderr).toMatch(/has no stage that needs attention/);
    });
  });

  it('stop during training kills the trainer and its children, and cleans up', async () => {
    const stateDir = tempStateDir();
    const pidFile = path.join(stateDir, 'trainer-pids.json');
    const config = testConfig(stateDir, (c) => {
      c.iterations = 2;
      c.trainer.command = [...STAND_IN_TRAINER, '--steps', '100000', '--spawn-child-pidfile', pidFile];
    });
    const runName = 'stop-during-train';
    await withWorkers(env, async () => {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      const pids = await waitUntil(
        async () => existsSync(pidFile) && (JSON.parse(readFileSync(pidFile, 'utf8')) as { trainer: number; child: number }),
        90_000,
        'trainer started',
      );
      expect(isAlive(pids.trainer) && isAlive(pids.child)).toBe(true);
      const stop = await cli(['stop', runName], cliEnv());
      expect(stop.exitCode).toBe(0);
      const result = await handle.result();
      expect(result.stopped).toBe(true);
      expect(result.iterations).toHaveLength(0);
      // Stopping waits until the trainer's process group is gone (WAIT_CANCELLATION_COMPLETED): no grace period.
      expect(isAlive(pids.trainer)).toBe(false);
      expect(isAlive(pids.child)).toBe(false);
    });
  });

  it('pause holds the run at a stage boundary and resume continues it', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      delete c.recipe.trainTasks;
      c.server = { kind: 'simulator', latencyMs: 400 }; // slow enough that the run is still going when we pause
    });
    const runName = 'pause';
    // Started with no worker polling, so the CLI's pause lands before anything runs, however slow the machine.
    const handle = await env.client.workflow.start(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config, evalOnly: true }],
    });
    const pause = await cli(['pause', runName], cliEnv());
    expect(pause.all).toContain('pausing at the next stage boundary');
    await withWorkers(env, async () => {
      // The loop holds before its iteration starts.
      await waitUntil(async () => (await handle.query(loopStatusQuery)).paused, 30_000, 'loop paused');
      // Nothing pending: only a signal can move the loop now, so the iteration cannot start however long we wait.
      await waitQuiescent(handle);
      await expect(env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).describe()).rejects.toThrow();
      expect((await cli(['status', runName], cliEnv())).stdout).toMatch(/· paused ·/);
      expect((await cli(['resume', runName], cliEnv())).exitCode).toBe(0);
      // Paused again mid-generation: the running stage finishes, the next one does not start.
      const child = env.client.workflow.getHandle(iterationWorkflowId(runName, 0));
      await waitUntil(async () => (await child.query(iterationStatusQuery)).stage === 'generate', 30_000, 'generating');
      await handle.signal(pauseSignal, true);
      const held = await waitUntil(
        async () => {
          const s = await child.query(iterationStatusQuery);
          return s.paused ? s : undefined;
        },
        30_000,
        'iteration paused',
      );
      // The running stage finishes its activities; then nothing is pending, so the next stage cannot start.
      await waitQuiescent(child);
      const after = await child.query(iterationStatusQuery);
      expect(after.stage).toBe(held.stage);
      expect(after.shards.done).toBe(after.shards.total); // the held stage did finish
      expect((await child.describe()).status.name).toBe('RUNNING');
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect((await cli(['status', runName], cliEnv())).stdout).toContain('(paused)');
      expect((await cli(['resume', runName], cliEnv())).exitCode).toBe(0);
      const result = await handle.result();
      expect(result.iterations).toHaveLength(1);
    });
  });
});
