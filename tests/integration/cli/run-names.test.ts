// A run name is one run: `start` refuses a name already used (whatever its run's state) and starts nothing;
// `continue` goes on with a stopped run from its last finished iteration without paying any request twice;
// `start --restart` begins the name anew and leaves the earlier run's checkpoints as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { iterationStatusQuery, iterationWorkflowId, loopStatusQuery, loopWorkflowId, pauseSignal } from '../../../contracts/messages';
import type { LoopResult } from '../../../workflows/loop';
import type { RunningServer } from '../../../activities/serving/openai-compatible-server';
import { cli } from '../../helpers/cli';
import { tempStateDir, testConfigRaw } from '../../helpers/config';
import { externalDeploy, startCountingEndpoint } from '../../helpers/endpoint';
import { waitQuiescent } from '../../helpers/quiescent';
import { namespaceOf, startDevServer } from '../../helpers/temporal';
import { waitUntil } from '../../helpers/wait';
import { recordHistoriesIfAsked } from '../../helpers/run-loop';
import { withWorkers } from '../../helpers/workers';

let env: TestWorkflowEnvironment;
let endpoint: RunningServer;
/** Called by the endpoint as it produces each answer: the test pauses the run by count, not by time. */
let onAnswer: (() => void) | undefined;
beforeAll(async () => {
  env = await startDevServer();
  endpoint = await startCountingEndpoint({ latencyMs: 30, capacity: 8, onAnswer: () => onAnswer?.() });
});
afterAll(async () => {
  await endpoint?.close();
  await env?.teardown();
});
const cliEnv = () => ({ TEMPORAL_ADDRESS: env.address });

/** The test config saved as a YAML file, as a user would pass it to `start`. */
function configFile(stateDir: string, patch: (raw: Record<string, any>) => void): string {
  const file = path.join(stateDir, 'run.yaml');
  writeFileSync(file, stringify(testConfigRaw(stateDir, patch)));
  return file;
}

/** Every file under a directory with the sha256 of its bytes. */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
  }
  return out;
}

/** Two iterations of 32 conversations against the counting endpoint (whose answers don't depend on the checkpoint). */
const countedRunFile = () =>
  configFile(tempStateDir(), (raw) => {
    raw.iterations = 2;
    raw.recipe.limit = 16;
    raw.recipe.evalSamples = 2;
    raw.server = externalDeploy(endpoint, 8);
    raw.generation = { shardSize: 4, concurrency: 8, heartbeatTimeoutSeconds: 5 };
  });

/** Acts as the endpoint produces its n-th answer from now on: on a run, by count rather than by time. */
function atAnswer(n: number, act: () => void): void {
  let answered = 0;
  onAnswer = () => {
    if (++answered === n) act();
  };
}

const runIdOf = async (runName: string) => (await env.client.workflow.getHandle(loopWorkflowId(runName)).describe()).runId;

describe('run names', () => {
  it('continue after stop finishes the run and pays no request twice; start with the name is refused', async () => {
    const file = countedRunFile();
    const runName = 'continued';
    const loop = env.client.workflow.getHandle(loopWorkflowId(runName));
    endpoint.resetStats();
    await withWorkers(env, async () => {
      // Paused once the endpoint has answered 20 requests of this run: the run stops with iteration 0 part done.
      atAnswer(20, () => void loop.signal(pauseSignal, true));
      const start = await cli(['start', file, '--name', runName], cliEnv());
      expect(start.exitCode, start.all).toBe(0);
      const held = await waitUntil(
        async () => {
          const s = await loop.query(loopStatusQuery);
          return s.paused && s;
        },
        90_000,
        'the loop paused',
      );
      // The running iteration finishes its stage and holds: nothing is in flight when the run stops.
      const child = env.client.workflow.getHandle(iterationWorkflowId(runName, held.iteration));
      await waitUntil(async () => (await child.query(iterationStatusQuery)).paused, 30_000, 'the iteration paused');
      await waitQuiescent(child);
      expect(held.done.length).toBeLessThan(2);
      // A running run (paused counts) is neither continued nor restarted.
      const running = await cli(['continue', runName], cliEnv());
      expect(running.exitCode).toBe(2);
      expect(running.stderr.trim()).toBe(`collab-loop: run "${runName}" is running; nothing to continue (collab-loop status ${runName})`);
      const restartRunning = await cli(['start', file, '--name', runName, '--restart'], cliEnv());
      expect(restartRunning.exitCode).toBe(2);
      expect(restartRunning.stderr.trim()).toBe(
        `collab-loop: run "${runName}" is running (collab-loop status ${runName}); stop it first (collab-loop stop ${runName}) or pick another --name`,
      );
      const stop = await cli(['stop', runName], cliEnv());
      expect(stop.exitCode, stop.all).toBe(0);
      const stopped = (await loop.result()) as LoopResult;
      expect(stopped.stopped).toBe(true);
      expect(endpoint.stats().completed).toBeGreaterThanOrEqual(20);

      // A stopped run's name is taken: start refuses it and starts nothing.
      const runId = await runIdOf(runName);
      const again = await cli(['start', file, '--name', runName], cliEnv());
      expect(again.exitCode).toBe(2);
      expect(again.stderr.trim()).toBe(
        `collab-loop: run "${runName}" already exists (stopped): \`collab-loop continue ${runName}\` resumes it, \`collab-loop start --restart\` begins it anew, or pick another --name`,
      );
      expect(await runIdOf(runName)).toBe(runId);

      const cont = await cli(['continue', runName, '--wait'], cliEnv());
      expect(cont.exitCode, cont.all).toBe(0);
      expect(cont.stdout).toContain(
        `run ${runName}: continuing at iteration ${stopped.iterations.length} of 2 from checkpoint ${stopped.finalCheckpoint}`,
      );
      const result = (await loop.result()) as LoopResult;
      expect(result.stopped).toBe(false);
      expect(result.iterations.map((i) => i.iteration)).toEqual([0, 1]);
      expect(result.iterations.every((i) => i.metrics.conversations === 32)).toBe(true);
      // Iterations finished before the stop are kept as they were, not run again.
      expect(result.iterations.slice(0, stopped.iterations.length)).toEqual(stopped.iterations);
      // The iteration the stop interrupted ran again, and no request answered before the stop was paid again.
      expect(endpoint.stats().duplicates).toBe(0);

      // All iterations done: nothing to continue, and the name stays taken.
      const done = await cli(['continue', runName], cliEnv());
      expect(done.exitCode).toBe(2);
      expect(done.stderr.trim()).toBe(
        `collab-loop: run "${runName}" is completed with all 2 iterations done; \`collab-loop start --restart\` begins it anew`,
      );
      const completed = await cli(['start', file, '--name', runName], cliEnv());
      expect(completed.exitCode).toBe(2);
      expect(completed.stderr.trim()).toBe(
        `collab-loop: run "${runName}" already exists (completed): \`collab-loop start --restart\` begins it anew, or pick another --name`,
      );
    });
    onAnswer = undefined;
  });

  it('continue after the loop was terminated mid-generation starts the iteration again and finishes the run', async () => {
    const file = countedRunFile();
    const runName = 'terminated';
    const loop = env.client.workflow.getHandle(loopWorkflowId(runName));
    endpoint.resetStats();
    await withWorkers(env, async () => {
      let terminated: Promise<unknown> | undefined;
      atAnswer(20, () => {
        terminated = loop.terminate('test: the run is cut off mid-generation');
      });
      const start = await cli(['start', file, '--name', runName], cliEnv());
      expect(start.exitCode, start.all).toBe(0);
      await waitUntil(async () => terminated, 90_000, 'the endpoint to answer 20 requests');
      await terminated;
      const cutOff = await loop.describe();
      expect(cutOff.status.name).toBe('TERMINATED');
      onAnswer = undefined;

      const cont = await cli(['continue', runName, '--wait'], cliEnv());
      expect(cont.exitCode, cont.all).toBe(0);
      expect(cont.stdout).toContain(`run ${runName}: continuing at iteration 0 of 2`);
      const result = (await loop.result()) as LoopResult;
      expect(result.iterations.map((i) => i.iteration)).toEqual([0, 1]);
      // Only requests in flight when the run was cut off may be paid again: at most the endpoint's concurrency.
      expect(endpoint.stats().duplicates).toBeLessThanOrEqual(8);
      // The run started when it was first started, not at the continue: in `list` and on the loop's UI page.
      const list = await cli(['list', '--json'], cliEnv());
      const row = (JSON.parse(list.stdout) as Array<{ run: string; started: string }>).find((r) => r.run === runName);
      expect(row?.started).toBe(cutOff.startTime.toISOString());
      const ui = await loop.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      expect(ui.currentDetails).toContain(`started ${cutOff.startTime.toISOString()} · took `);
    });
  });

  it('continue of a name never used is one clear line', async () => {
    const r = await cli(['continue', 'never-started'], cliEnv());
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(`collab-loop: no run named "never-started" in namespace ${namespaceOf(env)} (see collab-loop list)`);
  });

  it('start --restart begins anew in its own folder and leaves the first run’s checkpoints byte-identical', async () => {
    const stateDir = tempStateDir();
    const file = configFile(stateDir, (raw) => {
      raw.iterations = 1;
    });
    const runName = 'restarted';
    await withWorkers(env, async () => {
      const first = await cli(['start', file, '--name', runName, '--wait'], cliEnv());
      expect(first.exitCode, first.all).toBe(0);
      const oldCheckpoints = path.join(stateDir, 'checkpoints', runName);
      const before = hashes(oldCheckpoints);
      expect(Object.keys(before)).toContain(path.join('iter-1', 'collab-loop-checkpoint.json'));
      // The first run's manifest pointers and trainer logs stay as they were too.
      const oldRecords = () => ({
        pointers: hashes(path.join(stateDir, 'artifacts', 'runs', runName)),
        logs: hashes(path.join(stateDir, 'logs', runName)),
      });
      const recordsBefore = oldRecords();
      expect(Object.keys(recordsBefore.pointers)).toContain(path.join('iter-0', 'train.json'));

      // Begun anew with another seed, as after changing the experiment: its checkpoint differs from the first run's,
      // so a write into the first run's folders would show in the hashes.
      const restart = await cli(['start', file, '--name', runName, '--restart', '--wait', '--set', 'seed=11'], cliEnv());
      expect(restart.exitCode, restart.all).toBe(0);
      expect(restart.stdout).toContain(`restart 1: its files go under ${runName}@restart-1/`);
      const result = (await env.client.workflow.getHandle(loopWorkflowId(runName)).result()) as LoopResult;
      expect(result.stopped).toBe(false);
      expect(result.iterations).toHaveLength(1);
      expect(result.finalCheckpoint).toBe(path.join(stateDir, 'checkpoints', `${runName}@restart-1`, 'iter-1'));
      expect(existsSync(path.join(result.finalCheckpoint, 'collab-loop-checkpoint.json'))).toBe(true);
      expect(hashes(oldCheckpoints)).toEqual(before);
      expect(oldRecords()).toEqual(recordsBefore);
      expect(existsSync(path.join(stateDir, 'artifacts', 'runs', `${runName}@restart-1`, 'iter-0', 'train.json'))).toBe(true);
      // RECORD_HISTORIES=<tag> saves the restart's histories (its input carries `restart`) for the replay test.
      await recordHistoriesIfAsked(env, runName, 'coral-restart');
    });
  });

  it('eval without --name runs again under the next free name; with a used --name it is refused', async () => {
    const stateDir = tempStateDir();
    const file = configFile(stateDir, (raw) => {
      raw.iterations = 1;
    });
    const first = await cli(['eval', file], cliEnv());
    expect(first.exitCode, first.all).toBe(0);
    expect(first.stdout).toContain('run run-eval: evaluation of coral');
    const second = await cli(['eval', file], cliEnv());
    expect(second.exitCode, second.all).toBe(0);
    expect(second.stdout).toContain('run run-eval-2: evaluation of coral');
    const named = await cli(['eval', file, '--name', 'run-eval'], cliEnv());
    expect(named.exitCode).toBe(2);
    expect(named.stderr.trim()).toBe(
      'collab-loop: run "run-eval" already exists (completed): `collab-loop start --restart` begins it anew, or pick another --name',
    );
  });
});
