// The server-outage promise: the Temporal server dies (SIGKILL) as the train stage's trainer finishes and stays
// down 30 s — longer than a worker keeps trying to report a result — then restarts on the same SQLite file and
// port. The worker reconnects by itself; while the lost result is outstanding `status` says the train stage waits
// for its heartbeat timeout; the retry finds the complete checkpoint, and the run completes without training again.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { CHECKPOINT_MANIFEST } from '../activities/serving/checkpoint-identity';
import { trainPaths } from '../activities/training/train-input';
import { cli, startCliWorker } from './helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfigRaw } from './helpers/config';
import { startUiServer, type UiServer } from './helpers/ui-server';
import { waitUntil } from './helpers/wait';

const OUTAGE_MS = 30_000;
/**
 * How long the run may take to complete once the server is back. The train activity's result was lost, so the
 * server retries it only when its heartbeat timeout (the default trainer.heartbeatTimeoutSeconds, 60 s, counted
 * from the last heartbeat before the kill: here about 30 s after the restart) passes; then the 2 s retry interval,
 * the worker's reconnect (its pollers back off to at most 10 s between attempts), the retry finding the checkpoint
 * at once, and the loop's last workflow tasks. 120 s leaves room for a loaded machine; the former default
 * (300 s heartbeat timeout) would take about 270 s.
 */
const BOUND_AFTER_RESTART_MS = 120_000;

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe('the Temporal server is down for 30 s as the train stage completes', () => {
  it('completes within the bound after the restart, training once', async () => {
    const stateDir = tempStateDir();
    let server: UiServer = await startUiServer(stateDir);
    cleanups.push(() => server.stop());
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${server.port}` };

    cleanups.push((await startCliWorker(env)).stop);

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
          // The default heartbeat timeout: the bound below is the one a user gets.
          c.trainer = { kind: 'command', method: 'dpo', command: [...STAND_IN_TRAINER, '--hold-until', hold, '--fail-marker', starts] };
        }),
      ),
    );
    const started = await cli(['start', file], env);
    expect(started.exitCode, String(started.all)).toBe(0);

    // The trainer has done its steps and waits for `hold`: kill the server, then let the trainer finish.
    const { logFile, output } = trainPaths(runState, 'outage-train', 0);
    await waitUntil(async () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('holding until'), 150_000, 'the trainer');
    process.kill(-server.pid, 'SIGKILL');
    const downAt = Date.now();
    writeFileSync(hold, '');
    // The train activity completes while the server is down: its result cannot be delivered.
    await waitUntil(async () => existsSync(path.join(output, CHECKPOINT_MANIFEST)), 20_000, 'the complete checkpoint');
    await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - downAt)));
    server = await startUiServer(stateDir, { port: server.port, uiPort: server.uiPort });
    const restartedAt = Date.now();

    let waitLine: string | undefined;
    const done = await waitUntil(
      async () => {
        const s = await cli(['status', 'outage-train'], env);
        waitLine ??= /^ {2}train \(trainCheckpoint\): waiting for the heartbeat timeout .*$/m.exec(s.stdout)?.[0];
        return s.stdout.includes('· completed ·') && s;
      },
      BOUND_AFTER_RESTART_MS,
      'the run to complete after the restart',
    );
    const afterRestartS = Math.round((Date.now() - restartedAt) / 1000);
    console.log(`server-outage: the run completed ${afterRestartS} s after the restart (bound ${BOUND_AFTER_RESTART_MS / 1000} s)`);
    expect(done.stdout).toContain('run outage-train (coral) · completed · iterations 0–0 done');
    expect(waitLine).toMatch(/last heartbeat \d+ s ago, timeout 60 s\): its worker stopped, or finished while the server was down/);

    // Trained once: one start of the trainer, one finished training in its log, the retry resumed nothing.
    expect(readFileSync(starts, 'utf8')).toBe('1');
    const log = readFileSync(logFile, 'utf8');
    expect(log.match(/^done: skill/gm)).toHaveLength(1);
    expect(log.match(/^--- attempt \d+/gm)).toEqual(['--- attempt 1']);
  }, 420_000);
});
