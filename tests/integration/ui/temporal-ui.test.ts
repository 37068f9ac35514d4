// What a user sees in the real Temporal UI (the dev server's own web UI, driven by playwright-core in the system
// Chromium): activity summaries in the iteration's timeline, and current details on the loop and the iteration that
// say where the run is, what it measured and what needs the user. Assertions are on the page's text, never pixels.
// The screenshots go to a temporary folder; UPDATE_SCREENSHOTS=1 writes them to docs/screenshots for docs/cli.md.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { startLoop } from '../../../cli/runs';
import { iterationStatusQuery, iterationWorkflowId, loopWorkflowId, retryStageUpdate } from '../../../contracts/messages';
import type { LoopResult } from '../../../workflows/loop';
import { runWorkers } from '../../../workers/run-worker';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { openTab as openUiTab, openUiRun, screenshotDir, useUiServer } from '../../helpers/ui-page';
import { waitUntil } from '../../helpers/wait';

const shots = screenshotDir();
const ui = useUiServer();

const openTab = (page: Page, id: string, tab: string, text: RegExp) => openUiTab(page, ui.server.uiPort, id, tab, text);

describe('the Temporal UI tells the story of a run', () => {
  it('timeline summaries, current details with the needs-attention reason, metrics after the retry', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      // The first training attempt crashes and there is no second: the run waits for the user.
      c.trainer.command = [...STAND_IN_TRAINER, '--fail-first', '1', '--fail-marker', path.join(stateDir, 'fail-count')];
      c.trainer.maximumAttempts = 1;
    });
    const runName = 'ui-story';
    const { client, workers, page, close } = await openUiRun(ui.server, ui.browser);
    try {
      await runWorkers(
        workers,
        (async () => {
          await startLoop(client, { file: 'configs/coral.dry-run.yaml', config, runName });
          const iteration0 = iterationWorkflowId(runName, 0);
          await waitUntil(
            async () => (await client.workflow.getHandle(iteration0).query(iterationStatusQuery)).attention,
            120_000,
            'needs attention',
          );

          // The iteration's timeline: one line per activity, saying what it did.
          await openTab(page, iteration0, 'Timeline', /shard 1\/2 · eval · 4 conversations/);
          for (const summary of [
            'deploy simulator · base-checkpoint',
            'shard 2/2 · train · 4 conversations',
            'evaluate · 8 conversations',
            'build dpo data · 8 conversations',
            'train dpo · command',
          ])
            await expect(page.getByText(summary).first().isVisible()).resolves.toBe(true);
          await page.getByRole('heading', { name: 'Timeline' }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
          await page.screenshot({ path: path.join(shots, 'iteration-timeline.png') });

          // The iteration's current details: stage, progress, stage times, metrics, and the reason it waits.
          const iterationDetails = await openTab(page, iteration0, 'User Metadata', /needs attention/);
          expect(iterationDetails).toMatch(/stage train/);
          expect(iterationDetails).toMatch(/shards 4 of 4 · conversations 16/);
          expect(iterationDetails).toMatch(/generate [\d.]+ m?s \(\d+ calls/);
          expect(iterationDetails).toMatch(/agreement_correctness: [\d.]+/);
          expect(iterationDetails).toContain('simulated crash (attempt 1)');
          expect(iterationDetails).toContain(`collab-loop retry ${runName}`);
          await page.screenshot({ path: path.join(shots, 'iteration-needs-attention.png'), fullPage: true });

          // The loop's current details: which iteration, which stage, why it waits — without opening the child.
          const loopDetails = await openTab(page, loopWorkflowId(runName), 'User Metadata', /needs attention/);
          expect(loopDetails).toContain('coral loop ui-story · iterations 0–1'); // the static summary
          expect(loopDetails).toContain('iteration 0 (of 0–1)');
          expect(loopDetails).toMatch(/iteration 0: stage train · conversations 16/);
          expect(loopDetails).toMatch(/trainer train step exited with 2 \(attempt 1\)/);
          await page.screenshot({ path: path.join(shots, 'loop-needs-attention.png'), fullPage: true });

          // The user fixes it; the loop finishes; its details hold the metrics of both iterations.
          await client.workflow
            .getHandle(iteration0)
            .executeUpdate(retryStageUpdate, { args: [{ config: { ...config, trainer: { ...config.trainer!, maximumAttempts: 2 } } }] });
          const result = (await client.workflow.getHandle(loopWorkflowId(runName)).result()) as LoopResult;
          expect(result.iterations).toHaveLength(2);
          const finished = await openTab(page, loopWorkflowId(runName), 'User Metadata', /iterations 0–1 done/);
          expect(finished).toMatch(/^metric\s+iter 0\s+iter 1$/m);
          const [a0, a1] = result.iterations.map((i) => i.metrics.agreement_correctness.toFixed(4));
          expect(finished).toMatch(new RegExp(`^agreement_correctness\\s+${a0}\\s+${a1}$`, 'm'));
          expect(finished).toMatch(/^train final loss\s+[\d.]+\s+[\d.]+$/m);
          await page.screenshot({ path: path.join(shots, 'loop-finished.png'), fullPage: true });
        })(),
      );
    } finally {
      await close();
    }
    console.log(`UI screenshots: ${shots}`);
  });
});
