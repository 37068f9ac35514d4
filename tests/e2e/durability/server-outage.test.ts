// The server-outage promise: the Temporal server dies (SIGKILL) and stays down 30 s — longer than the SDK keeps
// trying to report a result — then restarts on the same SQLite file and port, (a) as the train stage's trainer
// finishes, (b) mid-generation, with the shards finishing during the outage. The worker reconnects by itself, and
// each activity that finished meanwhile has held its result until the server answers again
// (workers/hold-result.ts): the result is delivered, not lost, so no stage waits for its heartbeat timeout or is
// retried, and the run completes a few seconds after the restart without training again or asking an LLM twice.
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { CHECKPOINT_MANIFEST } from '../../../activities/serving/checkpoint-identity';
import { iterationWorkflowId } from '../../../contracts/messages';
import { trainPaths } from '../../../activities/training/train-input';
import { cli, startCliWorker } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfigRaw } from '../../helpers/config';
import { evaluateOn, startCountingEndpoint } from '../../helpers/endpoint';
import { activityAttempts } from '../../helpers/run-loop';
import { startUiServer, type UiServer } from '../../helpers/ui-server';
import { waitUntil } from '../../helpers/wait';

const OUTAGE_MS = 30_000;
/**
 * How long the run may take to complete once the server is back: the worker's next check of the server (backoff
 * capped at 2 s), delivering the held result, the workflow pollers' reconnect (they back off to at most 10 s between
 * attempts) and the loop's last workflow tasks, with room for a loaded machine (measured: 3–9 s). A lost result
 * would cost the stage's heartbeat timeout, counted from its last heartbeat before the kill, and then a retry: with
 * the timeouts set below (90–120 s), a minute or more after the restart.
 */
const BOUND_AFTER_RESTART_MS = 30_000;

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** A Temporal server on a SQLite file that the test kills and restarts on the same port, and a worker for it. */
async function serverAndWorker(stateDir: string) {
  let server: UiServer = await startUiServer(stateDir);
  cleanups.push(() => server.stop());
  const env = { TEMPORAL_ADDRESS: `127.0.0.1:${server.port}` };
  cleanups.push((await startCliWorker(env)).stop);
  let downAt = 0;
  return {
    env,
    kill() {
      process.kill(-server.pid, 'SIGKILL');
      downAt = Date.now();
    },
    /** Starts the server again OUTAGE_MS after the kill. */
    async restart() {
      await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - downAt)));
      server = await startUiServer(stateDir, { port: server.port, uiPort: server.uiPort });
    },
  };
}

/** Waits for the run to complete within the bound after the restart and checks that no activity of its iteration
 *  was retried: every result held through the outage was delivered, none lost. */
async function completesWithoutRetries(env: Record<string, string>, runName: string): Promise<void> {
  const restartedAt = Date.now();
  const done = await waitUntil(
    async () => {
      const s = await cli(['status', runName], env);
      return s.stdout.includes('· completed ·') && s;
    },
    BOUND_AFTER_RESTART_MS,
    'the run to complete after the restart',
  );
  const afterRestartS = Math.round((Date.now() - restartedAt) / 1000);
  console.log(`server-outage: ${runName} completed ${afterRestartS} s after the restart (bound ${BOUND_AFTER_RESTART_MS / 1000} s)`);
  expect(done.stdout).toContain(`run ${runName} (coral) · completed · iterations 0–0 done`);

  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  try {
    const attempts = await activityAttempts(new Client({ connection }), iterationWorkflowId(runName, 0));
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.filter((a) => a !== 1)).toEqual([]);
  } finally {
    await connection.close();
  }
}

describe('the Temporal server is down for 30 s', () => {
  it('as the train stage completes: the run completes within seconds of the restart, training once', async () => {
    const stateDir = tempStateDir();
    const temporal = await serverAndWorker(stateDir);
    const { env } = temporal;

    const runState = path.join(stateDir, 'run');
    const hold = path.join(stateDir, 'release-trainer');
    const starts = path.join(stateDir, 'trainer-starts'); // the stand-in counts its starts in its --fail-marker
    const file = path.join(stateDir, 'outage.yaml');
    writeFileSync(
      file,
      stringify(
        testConfigRaw(stateDir, (c) => {
          Object.assign(c, { name: 'outage-train', iterations: 1, stateDir: runState });
          c.recipe.limit = 4;
          c.generation = { shardSize: 4 };
          // A heartbeat timeout well past the outage, so that a lost result (waiting for it) and a held one (a few
          // seconds) are far apart; the held result does not depend on it.
          c.trainer = {
            kind: 'command',
            method: 'dpo',
            command: [...STAND_IN_TRAINER, '--hold-until', hold, '--fail-marker', starts],
            heartbeatTimeoutSeconds: 120,
          };
        }),
      ),
    );
    const started = await cli(['start', file], env);
    expect(started.exitCode, String(started.all)).toBe(0);

    // The trainer has done its steps and waits for `hold`: kill the server, then let the trainer finish.
    const { logFile, output } = trainPaths(runState, 'outage-train', 0);
    await waitUntil(async () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('holding until'), 150_000, 'the trainer');
    temporal.kill();
    writeFileSync(hold, '');
    // The train activity completes while the server is down: its result cannot be delivered yet.
    await waitUntil(async () => existsSync(path.join(output, CHECKPOINT_MANIFEST)), 20_000, 'the complete checkpoint');
    await temporal.restart();
    await completesWithoutRetries(env, 'outage-train');

    // Trained once: one start of the trainer, one finished training in its log, the retry resumed nothing.
    expect(readFileSync(starts, 'utf8')).toBe('1');
    const log = readFileSync(logFile, 'utf8');
    expect(log.match(/^done: skill/gm)).toHaveLength(1);
    expect(log.match(/^--- attempt \d+/gm)).toEqual(['--- attempt 1']);
  }, 420_000);

  it('mid-generation, the shards finishing during the outage: it completes within seconds, no request paid twice', async () => {
    const stateDir = tempStateDir();
    const temporal = await serverAndWorker(stateDir);
    const KILL_AT_ANSWER = 30;
    let killed = false;
    // The server dies as the endpoint produces answer 30 of at least 64; the endpoint stays up, so the shards
    // finish their conversations during the outage.
    const endpoint = await startCountingEndpoint({
      latencyMs: 150,
      capacity: 8,
      onAnswer: (n) => {
        if (n !== KILL_AT_ANSWER) return;
        temporal.kill();
        killed = true;
      },
    });
    cleanups.push(() => endpoint.close());
    const file = path.join(stateDir, 'outage-gen.yaml');
    writeFileSync(
      file,
      stringify(
        testConfigRaw(stateDir, (c) => {
          evaluateOn(endpoint, c);
          Object.assign(c, { name: 'outage-gen', stateDir: path.join(stateDir, 'run') });
          // Well past the outage, as the trainer's above: a shard running through an outage longer than its
          // heartbeat timeout is timed out by the server as it restarts, whatever the worker holds.
          c.generation = { shardSize: 8, concurrency: 8, heartbeatTimeoutSeconds: 90 };
        }),
      ),
    );
    const started = await cli(['start', file], temporal.env);
    expect(started.exitCode, String(started.all)).toBe(0);
    await waitUntil(async () => killed, 150_000, 'the kill mid-generation');
    await temporal.restart();
    const answeredDuringOutage = endpoint.stats().completed - KILL_AT_ANSWER;
    await completesWithoutRetries(temporal.env, 'outage-gen');

    const stats = endpoint.stats();
    console.log(
      `server-outage mid-generation: ${stats.completed} answers, ${answeredDuringOutage} during the outage, ${stats.duplicates} twice`,
    );
    expect(answeredDuringOutage).toBeGreaterThan(0);
    expect(stats.duplicates).toBe(0);
  }, 420_000);
});
