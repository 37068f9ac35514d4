// A worker killed with SIGKILL cannot stop what it started: its model server (and, separately, its trainer) lives
// on as an orphan, holding its port (a GPU, on a real host). The next worker started with the same --state-dir
// finds the orphan in the host's process registry and stops it before it polls; the run then completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import type { LoopConfig } from '../../../contracts/config';
import { isAlive } from '../../../activities/subprocess/process-group';
import { simulatorCommand } from '../../helpers/simulator-command';
import type { GroupRecord } from '../../../activities/subprocess/process-registry';
import { startDevServer } from '../../helpers/temporal';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { startCliWorker } from '../../helpers/cli';
import { portsListenedBy, processesWith, stillListening } from '../../helpers/host-processes';
import { expectNothingLeft, recordedGroups } from '../../helpers/loop-groups';
import { waitUntil } from '../../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const workerEnv = () => ({ TEMPORAL_ADDRESS: env.address });

/** Kills the first worker (SIGKILL) once `orphan` names a group it recorded; the orphan must outlive it. */
async function killWorkerLeaving(
  stateDir: string,
  runName: string,
  config: LoopConfig,
  orphan: () => GroupRecord | undefined,
  evalOnly = false,
) {
  const first = await startCliWorker(workerEnv(), ['--state-dir', stateDir]);
  const handle = await env.client.workflow.start(trainingLoop, {
    taskQueue: TASK_QUEUES.workflows,
    workflowId: loopWorkflowId(runName),
    args: [{ runName, config, ...(evalOnly ? { evalOnly } : {}) }],
  });
  const rec = await waitUntil(async () => orphan(), 120_000, 'the group to start');
  first.worker.kill('SIGKILL');
  await first.worker;
  expect(isAlive(first.worker.pid!)).toBe(false);
  return { handle, rec };
}

/** The next worker on this host stops the orphan before it polls; returns it (stop() for the test's end). */
async function nextWorkerReaps(stateDir: string, rec: GroupRecord) {
  const second = await startCliWorker(workerEnv(), ['--state-dir', stateDir]);
  expect(second.output()).toContain(`stopped ${rec.kind} pid ${rec.pid}`);
  expect(isAlive(rec.pid)).toBe(false);
  expect(processesWith(stateDir, [second.worker.pid!]).map((p) => p.pid)).not.toContain(rec.pid);
  return second;
}

async function stopWorker(w: Awaited<ReturnType<typeof startCliWorker>>) {
  process.kill(w.worker.pid!, 'SIGTERM');
  await w.worker;
}

describe('worker killed with SIGKILL', () => {
  it('while its model server starts: the next worker stops the orphan, frees its port, and the run completes', async () => {
    const stateDir = tempStateDir();
    // The simulator as a `command` server behind a gate: it stays "starting" until the test opens the gate, so the
    // worker dies inside the deploy, with the server's process group running.
    const gate = path.join(stateDir, 'gate');
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      delete c.recipe.trainTasks;
      c.server = {
        kind: 'command',
        command: ['sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.2; done; exec "$0" "$@"`, ...simulatorCommand()],
        servedModel: 'sim',
        healthPath: '/health',
      };
    });
    const { handle, rec } = await killWorkerLeaving(stateDir, 'orphan-server', config, () => recordedGroups(stateDir, 'server')[0], true);
    // The orphan survives its worker: once let through the gate it serves, on the port the deploy gave it.
    writeFileSync(gate, '');
    await waitUntil(async () => stillListening([rec.port!]).length === 1, 60_000, 'the orphan to listen');
    expect(isAlive(rec.pid)).toBe(true);
    expect(portsListenedBy([rec.pid])).toEqual([rec.port]);
    console.log(`after SIGKILL: orphan server pid ${rec.pid} listening on ${rec.port}`);

    const second = await nextWorkerReaps(stateDir, rec);
    try {
      expect(stillListening([rec.port!])).toEqual([]);
      const result = await handle.result();
      expect(result.iterations[0].metrics.conversations).toBe(8);
    } finally {
      await stopWorker(second);
    }
    expectNothingLeft(stateDir, [rec.port!]);
  });

  it('while it trains: the next worker stops the orphaned trainer, and the run completes', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.trainer = {
        kind: 'command',
        method: 'dpo',
        command: [...STAND_IN_TRAINER, '--steps', '200', '--step-ms', '50', '--survive-lost-output'],
        heartbeatTimeoutSeconds: 3,
      };
    });
    const { handle, rec } = await killWorkerLeaving(stateDir, 'orphan-trainer', config, () => recordedGroups(stateDir, 'trainer')[0]);
    // The orphan trains on without its worker: it still saves checkpoints.
    const saved = () => readdirSync(stateDir, { recursive: true }).filter((f) => /step-\d+$/.test(String(f))).length;
    const atKill = saved();
    await waitUntil(async () => saved() > atKill, 60_000, 'the orphan to save another checkpoint');
    expect(isAlive(rec.pid)).toBe(true);
    expect(processesWith(stateDir).map((p) => p.pid)).toContain(rec.pid);
    console.log(`after SIGKILL: orphan trainer pid ${rec.pid}`);

    const second = await nextWorkerReaps(stateDir, rec);
    try {
      const result = await handle.result();
      expect(result.iterations).toHaveLength(1);
      expect(result.iterations[0].train?.steps).toBe(200);
    } finally {
      await stopWorker(second);
    }
    expectNothingLeft(stateDir, []);
  });
});
