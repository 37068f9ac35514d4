// A worker stopped with SIGTERM (a service manager, Kubernetes, Ctrl-C's sibling) shuts down gracefully and takes
// what it started with it: the model server of a deploy that finished (generation running), and a running
// trainer. Afterwards no process of the run is left and no port its server listened on is held.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import type { LoopConfig } from '../../../contracts/config';
import { getRunStatus } from '../../../cli/loop-workflow';
import { isAlive } from '../../../activities/subprocess/process-group';
import { startDevServer } from '../../helpers/temporal';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { startCliWorker } from '../../helpers/cli';
import { portsListenedBy, processesWith } from '../../helpers/host-processes';
import { expectNothingLeft, recordedGroups } from '../../helpers/loop-groups';
import { waitUntil } from '../../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

/** The test's run: terminated after it, so that no later test's worker picks up its retried activities. */
let run: Awaited<ReturnType<typeof startRun>> | undefined;
afterEach(async () => {
  await run?.terminate().catch(() => undefined);
  run = undefined;
});

async function startRun(runName: string, config: LoopConfig, evalOnly = false) {
  return env.client.workflow.start(trainingLoop, {
    taskQueue: TASK_QUEUES.workflows,
    workflowId: loopWorkflowId(runName),
    args: [{ runName, config, ...(evalOnly ? { evalOnly } : {}) }],
  });
}

/** SIGTERM, then the worker's own exit: it must not need a SIGKILL. */
async function terminate(worker: Awaited<ReturnType<typeof startCliWorker>>) {
  process.kill(worker.worker.pid!, 'SIGTERM'); // not execa's kill(), which adds a SIGKILL after 5 s
  const r = await worker.worker;
  expect(r.signal, worker.output()).toBeUndefined();
  return r;
}

/** An evaluation-only run whose simulator answers slowly: generation is still running when the worker is stopped. */
const slowServing = (stateDir: string) =>
  testConfig(stateDir, (c) => {
    c.iterations = 1;
    delete c.trainer;
    delete c.recipe.trainTasks;
    c.recipe.limit = 16;
    c.server = { kind: 'simulator', latencyMs: 1000, capacity: 4 };
    c.generation = { shardSize: 4, concurrency: 4, heartbeatTimeoutSeconds: 5 };
  });

/** The recorded model server, once the run generates against it. */
const generating = (stateDir: string, runName: string) =>
  waitUntil(
    async () => {
      const s = await getRunStatus(env.client, runName);
      const [rec] = recordedGroups(stateDir, 'server');
      return s.iteration?.stage === 'generate' && s.inFlight.length > 0 && rec ? rec : undefined;
    },
    120_000,
    'generation against the deployed server',
  );

describe('worker stopped with SIGTERM', () => {
  it('during generation: the deployed model server stops with it', async () => {
    const stateDir = tempStateDir();
    const config = slowServing(stateDir);
    const worker = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, ['--state-dir', stateDir]);
    const w = worker.worker.pid!;
    try {
      run = await startRun('sigterm-serve', config, true);
      const server = await generating(stateDir, 'sigterm-serve');
      const running = processesWith(stateDir, [w]);
      expect(running.map((p) => p.pid)).toContain(server.pid);
      const ports = portsListenedBy(running.map((p) => p.pid));
      expect(ports).toContain(server.port);
      console.log(`before SIGTERM: ${running.length} process(es) of the run, listening on ${ports.join(', ')}`);

      await terminate(worker);
      expect(isAlive(server.pid)).toBe(false);
      expectNothingLeft(stateDir, ports);
      expect(recordedGroups(stateDir)).toEqual([]);
    } finally {
      if (worker.worker.exitCode === null) await worker.stop();
    }
  });

  it('during training: the trainer stops with it', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.trainer = { kind: 'command', method: 'dpo', command: [...STAND_IN_TRAINER, '--steps', '2000', '--step-ms', '50'] };
    });
    const worker = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, ['--state-dir', stateDir]);
    const w = worker.worker.pid!;
    try {
      run = await startRun('sigterm-train', config);
      const trainer = await waitUntil(
        async () => {
          const s = await getRunStatus(env.client, 'sigterm-train');
          const [rec] = recordedGroups(stateDir, 'trainer');
          return s.training?.length && rec ? rec : undefined;
        },
        120_000,
        'the trainer to run',
      );
      const running = processesWith(stateDir, [w]);
      expect(running.map((p) => p.pid)).toContain(trainer.pid);
      const ports = portsListenedBy(running.map((p) => p.pid));
      console.log(`before SIGTERM: ${running.length} process(es) of the run (the trainer), ports [${ports.join(', ')}]`);

      await terminate(worker);
      expect(isAlive(trainer.pid)).toBe(false);
      expectNothingLeft(stateDir, ports);
      expect(recordedGroups(stateDir)).toEqual([]);
    } finally {
      if (worker.worker.exitCode === null) await worker.stop();
    }
  });

  it('with --keep-servers: the server outlives it for the next worker, the run completes, and undeploy stops it', async () => {
    const stateDir = tempStateDir();
    const config = slowServing(stateDir);
    const args = ['--state-dir', stateDir, '--keep-servers'];
    const first = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, args);
    let second: Awaited<ReturnType<typeof startCliWorker>> | undefined;
    try {
      const handle = await startRun('sigterm-keep', config, true);
      run = handle;
      const server = await generating(stateDir, 'sigterm-keep');
      await terminate(first);
      expect(isAlive(server.pid)).toBe(true);
      expect(portsListenedBy([server.pid])).toEqual([server.port]);

      second = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, args);
      expect(second.output()).not.toContain('stopped server');
      const result = await handle.result();
      expect(result.iterations[0].metrics.conversations).toBe(16);
      expect(isAlive(server.pid)).toBe(false); // the run's undeploy stopped it
      expectNothingLeft(stateDir, [server.port!], [second.worker.pid!]);
    } finally {
      for (const w of [first, second]) if (w && w.worker.exitCode === null) await w.stop();
    }
  });
});
