/// <reference lib="dom" />
// A config's `paper:` figures stand beside the run's values of the same metrics — the last iteration's and the
// best — in `collab-loop report`'s text and in the HTML report, with where the paper's number comes from; a metric
// the run has not computed says so. Real debates (the recipe's runtime, its SIMULATED policy standing in for the
// served agents) give the metrics; the page is read in real Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import path from 'node:path';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from '../../../../activities/render/browser-pool';
import { reportHtml } from '../../../../activities/report/report-html';
import { paperFiguresText } from '../../../../activities/report/paper-figures';
import { recipeRuntime } from '../../../../activities/recipes/runtime';
import { createDebateSimulatedPolicy, loadDebateTasks, type DebateRecord } from '../../../../activities/recipes/debate';
import type { IterationSummary } from '../../../../contracts/run';
import { fmtNum } from '../../../../contracts/metrics-table';
import { CONFIGS, tempStateDir, testConfig } from '../../../helpers/config';
import { DEBATE_ROLES, debateTestRecipe } from '../../../helpers/debate';
import { simulatedChat } from '../../../helpers/simulated-chat';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
});
afterAll(async () => {
  await browser?.close();
});

const PAPER = {
  citation: 'Subramaniam et al., Multiagent Finetuning, Table 1',
  figures: [
    { metric: 'accuracy', value: 51.6, percent: true, setting: 'LLaMA-3-8B, MATH, debate', better: 'higher' as const },
    { metric: 'accuracy_se', value: 0.02, percent: false, setting: 'standard error', better: 'lower' as const },
    { metric: 'round_5_accuracy', value: 0.7, percent: false, setting: 'round 5', better: 'higher' as const },
  ],
};

/** Three iterations of 8 real debates whose agents' skill goes up, then down: the best is not the last. */
async function debateRows() {
  const config = testConfig(tempStateDir(), (c) => {
    c.recipe = debateTestRecipe();
    c.trainer.method = 'sft';
    c.paper = PAPER;
  });
  const runtime = await recipeRuntime(config);
  const tasks = loadDebateTasks(path.join(CONFIGS, 'tasks/debate/math.jsonl'), 'math');
  const rows: IterationSummary[] = [];
  for (const [k, skill] of [0.1, 0.95, 0.4].entries()) {
    const policy = createDebateSimulatedPolicy({ tasks, skill });
    const chats = Object.fromEntries(DEBATE_ROLES.map((role) => [role, simulatedChat(policy)]));
    const records: DebateRecord[] = [];
    for (let t = 0; t < runtime.taskCount('eval'); t++)
      records.push((await runtime.runTask({ split: 'eval', taskIndex: t, sampleIndex: 0, chats, services: {} })) as DebateRecord);
    rows.push({ iteration: k, checkpoint: `ckpt-${k}`, metrics: runtime.metrics(records), tokens: 0, manifests: {} });
  }
  return { config, runtime, rows };
}

const pct = (v: number) => `${(v * 100).toFixed(2)} %`;

describe('the paper figures beside the run', () => {
  it("text and HTML: the paper's value, the run's last and best in the paper's unit, the source, and what is not computed", async () => {
    const { config, runtime, rows } = await debateRows();
    const acc = rows.map((r) => r.metrics.accuracy);
    const se = rows.map((r) => r.metrics.accuracy_se);
    // The fixture shows what it must: the best accuracy is not the last one, nor the smallest standard error.
    expect(Math.max(...acc)).toBeGreaterThan(acc[2]);
    expect(Math.min(...se)).toBeLessThan(se[2]);
    const bestAcc = acc.indexOf(Math.max(...acc));
    const smallest = se.indexOf(Math.min(...se));
    expect(rows[2].metrics.round_5_accuracy).toBeUndefined();

    const text = paperFiguresText(config.paper!, rows);
    expect(text.split('\n')).toEqual([
      'paper figures:',
      `  accuracy: paper 51.6 % · this run: last ${pct(acc[2])} (iter 2), highest ${pct(acc[bestAcc])} (iter ${bestAcc})`,
      '    paper reports: Subramaniam et al., Multiagent Finetuning, Table 1; LLaMA-3-8B, MATH, debate',
      `  accuracy_se: paper 0.02 · this run: last ${fmtNum(se[2])} (iter 2), lowest ${fmtNum(se[smallest])} (iter ${smallest})`,
      '    paper reports: Subramaniam et al., Multiagent Finetuning, Table 1; standard error',
      '  round_5_accuracy: paper 0.7 · this run: not computed yet',
      '    paper reports: Subramaniam et al., Multiagent Finetuning, Table 1; round 5',
    ]);

    const page = await browser.newPage();
    await page.setContent(await reportHtml('paper', rows, { config, recipe: async () => runtime }));
    const cells = await page.$$eval('#paper table.paper-figures tr[data-figure]', (trs) =>
      trs.map((tr) => [tr.getAttribute('data-metric'), ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]),
    );
    // metric, paper, last, best, source: the same as the text says.
    const source = (setting: string) => `paper reports: Subramaniam et al., Multiagent Finetuning, Table 1; ${setting}`;
    const row = (metric: string, paper: string, last: string, best: string, setting: string) => [
      metric,
      metric,
      paper,
      last,
      best,
      source(setting),
    ];
    expect(cells).toEqual([
      row('accuracy', '51.6 %', `${pct(acc[2])} (iter 2)`, `${pct(acc[bestAcc])} (iter ${bestAcc})`, 'LLaMA-3-8B, MATH, debate'),
      row('accuracy_se', '0.02', `${fmtNum(se[2])} (iter 2)`, `${fmtNum(se[smallest])} (iter ${smallest})`, 'standard error'),
      row('round_5_accuracy', '0.7', 'not computed yet', 'not computed yet', 'round 5'),
    ]);
    await page.close();
  });

  it('before any iteration finished the page still shows the paper figures, none computed; without a paper: no section', async () => {
    const { config, runtime } = await debateRows();
    const page = await browser.newPage();
    await page.setContent(await reportHtml('early', [], { config, recipe: async () => runtime }));
    const runCells = await page.$$eval('#paper td.run-last, #paper td.run-best', (tds) => tds.map((td) => td.textContent));
    expect(runCells).toEqual(Array(6).fill('not computed yet'));
    expect(await page.$$eval('#paper td.paper', (tds) => tds.map((td) => td.textContent))).toEqual(['51.6 %', '0.02', '0.7']);
    const bare = { ...config, paper: undefined };
    await page.setContent(await reportHtml('bare', [], { config: bare, recipe: async () => runtime }));
    expect(await page.$('#paper')).toBeNull();
    await page.close();
  });
});
