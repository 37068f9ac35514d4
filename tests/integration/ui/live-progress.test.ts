// Live progress while a stage works, read as a user reads it: `collab-loop status --json` (the CLI as a subprocess)
// and the real Temporal UI (Chromium). During generate the counts rise between two readings, with a rate and an
// ETA; during train the trainer's step, total, loss and ETA show. In the UI the running pieces' measurements are in
// the iteration's Pending Activities (heartbeat details), and Current Details show the stage and the finished work:
// the measurements never reach the workflow, so they leave nothing in its history.
import { describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startLoop } from '../../../cli/runs';
import type { RunStatus } from '../../../cli/loop-workflow';
import { iterationStatusQuery, iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import type { StageProgress } from '../../../contracts/progress';
import type { LoopResult } from '../../../workflows/loop';
import { runWorkers } from '../../../workers/run-worker';
import { cli } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { openUiRun, pageText, screenshotDir, useUiServer, workflowUrl } from '../../helpers/ui-page';
import { waitUntil } from '../../helpers/wait';

const ui = useUiServer();
const shots = screenshotDir();

/** The text of a tab of a workflow's page ("User Metadata": its Current Details; "Pending Activities"), loaded afresh,
 *  once it matches `text`; `beforeEach` runs before each look (to let the stage move on a little). */
async function tabText(page: Page, id: string, tab: string, text: RegExp, beforeEach: () => void = () => {}): Promise<string> {
  let last = '';
  return waitUntil(
    async () => {
      beforeEach();
      await page.goto(workflowUrl(ui.server.uiPort, id));
      await page.getByRole('tab', { name: tab }).click({ timeout: 60_000 });
      await page.waitForTimeout(500);
      const t = await pageText(page);
      last = t;
      return text.test(t) && t;
    },
    60_000,
    `${text} on the ${tab} tab of ${id}`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; the page said:\n${last}`);
  });
}

/** A pace gate (activities/serving/pace-gate.ts) the test opens a little at a time, never past `cap` until `open()`:
 *  the stage it paces cannot end before the test has read it. */
function paceGate(file: string, cap: number) {
  let allowed = 0;
  writeFileSync(file, '0');
  return {
    allow: (more: number) => writeFileSync(file, String((allowed = Math.min(cap, allowed + more)))),
    open: () => rmSync(file, { force: true }),
  };
}

describe('live progress while a stage works', () => {
  it('status --json and the UI show rising counts, rate and ETA during generate, and step and loss during train', async () => {
    const stateDir = tempStateDir();
    // The simulator answers and the stand-in trainer steps only as far as the test allows (pace gates), so each stage
    // is still under way, and moving, while the test reads it, on a fast machine or a loaded one.
    const answers = paceGate(path.join(stateDir, 'answers'), 240);
    const steps = paceGate(path.join(stateDir, 'steps'), 200);
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.recipe.limit = 24;
      c.server.answerGate = path.join(stateDir, 'answers');
      c.generation = { ...c.generation, shardSize: 12, concurrency: 1 };
      c.trainer.command = [...STAND_IN_TRAINER, '--steps', '400', '--step-gate', path.join(stateDir, 'steps')];
    });
    const runName = 'live-progress';
    const env = { TEMPORAL_ADDRESS: `127.0.0.1:${ui.server.port}` };
    const statusJson = async (): Promise<RunStatus> => {
      const r = await cli(['status', runName, '--json'], env);
      if (r.exitCode !== 0) throw new Error(`status --json failed:\n${r.all}`);
      return JSON.parse(r.stdout) as RunStatus;
    };
    const progressOf = async (stage: string): Promise<StageProgress | false> => {
      const p = (await statusJson()).iteration?.progress;
      return p?.stage === stage && p;
    };
    const { client, workers, page, close } = await openUiRun(ui.server, ui.browser);
    const loopPage = await ui.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      await runWorkers(
        workers,
        (async () => {
          await startLoop(client, { file: 'configs/coral.dry-run.yaml', config, runName });

          // generate: two readings of status --json, the second with more done, a rate and an ETA.
          const first = await waitUntil(
            async () => {
              answers.allow(4);
              const p = await progressOf('generate');
              return p && p.done > 0 && p;
            },
            120_000,
            'generate progress',
          );
          expect(first).toMatchObject({ unit: 'conversations', total: 48 });
          const later = await waitUntil(
            async () => {
              answers.allow(4);
              const p = await progressOf('generate');
              return p && p.done > first.done && p.perSecond !== undefined && p;
            },
            60_000,
            'generate progress rising',
          );
          expect(later.perSecond).toBeGreaterThan(0);
          expect(later.etaSeconds).toBeGreaterThanOrEqual(0);
          expect(later.calls!.ok + later.calls!.cached).toBeGreaterThan(first.calls!.ok + first.calls!.cached);
          expect(later.tokens!.prompt).toBeGreaterThan(0);
          expect(later.usd).toBeUndefined(); // the simulator has no price
          expect(Date.now() - later.at).toBeLessThan(30_000);

          // In the UI: the running shards' measurements in the iteration's Pending Activities (their heartbeat
          // details); the stage and its finished work in the Current Details of the iteration's page and the loop's
          // (no shard has finished yet: the pace gate holds them all).
          const running = await tabText(page, iterationWorkflowId(runName, 0), 'Pending Activities', /"work"[\s\S]*"perSecond"/, () =>
            answers.allow(4),
          );
          expect(running).toMatch(/"stage":\s*"generate"/);
          expect(running).toMatch(/"unit":\s*"conversations"/);
          expect(running).toMatch(/"total":\s*\d+/);
          expect(running).toMatch(/"calls":\s*\{\s*"ok":\s*\d+/);
          await page.screenshot({ path: path.join(shots, 'iteration-pending-progress.png'), fullPage: true });
          const finished = /generate: \d+ of 48 conversations finished/;
          const [iterText, loopText] = await Promise.all([
            tabText(page, iterationWorkflowId(runName, 0), 'User Metadata', finished, () => answers.allow(4)),
            tabText(loopPage, loopWorkflowId(runName), 'User Metadata', finished, () => answers.allow(4)),
          ]);
          expect(iterText).toMatch(/stage generate/);
          expect(iterText).toMatch(/generate started \d{4}-\d\d-\d\dT/);
          expect(iterText).toContain('running shards: their progress is in the heartbeat details under Pending Activities');
          expect(loopText).toContain('under Pending Activities on the page of iteration 0');
          await page.screenshot({ path: path.join(shots, 'iteration-live-progress.png'), fullPage: true });
          answers.open();

          // train: the trainer's step of its total, loss, rate and ETA.
          const trainer = await waitUntil(
            async () => {
              steps.allow(2);
              const p = await progressOf('train');
              const t = p ? p.trainers?.[0] : undefined;
              return t && t.step > 2 && t.stepsPerSecond !== undefined && t;
            },
            120_000,
            'trainer progress',
          );
          expect(trainer).toMatchObject({ total: 400 });
          expect(trainer.loss).toBeGreaterThan(0);
          expect(trainer.etaSeconds).toBeGreaterThanOrEqual(0);
          const trainerDetails = await tabText(page, iterationWorkflowId(runName, 0), 'Pending Activities', /"work"[\s\S]*"loss"/, () =>
            steps.allow(2),
          );
          expect(trainerDetails).toMatch(/"unit":\s*"steps"/);
          expect(trainerDetails).toMatch(/"total":\s*400/);
          const trainText = await tabText(page, iterationWorkflowId(runName, 0), 'User Metadata', /stage train/);
          expect(trainText).toContain('running trainers: their progress is in the heartbeat details under Pending Activities');
          steps.open();

          const result = (await client.workflow.getHandle(loopWorkflowId(runName)).result()) as LoopResult;
          expect(result.iterations).toHaveLength(1);
          // Dozens of measurements were taken; none of them is in the iteration's history.
          const history = await client.workflow.getHandle(iterationWorkflowId(runName, 0)).fetchHistory();
          const updates = (history.events ?? []).filter(
            (e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateAdmittedEventAttributes,
          );
          expect(updates).toHaveLength(0);
        })(),
      );
    } finally {
      await loopPage.close();
      await close();
    }
  }, 300_000); // two more UI pages than it had with progress in Current Details

  it("an older build's progress updates are rejected without a trace: the run goes on and its history has no update", async () => {
    const stateDir = tempStateDir();
    // A trainer that holds until told: the train stage is under way while the test sends what an older activity
    // build sent every 4 s (a `reportProgress` update), as it would during a rolling upgrade.
    const release = path.join(stateDir, 'release');
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.trainer.command = [...STAND_IN_TRAINER, '--hold-until', release];
    });
    const runName = 'live-progress-old-build';
    const { client, workers, close } = await openUiRun(ui.server, ui.browser);
    try {
      await runWorkers(
        workers,
        (async () => {
          await startLoop(client, { file: 'configs/coral.dry-run.yaml', config, runName });
          const iteration = client.workflow.getHandle(iterationWorkflowId(runName, 0));
          const loop = client.workflow.getHandle(loopWorkflowId(runName));
          await waitUntil(async () => (await iteration.query(iterationStatusQuery)).stage === 'train', 120_000, 'the train stage');
          const report = (id: string, step: number) =>
            client.workflow
              .getHandle(id)
              .executeUpdate('reportProgress', {
                args: [{ key: 'train', stage: 'train', unit: 'steps', done: step, total: 5000, at: Date.now() }],
              })
              .then(
                () => 'accepted',
                (err: Error) => String((err.cause as Error | undefined)?.message ?? err.message),
              );
          const outcomes: string[] = [];
          for (let i = 0; i < 10; i++) outcomes.push(await report(iteration.workflowId, i), await report(loop.workflowId, i));
          expect(new Set(outcomes)).toEqual(new Set(['No registered handler for update: reportProgress']));
          expect((await iteration.query(iterationStatusQuery)).stage).toBe('train');
          writeFileSync(release, '');
          const result = (await loop.result()) as LoopResult;
          expect(result.iterations).toHaveLength(1);
          for (const h of [iteration, loop]) {
            const events = (await h.fetchHistory()).events ?? [];
            expect(
              events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateAdmittedEventAttributes),
            ).toHaveLength(0);
          }
        })(),
      );
    } finally {
      await close();
    }
  });
});
