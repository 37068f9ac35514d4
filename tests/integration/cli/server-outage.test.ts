// CLI commands ride out a short Temporal server outage (killed, then restarted on the same SQLite file) instead of
// giving up while the run goes on: `start --wait` says "server unreachable, retrying", picks the run up again and
// prints its result. A server that stays down makes status commands stop with a plain sentence, not a trace.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { isTransientServerError } from '../../../cli/server-retry';
import { cli, cliProcess, collectOutput, startCliWorker } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfigRaw } from '../../helpers/config';
import { startUiServer, type UiServer } from '../../helpers/ui-server';
import { waitUntil } from '../../helpers/wait';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe('a short server outage', () => {
  it('start --wait rides it out and prints the finished run', async () => {
    const stateDir = tempStateDir();
    let server: UiServer = await startUiServer(stateDir);
    cleanups.push(() => server.stop());
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${server.port}` };

    cleanups.push((await startCliWorker(env)).stop);

    // The trainer fails its first attempt, so the run waits ("needs attention") until we retry: it cannot finish
    // before the outage, however fast this machine is.
    const marker = path.join(stateDir, 'fail-count');
    const file = path.join(stateDir, 'outage.yaml');
    writeFileSync(
      file,
      stringify(
        testConfigRaw(stateDir, (c) => {
          Object.assign(c, { name: 'outage', iterations: 1, seed: 1, stateDir: path.join(stateDir, 'run') });
          c.recipe.limit = 4;
          c.trainer = {
            kind: 'command',
            method: 'dpo',
            command: [...STAND_IN_TRAINER, '--fail-first', '1', '--fail-marker', marker],
            maximumAttempts: 1,
          };
          c.generation = { shardSize: 4 };
          delete c.llm;
        }),
      ),
    );
    const waiter = cliProcess(['start', file, '--wait'], env);
    const waiterOut = collectOutput(waiter);
    await waitUntil(
      async () => {
        const s = await cli(['status', 'outage'], env);
        return s.stdout.includes('NEEDS ATTENTION in stage "train"');
      },
      120_000,
      'the run to wait for a retry',
    );

    process.kill(-server.pid, 'SIGKILL'); // a crash, not a clean shutdown
    await waitUntil(async () => /server unreachable at 127\.0\.0\.1:\d+, retrying/.test(waiterOut()), 60_000, 'the retry notice');
    await new Promise((r) => setTimeout(r, 5000)); // stay down a while: several failed polls, growing back-off
    server = await startUiServer(stateDir, { port: server.port, uiPort: server.uiPort });

    const retry = await cli(['retry', 'outage'], env);
    expect(retry.all).toContain('retrying from stage train');
    const r = await waiter;
    expect(r.exitCode, String(r.all)).toBe(0);
    expect(r.stderr).toMatch(/server reachable again after \d+ s/);
    expect(r.stdout).toContain('run outage (coral) · completed · iterations 0–0 done');
    expect(r.stdout).toMatch(/^agreement_correctness\s+[\d.]+$/m);
    expect(r.all).not.toMatch(/\n\s+at /);
  });

  it('a server that stays down: status says so plainly and stops', async () => {
    const r = await cli(['status', 'anything'], { TEMPORAL_ADDRESS: '127.0.0.1:1', COLLAB_LOOP_SERVER_RETRY_SECONDS: '3' });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^collab-loop: server unreachable at 127\.0\.0\.1:1, retrying for up to 3 s/);
    expect(lines.at(-1)).toMatch(
      /^collab-loop: gave up connecting: the Temporal server at 127\.0\.0\.1:1 has been unreachable for \d+ s \(start it with `collab-loop server`/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('counts a refused query right after a restart as transient, and a missing run as final', () => {
    const grpc = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code });
    expect(
      isTransientServerError(
        Object.assign(new Error('Failed to query workflow'), { cause: grpc(8, 'RESOURCE_EXHAUSTED: consistent query buffer is full') }),
      ),
    ).toBe(true);
    expect(
      isTransientServerError(
        Object.assign(new Error('Failed to describe workflow'), { cause: grpc(14, 'UNAVAILABLE: No connection established') }),
      ),
    ).toBe(true);
    expect(
      isTransientServerError(Object.assign(new Error('Failed to describe workflow'), { cause: grpc(5, 'NOT_FOUND: workflow not found') })),
    ).toBe(false);
  });
});
