// A gpu worker lost mid-generation takes the loop's model server with it: the worker is SIGKILLed (its server lives
// on, an orphan) and a new gpu worker on the host starts and reaps the orphan (process-registry.ts reapOrphans),
// while the iteration still holds the dead server's endpoint. The iteration notices (ServedEndpointGone,
// activities/llm/served-gone.ts), deploys again on the new worker and reruns only the missing shards: the run
// completes long before the 600 s llm.outageToleranceSeconds, nothing needs attention, and no request is answered
// twice except those in flight when the server died. Two workers as docs/operations.md's multi-host section has them (gpu,
// and workflows,llm,cpu,sandbox), on one host; the model server is the default test config's simulator (no weights).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../../activities/subprocess/process-group';
import { iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { trainingLoop } from '../../../workflows/loop';
import { cli, startCliWorker } from '../../helpers/cli';
import { tempStateDir, testConfig } from '../../helpers/config';
import { evaluatedRecords, recordKeys } from '../../helpers/records';
import { recordHistoriesIfAsked } from '../../helpers/run-loop';
import { startDevServer } from '../../helpers/temporal';
import { waitForAttention, waitUntil } from '../../helpers/wait';
import { withWorkers } from '../../helpers/workers';

/** The simulator's requests in service at once: the most that can be in flight as a server dies. */
const CAPACITY = 4;
const KILL_AT_ANSWER = 20;
/** Far below the 600 s a call would wait for its endpoint without the redeploy, generous for a loaded machine. */
const BOUND_MS = 180_000;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

/** The deploys an iteration scheduled, from its history. */
async function deploysOf(runName: string): Promise<number> {
  const history = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).fetchHistory();
  return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deployCheckpoint').length;
}

/** 48 conversations (24 questions × 2 samples) on the simulator, evaluation only. */
const lostServerConfig = (stateDir: string, latencyMs: number) =>
  testConfig(stateDir, (c) => {
    c.iterations = 1;
    delete c.trainer;
    delete c.recipe.trainTasks;
    c.recipe.limit = 24;
    c.recipe.evalSamples = 2;
    c.server = { kind: 'simulator', latencyMs, capacity: CAPACITY, maxConcurrency: CAPACITY };
    c.generation = { shardSize: 4, concurrency: 4, heartbeatTimeoutSeconds: 5 };
  });

interface ServerStats {
  completed: number;
  byKey: Record<string, number>;
}

/** Follows the iteration's model server through its pid file, keeping each server's last /stats by pid: a server's
 *  counts die with it, so the last ones read before it died stand for it. */
function watchServers(stateDir: string, runName: string) {
  const file = path.join(stateDir, 'servers', runName, 'iter-0.model.json');
  const seen = new Map<number, ServerStats>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const rec = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; endpoint: { baseUrl: string } };
        const res = await fetch(`${rec.endpoint.baseUrl.replace(/\/v1$/, '')}/stats`, { signal: AbortSignal.timeout(2000) });
        seen.set(rec.pid, (await res.json()) as ServerStats);
      } catch {
        // no server yet, or between servers
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    servers: () => [...seen.entries()],
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

describe('the gpu worker and its model server lost mid-generation', () => {
  it('the iteration deploys again on the new gpu worker and completes, re-running only what was missing', async () => {
    const stateDir = tempStateDir('lost-servers-');
    const runName = 'lost-servers';
    // About a minute of generation at 4 answers a second: the new worker starts well before it would end.
    const config = lostServerConfig(stateDir, 1000);
    const workerEnv = { TEMPORAL_ADDRESS: env.address };
    const gpuWorker = () => startCliWorker(workerEnv, ['--queues', 'gpu', '--state-dir', stateDir]);
    const main = await startCliWorker(workerEnv, ['--queues', 'workflows,llm,cpu,sandbox', '--state-dir', stateDir]);
    const first = await gpuWorker();
    let second: Awaited<ReturnType<typeof gpuWorker>> | undefined;
    const watch = watchServers(stateDir, runName);
    try {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config, evalOnly: true }],
      });
      const [oldPid] = await waitUntil(
        async () => watch.servers().find(([, s]) => s.completed >= KILL_AT_ANSWER),
        120_000,
        `the model server's answer ${KILL_AT_ANSWER}`,
      );
      first.worker.kill('SIGKILL');
      await first.worker;
      const killedAt = Date.now();
      expect(isAlive(oldPid)).toBe(true); // the server outlives its worker…
      second = await gpuWorker();
      expect(second.output()).toContain(`stopped server pid ${oldPid}`); // …until the new worker reaps it
      expect(isAlive(oldPid)).toBe(false);

      const result = await Promise.race([
        handle.result(),
        new Promise<never>((_, reject) =>
          setTimeout(
            () =>
              reject(
                new Error(
                  `no result ${BOUND_MS / 1000} s after the kill\n--- main worker:\n${main.output()}\n--- new gpu worker:\n${second!.output()}`,
                ),
              ),
            BOUND_MS - (Date.now() - killedAt),
          ),
        ),
      ]);
      await watch.stop();

      // Completed without a retry, so no stage needed attention (it would wait for one); every conversation once.
      expect(result.iterations[0].metrics.conversations).toBe(48);
      const keys = recordKeys(evaluatedRecords(result.iterations[0]));
      expect(keys).toHaveLength(48);
      expect(new Set(keys).size).toBe(48);

      // Deployed twice: the second time on the new worker, whose server answered the rest.
      expect(await deploysOf(runName)).toBe(2);
      const servers = watch.servers();
      expect(servers.map(([pid]) => pid)).toHaveLength(2);
      const [, [, after]] = servers;
      expect(after.completed).toBeGreaterThan(0);

      // No request answered twice, except those in flight as the old server died (at most its capacity).
      const answered: Record<string, number> = {};
      for (const [, s] of servers) for (const [k, n] of Object.entries(s.byKey)) answered[k] = (answered[k] ?? 0) + n;
      const twice = Object.values(answered).reduce((a, n) => a + n - 1, 0);
      console.log(
        `lost server: ${servers.map(([pid, s]) => `pid ${pid} answered ${s.completed}`).join(', ')}; ${twice} answered twice; ` +
          `completed ${Math.round((Date.now() - killedAt) / 1000)} s after the kill`,
      );
      expect(twice).toBeLessThanOrEqual(CAPACITY);
      await recordHistoriesIfAsked(env, runName, 'coral');
    } finally {
      await watch.stop();
      first.worker.kill('SIGKILL');
      await Promise.all([main.stop(), second?.stop()]);
    }
  }, 420_000);

  it('a server lost again after every deploy needs attention after 3 redeploys, and the retry deploys again', async () => {
    const stateDir = tempStateDir('lost-servers-again-');
    const runName = 'lost-servers-again';
    const config = lostServerConfig(stateDir, 300);
    const watch = watchServers(stateDir, runName);
    try {
      await withWorkers(env, async () => {
        const handle = await env.client.workflow.start(trainingLoop, {
          taskQueue: TASK_QUEUES.workflows,
          workflowId: loopWorkflowId(runName),
          args: [{ runName, config, evalOnly: true }],
        });
        // Each server the iteration deploys dies (its process group killed) once it has answered 4 requests.
        const killed = new Set<number>();
        for (let i = 0; i < 4; i++) {
          const [pid] = await waitUntil(
            async () => watch.servers().find(([p, st]) => !killed.has(p) && st.completed >= 4),
            120_000,
            `server ${i + 1} to answer`,
          );
          process.kill(-pid, 'SIGKILL');
          killed.add(pid);
        }
        const status = await waitForAttention(env.client, runName, 0, 120_000);
        expect(status.attention).toMatchObject({ stage: 'generate', failureType: 'ServedEndpointGone' });
        expect(status.attention?.error).toMatch(/the model server the loop deployed is gone \(connection refused for \d+ s\)/);
        expect(status.attention?.error).toContain('deployed again 3 times in this iteration and lost each time');
        expect(await deploysOf(runName)).toBe(4);

        // The user's retry deploys once more, and this server lives: the run completes with every conversation once.
        const retry = await cli(['retry', runName], { TEMPORAL_ADDRESS: env.address });
        expect(retry.exitCode, retry.all).toBe(0);
        const result = await handle.result();
        expect(await deploysOf(runName)).toBe(5);
        const keys = recordKeys(evaluatedRecords(result.iterations[0]));
        expect(keys).toHaveLength(48);
        expect(new Set(keys).size).toBe(48);
      });
    } finally {
      await watch.stop();
    }
  }, 420_000);
});
