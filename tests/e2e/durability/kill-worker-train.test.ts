// The durability promise for a society of trained models: SIGKILL the worker while the debate's six generator and
// critic roles all train in parallel (`worker --gpu-slots 6`), start a new one, and every role finishes — each
// resumes from its OWN last checkpoint (its own directory, a step after 0), never from step 1.
// The trainer is the STAND-IN trainer (scripts/stand-in-trainer.ts: a real subprocess that saves a checkpoint every
// 4 steps and resumes from {resume_from}); no model weights here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../../../workflows/loop';
import { defaultPayloadConverter } from '@temporalio/common';
import { iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { startDevServer } from '../../helpers/temporal';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { DEBATE_ROLES, debateTestRecipe } from '../../helpers/debate';
import { cliProcess } from '../../helpers/cli';
import { waitUntil } from '../../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const ROLES = DEBATE_ROLES;

/** Role → step of the checkpoint each running trainer last announced in its heartbeat details. */
async function announcedCheckpoints(runName: string): Promise<Record<string, number>> {
  const d = await env.client.workflow
    .getHandle(iterationWorkflowId(runName, 0))
    .describe()
    .catch(() => undefined);
  const out: Record<string, number> = {};
  for (const pa of d?.raw.pendingActivities ?? []) {
    const p = pa.heartbeatDetails?.payloads?.[0];
    if (!p) continue;
    const h = defaultPayloadConverter.fromPayload<{ role?: string; checkpoint?: string }>(p as never);
    const step = Number(/step-(\d+)$/.exec(h?.checkpoint ?? '')?.[1] ?? 0);
    if (h?.role && step > 0) out[h.role] = step;
  }
  return out;
}

describe('worker killed with SIGKILL while six roles train in parallel', () => {
  it('resumes each role from its own last checkpoint', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.recipe = debateTestRecipe();
      // 200 steps of 50 ms, a checkpoint every 4: long enough to be killed mid-way, whatever the machine.
      c.trainer = {
        kind: 'command',
        method: 'sft',
        command: [...STAND_IN_TRAINER, '--steps', '200', '--step-ms', '50'],
        heartbeatTimeoutSeconds: 3,
      };
    });
    const runName = 'kill-train';
    const partial = (role: string) => path.join(stateDir, 'checkpoints', runName, 'iter-1', `${role}.partial`);
    const savedSteps = (role: string) =>
      existsSync(partial(role)) ? readdirSync(partial(role)).map((d) => Number(/^step-(\d+)$/.exec(d)?.[1] ?? 0)) : [];
    const workerEnv = { TEMPORAL_ADDRESS: env.address };
    // Six gpu slots: all six roles train at once, so every one of them is killed mid-run and must resume.
    const worker = () => cliProcess(['worker', '--gpu-slots', '6'], workerEnv);
    const first = worker();
    const handle = await env.client.workflow.start(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config }],
    });
    // Kill once every role has reported a saved checkpoint in a heartbeat (a command trainer resumes from the last
    // checkpoint it announced, as the server last heard it).
    let announced: Record<string, number> = {};
    await waitUntil(
      async () => {
        announced = await announcedCheckpoints(runName);
        return Object.keys(announced).length === ROLES.length;
      },
      120_000,
      'every role announced a checkpoint',
    );
    first.kill('SIGKILL');
    await first;
    const second = worker();
    try {
      const result = await handle.result();
      const models = result.iterations[0].models!;
      let resumed = 0;
      for (const role of ROLES) {
        expect(models[role].nextCheckpoint, role).toBe(path.join(stateDir, 'checkpoints', runName, 'iter-1', role));
        expect(models[role].train?.steps, role).toBe(200);
        const log = readFileSync(path.join(stateDir, 'logs', runName, `train-iter-0-${role}.log`), 'utf8');
        // The retried attempt resumed from a checkpoint in this role's own directory, saved before the kill…
        const m = /resuming from (\S+) at step (\d+)/.exec(log);
        expect(m, `${role} resumed`).not.toBeNull();
        expect(m![1]).toBe(path.join(partial(role), `step-${m![2]}`));
        const step = Number(m![2]);
        expect(step).toBeGreaterThanOrEqual(announced[role]);
        expect(step).toBeLessThanOrEqual(Math.max(...savedSteps(role)));
        // …and went on from the next step, not from step 1.
        const after = log.slice(m!.index);
        expect(Number(/\bstep (\d+)\/200/.exec(after)?.[1])).toBe(step + 1);
        resumed++;
      }
      expect(resumed).toBe(ROLES.length);
    } finally {
      second.kill('SIGTERM');
      await second;
    }
  });
});
