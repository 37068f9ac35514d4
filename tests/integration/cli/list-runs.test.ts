// `collab-loop list` on a real server says each run's state as a user reads it — running, paused, needs attention,
// stopped, failed, completed — with its iteration and stage, and the run's start, which the loop's continue-as-new
// after every iteration (workflows/loop.ts) must not move.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import type { RunRow } from '../../../cli/list-runs';
import { cli } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfigRaw } from '../../helpers/config';
import { cliDevServer } from '../../helpers/cli-server';
import { withWorkers } from '../../helpers/workers';
import { waitUntil } from '../../helpers/wait';

const server = cliDevServer();
const { cliEnv } = server;

/** Starts a small coral run on the simulator through the CLI, as a user does. */
async function start(name: string, patch: (raw: Record<string, any>) => void): Promise<void> {
  const stateDir = tempStateDir();
  const file = path.join(stateDir, 'run.yaml');
  writeFileSync(file, stringify(testConfigRaw(stateDir, patch)));
  const r = await cli(['start', file, '--name', name], cliEnv());
  expect(r.exitCode, r.all).toBe(0);
}

async function listJson(): Promise<Record<string, RunRow>> {
  const r = await cli(['list', '--json'], cliEnv());
  expect(r.exitCode, r.all).toBe(0);
  return Object.fromEntries((JSON.parse(r.stdout) as RunRow[]).map((row) => [row.run, row]));
}

/** The run's row once it is in that state. */
const rowIn = (run: string, state: string) =>
  waitUntil(
    async () => {
      const row = (await listJson())[run];
      return row?.state === state ? row : undefined;
    },
    90_000,
    `${run} ${state}`,
  );

const trainingStarted = (run: string) => waitUntil(async () => (await listJson())[run]?.stage === 'train', 90_000, `${run} training`);

describe('collab-loop list', () => {
  // First, on a namespace no worker has polled yet: `list` knows at once that none would answer.
  it('says so when no worker answers instead of waiting for one', async () => {
    await start('unserved', (c) => Object.assign(c, { iterations: 2 }));
    const r = await cli(['list', '--json'], cliEnv());
    expect(r.exitCode, r.all).toBe(0);
    const row = (JSON.parse(r.stdout) as RunRow[]).find((x) => x.run === 'unserved');
    expect(row).toMatchObject({ state: 'running', noWorker: true, iteration: 0, iterations: 2 });
    const table = await cli(['list'], cliEnv());
    expect(table.stdout).toMatch(/^unserved\tcoral\trunning \(no worker answered\)\titeration 0 \(of 0–1\)\t\t/m);
    await server.env().client.workflow.getHandle(loopWorkflowId('unserved')).terminate('list test'); // not run by the next test's workers
  });

  it('shows running, paused, needs attention, stopped, failed and completed runs as such, started at their first segment', async () => {
    await withWorkers(server.env(), async () => {
      await start('done', (c) => Object.assign(c, { iterations: 2 }));
      await start('slow', (c) => {
        c.iterations = 2;
        c.trainer.command = [...STAND_IN_TRAINER, '--steps', '100000'];
      });
      await start('broken', (c) => {
        c.iterations = 2;
        c.trainer.command = [...STAND_IN_TRAINER, '--fail-first', '1', '--fail-marker', path.join(tempStateDir(), 'fails')];
        c.trainer.maximumAttempts = 1;
      });

      // running, then paused (the pause is asked for while a stage runs), then stopped
      await trainingStarted('slow');
      expect(await rowIn('slow', 'running')).toMatchObject({ recipe: 'coral', iteration: 0, iterations: 2, stage: 'train' });
      const paused = await cli(['pause', 'slow'], cliEnv());
      expect(paused.exitCode, paused.all).toBe(0);
      expect(await rowIn('slow', 'paused')).toMatchObject({ iteration: 0, stage: 'train' });
      const stopped = await cli(['stop', 'slow'], cliEnv());
      expect(stopped.exitCode, stopped.all).toBe(0);
      expect(await rowIn('slow', 'stopped')).toMatchObject({ iteration: 0, iterations: 2, stage: 'train' });

      // needs attention (a trainer that fails its only attempt), then failed (its iteration terminated)
      expect(await rowIn('broken', 'needs attention')).toMatchObject({ iteration: 0, stage: 'train' });
      await server.env().client.workflow.getHandle(iterationWorkflowId('broken', 0)).terminate('list test: the loop fails');
      expect(await rowIn('broken', 'failed')).toMatchObject({ iteration: 0, stage: 'train' });

      // completed after two iterations, i.e. one continue-as-new: started is the first segment's start
      const done = await rowIn('done', 'completed');
      expect(done).toMatchObject({ iteration: 1, iterations: 2, stage: 'done' });
      const segments = [];
      for await (const w of server.env().client.workflow.list({ query: `WorkflowId = '${loopWorkflowId('done')}'` })) segments.push(w);
      expect(segments.map((w) => w.status.name).sort()).toEqual(['COMPLETED', 'CONTINUED_AS_NEW']);
      const first = segments.find((w) => w.status.name === 'CONTINUED_AS_NEW')!;
      const last = segments.find((w) => w.status.name === 'COMPLETED')!;
      expect(last.startTime.getTime()).toBeGreaterThan(first.startTime.getTime());
      expect(done.started).toBe(first.startTime.toISOString());

      // The table says the same, one line per run.
      const table = await cli(['list'], cliEnv());
      expect(table.exitCode, table.all).toBe(0);
      const lines = table.stdout.split('\n');
      expect(lines[0]).toBe('run\trecipe\tstate\titeration\tstage\tstarted');
      expect(lines).toContain(`done\tcoral\tcompleted\titerations 0–1 done\tdone\t${first.startTime.toISOString()}`);
      expect(lines.find((l) => l.startsWith('slow\t'))).toMatch(/^slow\tcoral\tstopped\titeration 0 \(of 0–1\)\ttrain\t/);
      expect(lines.find((l) => l.startsWith('broken\t'))).toMatch(/^broken\tcoral\tfailed\titeration 0 \(of 0–1\)\ttrain\t/);
    });
  });
});
