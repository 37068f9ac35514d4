// `start --wait` and `watch` on a real server, as a user runs them: in a terminal (a pseudo-terminal) the live
// display redraws its bars in place — conversations rising with a rate and an ETA during generate, the trainer's
// step and loss during train; through a pipe the same run reads as plain lines. A trainer that fails its only
// attempt makes the stage need attention: every view announces it with the retry hint and keeps watching, and
// after `collab-loop retry` each sees the run through to its end and exits 0.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ResultPromise } from 'execa';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { loopWorkflowId } from '../../../contracts/messages';
import { cli, cliInTerminal, cliProcess, collectOutput } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfigRaw } from '../../helpers/config';
import { cliDevServer } from '../../helpers/cli-server';
import { namespaceOf } from '../../helpers/temporal';
import { withWorkers } from '../../helpers/workers';
import { waitForAttention, waitUntil } from '../../helpers/wait';

const server = cliDevServer();
const { cliEnv } = server;

/** One iteration. A slow endpoint (200 ms, capacity 2) makes generate last several seconds; a slow trainer fails its
 *  first attempt, then trains 40 steps of 250 ms (what the live display draws). `quick`: the test config's endpoint
 *  or trainer, for a test that does not watch that stage. */
function configFile(o: { endpoint?: 'slow' | 'quick'; trainer?: 'slow' | 'quick' } = {}): string {
  const stateDir = tempStateDir();
  const file = path.join(stateDir, 'run.yaml');
  const raw = testConfigRaw(stateDir, (c) => {
    c.iterations = 1;
    c.recipe.limit = 24;
    if (o.endpoint !== 'quick') {
      c.server = { kind: 'simulator', latencyMs: 200, capacity: 2 };
      c.generation = { ...c.generation, shardSize: 4, concurrency: 2 };
    }
    if (o.trainer === 'quick') return;
    c.trainer.command = [
      ...STAND_IN_TRAINER,
      '--steps',
      '40',
      '--step-ms',
      '250',
      '--fail-first',
      '1',
      '--fail-marker',
      path.join(stateDir, 'fails'),
    ];
    c.trainer.maximumAttempts = 1;
  });
  writeFileSync(file, stringify(raw));
  return file;
}

const ESC = '\x1b';
/** Every value a pattern's first group took in the output, in order. */
const values = (out: string, re: RegExp) => [...out.matchAll(re)].map((m) => Number(m[1]));
const rising = (xs: number[]) => xs.length >= 2 && xs.every((x, i) => i === 0 || x >= xs[i - 1]) && xs.at(-1)! > xs[0];

function expectLiveDisplay(out: string): void {
  // Drawn in place: cursor hidden, rows redrawn by moving up over them, bars of █ and ░.
  expect(out).toContain(`${ESC}[?25l`);
  expect(out).toMatch(new RegExp(`${ESC}\\[\\d*A`));
  expect(out).toMatch(/█+░+ generate: \d+ of \d+ conversations/);
  const conversations = values(out, /generate: (\d+) of \d+ conversations/g);
  expect(rising(conversations), `conversations drawn: ${conversations.join(', ')}`).toBe(true);
  expect(out).toMatch(/generate: \d+ of \d+ conversations · [\d.]+\/s · ETA [\d.]+ (ms|s|min|h)/);
  expect(out).toMatch(/calls \d+ sent, \d+ cached, \d+ shared, \d+ failed, \d+ retried/);
  expect(out).toMatch(/train: step \d+ of 40 · loss [\d.]+ · [\d.]+ steps\/s · ETA [\d.]+ (ms|s|min|h)/);
  const steps = values(out, /train: step (\d+) of 40/g);
  expect(rising(steps), `trainer steps drawn: ${steps.join(', ')}`).toBe(true);
}

function expectAttention(out: string, run: string): void {
  expect(out).toContain('NEEDS ATTENTION in stage "train"');
  expect(out).toContain('simulated crash (attempt 1)');
  expect(out).toContain(`fix the cause, then: collab-loop retry ${run} [--stage S] [--set key=value]`);
}

/** The process's output once it shows `text`. */
const shows = (output: () => string, text: string, what: string) => waitUntil(async () => output().includes(text), 120_000, what);

describe('the live display', () => {
  it('start --wait and watch: live on a terminal, plain lines in a pipe, a needs-attention announced in both', async () => {
    await withWorkers(server.env(), async () => {
      const runs = ['live', 'plain'] as const;
      // live: start --wait in a terminal, watched through a pipe; plain: the other way round.
      const waits: Record<string, ResultPromise> = {
        live: cliInTerminal(['start', configFile(), '--name', 'live', '--wait'], cliEnv()),
        plain: cliProcess(['start', configFile(), '--name', 'plain', '--wait'], cliEnv()),
      };
      const waitOut = { live: collectOutput(waits.live), plain: collectOutput(waits.plain) };
      for (const run of runs) await shows(waitOut[run], `started run ${run}`, `${run} started`);
      const watches: Record<string, ResultPromise> = {
        live: cliProcess(['watch', 'live'], cliEnv()),
        plain: cliInTerminal(['watch', 'plain'], cliEnv()),
      };
      const watchOut = { live: collectOutput(watches.live), plain: collectOutput(watches.plain) };
      const all = [...Object.values(waits), ...Object.values(watches)];
      onTestFinished(() => {
        for (const p of all) if (p.exitCode === null) p.kill();
      });

      for (const run of runs) {
        await waitForAttention(server.env().client, run, 0, 180_000);
        // Announced while the run waits, not at its end: each view keeps watching until the user retries.
        await shows(waitOut[run], 'NEEDS ATTENTION in stage "train"', `${run}: start --wait announces the attention`);
        await shows(watchOut[run], 'NEEDS ATTENTION in stage "train"', `${run}: watch announces the attention`);
        expect(waits[run].exitCode).toBeNull();
        expect(watches[run].exitCode).toBeNull();
        const retry = await cli(['retry', run], cliEnv());
        expect(retry.exitCode, retry.all).toBe(0);
      }
      const done = await Promise.all(runs.flatMap((run) => [waits[run], watches[run]]));
      for (const r of done) expect(r.exitCode, String(r.all)).toBe(0);

      const terminal = [waitOut.live(), watchOut.plain()];
      const plain = [waitOut.plain(), watchOut.live()];
      for (const [i, out] of terminal.entries()) {
        expectLiveDisplay(out);
        expectAttention(out, runs[i]);
        expect(out).toMatch(/run \w+ \(coral\) · completed · iterations 0–0 done/);
      }
      for (const [i, out] of plain.entries()) {
        const run = (['plain', 'live'] as const)[i];
        expect(out).not.toContain(ESC);
        const lines = out.split('\n');
        expect(lines).toContain('iteration 0 (of 0–0) · stage generate');
        expect(lines).toContain('iteration 0 (of 0–0) · stage train');
        // generate lasts longer than the plain lines' 10 s pace: its progress is there, with a rate and an ETA.
        expect(
          lines.some((l) => /^ {2}generate: \d+ of \d+ conversations · [\d.]+\/s · ETA [\d.]+ (ms|s|min|h)/.test(l)),
          out,
        ).toBe(true);
        expectAttention(out, run);
        expect(lines).toContain('stage train goes on after the retry');
        expect(lines.some((l) => l.startsWith('iteration 0 done: agreement_correctness='))).toBe(true);
        expect(out).toMatch(new RegExp(`run ${run} \\(coral\\) · completed · iterations 0–0 done`));
      }
    });
  }, 600_000);

  it('watch exits 0 when the run completed, 1 when it was terminated; Ctrl-C detaches and the run goes on', async () => {
    await withWorkers(server.env(), async () => {
      const start = await cli(['start', configFile({ endpoint: 'quick', trainer: 'quick' }), '--name', 'ended', '--wait'], cliEnv());
      expect(start.exitCode, start.all).toBe(0);
      const watched = await cli(['watch', 'ended'], cliEnv());
      expect(watched.exitCode, watched.all).toBe(0);
      expect(watched.stdout).toMatch(/^run ended \(coral\) · completed · iterations 0–0 done/m);

      const started = await cli(['start', configFile({ trainer: 'quick' }), '--name', 'terminated'], cliEnv());
      expect(started.exitCode, started.all).toBe(0);
      const watch = cliProcess(['watch', 'terminated'], cliEnv());
      const out = collectOutput(watch);
      await shows(out, 'stage generate', 'watch sees generate');
      // Ctrl-C detaches one watcher; the run goes on, and the other still watches it.
      const detaching = cliProcess(['watch', 'terminated'], cliEnv());
      await shows(collectOutput(detaching), 'stage generate', 'the second watch sees generate');
      detaching.kill('SIGINT');
      const detached = await detaching;
      expect(detached.exitCode, String(detached.all)).toBe(130);
      expect(String(detached.stdout)).toContain('detached from run terminated; it goes on (collab-loop watch terminated shows it again)');
      expect((await server.env().client.workflow.getHandle(loopWorkflowId('terminated')).describe()).status.name).toBe('RUNNING');
      expect(watch.exitCode).toBeNull();
      await server.env().client.workflow.getHandle(loopWorkflowId('terminated')).terminate('watch test');
      const r = await watch;
      expect(r.exitCode, String(r.all)).toBe(1);
      expect(String(r.stdout)).toMatch(/^run terminated \(coral\) · terminated/m);
    });
  });

  it('watch of a name never used is one clear line', async () => {
    const r = await cli(['watch', 'never-started'], cliEnv());
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      `collab-loop: no run named "never-started" in namespace ${namespaceOf(server.env())} (see collab-loop list)`,
    );
  });
});
