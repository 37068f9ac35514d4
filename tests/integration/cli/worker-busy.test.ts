// A run whose workflow worker does not answer queries — here frozen (SIGSTOP) as a worker blocked by a huge
// iteration is: it still holds its polls, so the server hands it queries and tasks it never answers, while the
// activities go on in another process — is still shown, never given up on: `status` says "worker busy", prints what
// the server knows without the worker (the stage, the trainer's step from its heartbeat) and exits 0; `list` shows
// the run's row as `running (worker busy)`; `start --wait` and `watch` keep the last state they showed, say the
// worker is busy, keep waiting, and finish once it goes on (SIGCONT) and the run completes. The CLI's query deadline
// is 2 s here (COLLAB_LOOP_QUERY_SECONDS), and a server outage is given up after 3 s: a query timeout taken for one
// would end the waiting commands.
import { describe, expect, it, onTestFinished } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { RunRow } from '../../../cli/list-runs';
import { cli, cliInTerminal, cliProcess, collectOutput, startCliWorker } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfigRaw } from '../../helpers/config';
import { cliDevServer } from '../../helpers/cli-server';
import { withWorkers } from '../../helpers/workers';
import { waitUntil } from '../../helpers/wait';

const server = cliDevServer();
const env = () => ({ ...server.cliEnv(), COLLAB_LOOP_QUERY_SECONDS: '2', COLLAB_LOOP_SERVER_RETRY_SECONDS: '3' });

/** One iteration whose trainer runs 400 steps of 100 ms: long enough to freeze the workflow worker while it trains. */
function configFile(): string {
  const stateDir = tempStateDir();
  const file = path.join(stateDir, 'run.yaml');
  const raw = testConfigRaw(stateDir, (c) => {
    c.iterations = 1;
    c.trainer.command = [...STAND_IN_TRAINER, '--steps', '400', '--step-ms', '100'];
  });
  writeFileSync(file, stringify(raw));
  return file;
}

const BUSY = 'worker busy: the status query timed out after 2 s';

describe('a worker too busy to answer queries', () => {
  it('status shows what the server knows, list says so, start --wait and watch wait it out', async () => {
    // The activities run in this process throughout; the workflow worker is a process of its own, to freeze.
    await withWorkers(
      server.env(),
      async () => {
        const workflows = await startCliWorker(env(), ['--queues', 'workflows']);
        const signal = (s: NodeJS.Signals) => process.kill(workflows.worker.pid!, s);
        onTestFinished(async () => {
          signal('SIGCONT');
          await workflows.stop();
        });
        const waiter = cliProcess(['start', configFile(), '--name', 'busy', '--wait'], env());
        const waiterOut = collectOutput(waiter);
        await waitUntil(async () => waiterOut().includes('started run busy'), 60_000, 'the run to start');
        const watcher = cliInTerminal(['watch', 'busy'], env());
        const watcherOut = collectOutput(watcher);
        onTestFinished(() => {
          for (const p of [waiter, watcher]) if (p.exitCode === null) p.kill();
        });
        await waitUntil(async () => /train: step \d+ of 400/.test((await cli(['status', 'busy'], env())).stdout), 120_000, 'training');

        signal('SIGSTOP');

        const status = await cli(['status', 'busy'], env());
        expect(status.exitCode, status.all).toBe(0);
        const lines = status.stdout.split('\n');
        expect(lines[0]).toBe('run busy (coral) · running · iteration 0 (of 0–0)');
        expect(lines[1]).toBe(`  ${BUSY}; showing what the server knows without it`);
        expect(lines).toContain('  stage: train');
        expect(status.stdout).toMatch(/^ {2}train: step \d+ of 400 · loss [\d.]+/m); // the trainer's heartbeat
        expect(status.stderr).toContain(`collab-loop: ${BUSY}; retrying for up to 2 s`);
        expect(status.all).not.toMatch(/\n\s+at /);

        const list = await cli(['list', '--json'], env());
        expect(list.exitCode, list.all).toBe(0);
        expect((JSON.parse(list.stdout) as RunRow[]).find((r) => r.run === 'busy')).toMatchObject({ state: 'running', workerBusy: true });
        expect((await cli(['list'], env())).stdout).toMatch(/^busy\tcoral\trunning \(worker busy\)\titeration 0 \(of 0–0\)\ttrain\t/m);

        // Both keep the state they showed and say why it stands still, then wait longer than a server outage's 3 s.
        const busyLine = new RegExp(`${BUSY}; showing the state of \\d\\d:\\d\\d:\\d\\d, retrying`);
        await waitUntil(async () => busyLine.test(waiterOut()) && busyLine.test(watcherOut()), 60_000, 'the busy notices');
        await new Promise((r) => setTimeout(r, 8000));
        expect(waiter.exitCode, waiterOut()).toBeNull();
        expect(watcher.exitCode, watcherOut()).toBeNull();

        signal('SIGCONT');
        for (const [p, out] of [
          [waiter, waiterOut],
          [watcher, watcherOut],
        ] as const) {
          const r = await p;
          expect(r.exitCode, out()).toBe(0);
          expect(out()).toMatch(/worker answering again after \d+ s/);
          expect(out()).toContain('run busy (coral) · completed · iterations 0–0 done');
          expect(out()).not.toContain('server unreachable');
          expect(out()).not.toMatch(/\n\s+at /);
        }
      },
      undefined,
      ['llm', 'cpu', 'gpu', 'sandbox'],
    );
  }, 300_000);
});
