// Steering a run from the CLI on a real server: a trainer that keeps crashing leaves the run in "needs
// attention" (not failed) with its log tail; `collab-loop retry` re-runs it; `stop` during training kills the
// trainer's whole process tree; `pause`/`resume` hold a run at a stage boundary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import path from 'node:path';
import { trainingLoop } from '../../workflows/loop';
import { iterationStatusQuery, iterationWorkflowId, loopStatusQuery, loopWorkflowId, pauseSignal } from '../../contracts/messages';
import { TASK_QUEUES, type LoopConfig } from '../../contracts/run';
import { isAlive } from '../../activities/subprocess/process-group';
import { startDevServer } from '../helpers/temporal';
import { withWorkers } from '../helpers/workers';
import { baseCheckpointIn, STAND_IN_TRAINER, tempStateDir, testConfig } from '../helpers/config';
import type { ActivityDeps } from '../../activities';
import { DEBATE_ROLES, debateTestRecipe } from '../helpers/debate';
import { cli } from '../helpers/cli';
import { waitUntil } from '../helpers/wait';
import { waitQuiescent } from '../helpers/quiescent';
import { processesWith } from '../helpers/host-processes';
import { recordHistoriesIfAsked } from '../helpers/run-loop';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});
const cliEnv = () => ({ TEMPORAL_ADDRESS: env.address });
const startLoop = (runName: string, config: LoopConfig) =>
  env.client.workflow.start(trainingLoop, {
    taskQueue: TASK_QUEUES.workflows,
    workflowId: loopWorkflowId(runName),
    args: [{ runName, config }],
  });
/** The iteration's status once a stage needs attention. */
const attentionOf = (runName: string) =>
  waitUntil(
    async () => {
      const s = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).query(iterationStatusQuery);
      return s.attention ? s : undefined;
    },
    90_000,
    'needs attention',
  );

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
      const handle = await startLoop(runName, config);
      const st = await attentionOf(runName);
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

  it('a debate role whose training exhausts its retries needs attention by name; retry trains only that role', async () => {
    const stateDir = tempStateDir();
    const marker = path.join(stateDir, 'fail-count');
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.recipe = debateTestRecipe();
      c.trainer.method = 'sft';
      c.trainer.command = [
        ...STAND_IN_TRAINER,
        '--role',
        '{role}',
        '--fail-role',
        'critic_1',
        '--fail-first',
        '2',
        '--fail-marker',
        marker,
      ];
      c.trainer.maximumAttempts = 2;
    });
    const runName = 'role-attention';
    await withWorkers(env, async () => {
      const handle = await startLoop(runName, config);
      const st = await attentionOf(runName);
      expect(st.attention).toMatchObject({ stage: 'train', roles: ['critic_1'] });
      expect(st.attention!.error).toMatch(/^training critic_1 failed; critic_1: .*simulated crash \(attempt 2\)/s);
      const status = await cli(['status', runName], cliEnv());
      expect(status.stdout).toContain('NEEDS ATTENTION in stage "train" (role critic_1)');
      // The other five roles finished while critic_1 failed.
      const done = (role: string) => existsSync(path.join(stateDir, 'checkpoints', runName, 'iter-1', role, 'collab-loop-checkpoint.json'));
      const others = DEBATE_ROLES.filter((r) => r !== 'critic_1');
      expect(others.filter(done)).toEqual(others);
      expect(done('critic_1')).toBe(false);

      const retry = await cli(['retry', runName], cliEnv());
      expect(retry.all).toContain('retrying from stage train');
      const result = await handle.result();
      expect(result.iterations[0].models!.critic_1.nextCheckpoint).toBe(path.join(stateDir, 'checkpoints', runName, 'iter-1', 'critic_1'));
      expect(readFileSync(marker, 'utf8')).toBe('3'); // critic_1 alone ran again
      // Each other role's trainer ran once: the retry did not train it again.
      for (const role of others) {
        const log = readFileSync(path.join(stateDir, 'logs', runName, `train-iter-0-${role}.log`), 'utf8');
        expect(log.match(/^done: skill/gm), role).toHaveLength(1);
      }
    });
  });

  it("stop during debate's parallel training kills every role's trainer and its children", async () => {
    const stateDir = tempStateDir();
    const pidFile = (role: string) => path.join(stateDir, `trainer-pids-${role}.json`);
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.recipe = debateTestRecipe();
      c.trainer.method = 'sft';
      c.trainer.command = [...STAND_IN_TRAINER, '--steps', '100000', '--spawn-child-pidfile', pidFile('{role}')];
    });
    const runName = 'stop-during-roles';
    await withWorkers(env, async () => {
      const handle = await startLoop(runName, config);
      // As many trainers as the gpu queue's slots (4) run at once.
      const running = await waitUntil(
        async () => {
          const started = DEBATE_ROLES.filter((r) => existsSync(pidFile(r)));
          return (
            started.length >= 4 && started.map((r) => JSON.parse(readFileSync(pidFile(r), 'utf8')) as { trainer: number; child: number })
          );
        },
        90_000,
        'four trainers started',
      );
      for (const p of running) expect(isAlive(p.trainer) && isAlive(p.child)).toBe(true);
      const stop = await cli(['stop', runName], cliEnv());
      expect(stop.exitCode).toBe(0);
      const result = await handle.result();
      expect(result.stopped).toBe(true);
      // Every role's process group is gone when the run says it stopped, and no role left a finished checkpoint.
      for (const p of running) expect(isAlive(p.trainer) || isAlive(p.child)).toBe(false);
      expect(DEBATE_ROLES.filter((r) => existsSync(path.join(stateDir, 'checkpoints', runName, 'iter-1', r)))).toEqual([]);
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
      const handle = await startLoop(runName, config);
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

  it('a trainer command fixed with retry --set holds for every later iteration; a field a loop cannot change is refused with its reason', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 3;
      c.trainer.command = [...STAND_IN_TRAINER, '--fail-first', '99', '--fail-marker', path.join(stateDir, 'fails')];
      c.trainer.maximumAttempts = 1;
    });
    const runName = 'retry-set';
    await withWorkers(env, async () => {
      const handle = await startLoop(runName, config);
      expect((await attentionOf(runName)).attention!.stage).toBe('train');

      const refused = await cli(['retry', runName, '--set', 'recipe.name=debate'], cliEnv());
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/recipe\.name.*cannot change in a running loop: the run's records, metrics and datasets/);

      const fixed = await cli(['retry', runName, '--set', `trainer.command=${JSON.stringify(STAND_IN_TRAINER)}`], cliEnv());
      expect(fixed.all).toContain('retrying from stage train');
      const result = await handle.result(); // iterations 1 and 2 needed no retry: the fix held
      expect(result.iterations.map((i) => !!i.nextCheckpoint)).toEqual([true, true, true]);
      await recordHistoriesIfAsked(env, runName, 'coral-retry-config'); // RECORD_HISTORIES=<tag>, for tests/workflows/replay.test.ts
      expect(readFileSync(path.join(stateDir, 'fails'), 'utf8')).toBe('1'); // the broken command ran once, in iteration 0
      for (const k of [1, 2]) {
        const it = await env.client.workflow.getHandle(iterationWorkflowId(runName, k)).query(iterationStatusQuery);
        expect(it.configChanges).toEqual([`trainer.command=${JSON.stringify(STAND_IN_TRAINER)}`]);
      }
      const status = await cli(['status', runName], cliEnv());
      expect(status.stdout).toContain('config changed by retry --set (this and later iterations): trainer.command=');
      const effective = parseYaml((await cli(['status', runName, '--config'], cliEnv())).stdout);
      expect(effective.trainer.command).toEqual(STAND_IN_TRAINER);
      expect(effective.recipe.name).toBe('coral');

      // Once an iteration has trained, the chain goes on from its checkpoint: the base cannot change.
      const { refusedRebase } = await import('../../configs/retry-changes');
      expect(refusedRebase(config, { ...config, baseCheckpoint: '/elsewhere' }, { trainedFrom: result.finalCheckpoint })).toEqual({
        field: 'baseCheckpoint',
        why: expect.stringContaining(`the run goes on from ${result.finalCheckpoint}`),
      });
    });
  });

  it('retry --set baseCheckpoint before anything trained serves and trains from the new base', async () => {
    const stateDir = tempStateDir();
    const good = baseCheckpointIn(stateDir);
    const bad = path.join(stateDir, 'not-a-simulator-checkpoint');
    mkdirSync(bad);
    const config = testConfig(stateDir, (c) => {
      c.iterations = 2;
      c.baseCheckpoint = bad;
    });
    const runName = 'retry-base';
    await withWorkers(env, async () => {
      const handle = await startLoop(runName, config);
      const st = await attentionOf(runName);
      expect(st.attention).toMatchObject({ stage: 'deploy', error: expect.stringContaining(bad) });
      const retry = await cli(['retry', runName, '--set', `baseCheckpoint=${good}`], cliEnv());
      expect(retry.all).toContain('retrying from stage deploy');
      const result = await handle.result();
      expect(result.iterations.map((i) => i.checkpoint)).toEqual([good, result.iterations[0].nextCheckpoint]);
      expect(result.iterations[1].nextCheckpoint).toBeDefined();
    });
  });

  it('pause releases the model servers; resume deploys again before the stage that needs them', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      delete c.recipe.trainTasks;
    });
    const runName = 'pause-release';
    let deploys = 0;
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    // The first deploy waits for the test, so the pause lands while it runs, however fast the machine.
    const wrap: ActivityDeps['wrap'] = (name, fn) =>
      name === 'deployCheckpoint'
        ? async (...a) => {
            deploys++;
            await gate;
            return fn(...a);
          }
        : fn;
    await withWorkers(
      env,
      async () => {
        const handle = await env.client.workflow.start(trainingLoop, {
          taskQueue: TASK_QUEUES.workflows,
          workflowId: loopWorkflowId(runName),
          args: [{ runName, config, evalOnly: true }],
        });
        const child = env.client.workflow.getHandle(iterationWorkflowId(runName, 0));
        await waitUntil(async () => deploys === 1, 30_000, 'deploying');
        await handle.signal(pauseSignal, true);
        await waitUntil(async () => (await child.query(iterationStatusQuery)).paused, 30_000, 'iteration paused');
        open();
        await waitQuiescent(child); // deployed, then held before generate with its servers stopped
        expect((await child.query(iterationStatusQuery)).stage).toBe('deploy');
        expect(simulatorServers(stateDir)).toEqual([]);
        expect((await cli(['resume', runName], cliEnv())).exitCode).toBe(0);
        const result = await handle.result();
        expect(deploys).toBe(2); // deployed again for generate
        await recordHistoriesIfAsked(env, runName, 'coral-pause-release');
        expect(result.iterations[0].metrics).toHaveProperty('agreement_correctness');
        expect(simulatorServers(stateDir)).toEqual([]);
      },
      { wrap },
    );
  });
});

/** Live simulator servers of a run (their argv names the run's checkpoint under its state dir). */
const simulatorServers = (stateDir: string) =>
  processesWith(stateDir)
    .filter((p) => p.argv.some((a) => a.includes('simulator-main')))
    .map((p) => p.pid);
