// The durability promise: SIGKILL the worker mid-generation, start a new one, and the run completes with every
// conversation present once — and the endpoint never answered the same request twice, except the requests that
// were in flight at the moment of the kill.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { evaluatedRecords, recordKeys } from '../../helpers/records';
import type { RunningServer } from '../../../activities/serving/openai-compatible-server';
import { startDevServer } from '../../helpers/temporal';
import { tempStateDir, testConfig } from '../../helpers/config';
import { evaluateOn, startCountingEndpoint } from '../../helpers/endpoint';
import { cliProcess } from '../../helpers/cli';

const KILL_AT_ANSWER = 40;
let env: TestWorkflowEnvironment;
let server: RunningServer;
/** Called by the endpoint as it produces its KILL_AT_ANSWER-th answer: the kill lands mid-generation, by count. */
let atKillPoint: (() => void) | undefined;
beforeAll(async () => {
  env = await startDevServer();
  server = await startCountingEndpoint({
    latencyMs: 150,
    capacity: 8,
    onAnswer: (n) => {
      if (n === KILL_AT_ANSWER) atKillPoint?.();
    },
  });
});
afterAll(async () => {
  await server?.close();
  await env?.teardown();
});

describe('worker killed with SIGKILL mid-generation', () => {
  it('completes after a restart without re-paying finished calls', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      evaluateOn(server, c);
      c.generation = { shardSize: 8, concurrency: 8, heartbeatTimeoutSeconds: 3 };
    });
    const workerEnv = { TEMPORAL_ADDRESS: env.address };
    const first = cliProcess(['worker'], workerEnv);
    // SIGKILL from inside the endpoint, as it answers request 40 of at least 64 (32 conversations, 2+ calls each):
    // however fast or slow the machine, the worker dies with work left to do.
    atKillPoint = () => first.kill('SIGKILL');
    const runName = 'kill-test';
    const handle = await env.client.workflow.start(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config, evalOnly: true }],
    });
    await first;
    expect(first.killed).toBe(true);
    // Requests the dead worker had sent but not yet cached are the only ones allowed to be paid twice. The
    // worker never has more than the endpoint's maxConcurrency (8) requests outstanding, so that bounds them.
    const atKill = server.stats();
    const maxOutstanding = 8;
    expect(atKill.completed).toBeGreaterThanOrEqual(KILL_AT_ANSWER - 1); // every answer before the kill point was sent

    const second = cliProcess(['worker'], workerEnv);
    try {
      const result = await handle.result();
      const stats = server.stats();
      expect(stats.duplicates).toBeLessThanOrEqual(maxOutstanding);
      expect(stats.completed).toBeGreaterThan(atKill.completed); // the run really continued after the kill
      expect(result.iterations[0].metrics.conversations).toBe(32);
      const keys = recordKeys(evaluatedRecords(result.iterations[0]));
      expect(keys).toHaveLength(32);
      expect(new Set(keys).size).toBe(32);
    } finally {
      second.kill('SIGTERM');
      await second;
    }
  });
});
