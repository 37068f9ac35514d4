/// <reference lib="dom" />
// The HTML report a researcher opens after a run (`collab-loop report <run> --html`), built from real runs on a real
// Temporal dev server and read in real Chromium: the checks are on the page's DOM — plots, tables, the conversation
// browser and its filters, the layout — never on pixels, and the page makes no network request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from '../../../../activities/render/browser-pool';
import { reportHtml } from '../../../../activities/report/report-html';
import { recipeRuntime } from '../../../../activities/recipes/runtime';
import type { LoopConfig } from '../../../../contracts/config';
import { trainingLoop, type LoopResult } from '../../../../workflows/loop';
import { loopWorkflowId } from '../../../../contracts/messages';
import { STAGES, TASK_QUEUES } from '../../../../contracts/run';
import { CONFIGS, tempStateDir, testConfig } from '../../../helpers/config';
import { startDevServer } from '../../../helpers/temporal';
import { withWorkers } from '../../../helpers/workers';
import { readJsonl, readJson } from '../../../helpers/artifacts';

let env: TestWorkflowEnvironment;
let browser: Browser;
beforeAll(async () => {
  env = await startDevServer();
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
});
afterAll(async () => {
  await browser?.close();
  await env?.teardown();
});

async function runLoop(runName: string, config: LoopConfig): Promise<LoopResult> {
  return withWorkers(env, () =>
    env.client.workflow.execute(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config }],
    }),
  );
}

/** Opens the report from a file; every request other than the file itself is counted and refused. */
async function openReport(html: string, dir: string, width = 1280): Promise<{ page: Page; requests: string[] }> {
  const file = path.join(dir, `report-${width}.html`);
  writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const requests: string[] = [];
  await page.route('**/*', (route) => {
    if (route.request().url() === pathToFileURL(file).href) return route.continue();
    requests.push(route.request().url());
    return route.abort();
  });
  await page.goto(pathToFileURL(file).href);
  return { page, requests };
}

/** Nothing on the page is wider than the window, with every conversation opened. */
async function fitsWidth(page: Page): Promise<boolean> {
  await page.evaluate(() =>
    document.querySelectorAll('details').forEach((d) => {
      d.open = true;
    }),
  );
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}

describe('the HTML report', () => {
  it('a CoRal run: a plot per metric, the loss per step, calls and time per stage, conversations with filters', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir);
    const result = await runLoop('report-coral', config);
    const rows = result.iterations;
    const html = await reportHtml('report-coral', rows, { config, recipe: () => recipeRuntime(config), samplesPerIteration: 6 });
    const { page, requests } = await openReport(html, stateDir);

    // One plot per metric, one point per iteration, at the iteration's value.
    const metrics = Object.keys(rows[0].metrics);
    expect(await page.locator('figure.metric-plot').count()).toBe(metrics.length);
    const plot = page.locator('figure.metric-plot[data-metric="agreement_correctness"] circle');
    expect(await plot.evaluateAll((cs) => cs.map((c) => [Number(c.getAttribute('data-x')), Number(c.getAttribute('data-y'))]))).toEqual(
      rows.map((r) => [r.iteration, r.metrics.agreement_correctness]),
    );

    // The loss per step of each trainer run: every progress line the stand-in trainer printed.
    for (const r of rows) {
      const curve = readJsonl<{ step: number; loss: number }>(r.train!.lossCurve!);
      expect(curve.length).toBeGreaterThan(1);
      expect(curve.at(-1)!.loss).toBe(r.train!.finalLoss);
      const points = page.locator(`figure.loss-plot g.series[data-iteration="${r.iteration}"] circle`);
      expect(await points.evaluateAll((cs) => cs.map((c) => [Number(c.getAttribute('data-x')), Number(c.getAttribute('data-y'))]))).toEqual(
        curve.map((p) => [p.step, p.loss]),
      );
    }

    // Calls and tokens per stage, and time per stage, as the workflow recorded them.
    for (const r of rows) {
      const gen = r.stages!.generate!;
      await expect(page.locator(`table.llm-usage tr[data-iteration="${r.iteration}"] td[data-stage="generate"]`).innerText()).resolves.toBe(
        `${gen.calls} calls (${gen.cachedCalls} cached)\n${gen.tokens} tokens`.replace(' (0 cached)', ''),
      );
      const timed = await page
        .locator(`table.stage-time tr[data-iteration="${r.iteration}"] td[data-stage]`)
        .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-stage')));
      expect(timed).toEqual([...STAGES]);
    }

    // The browser: a sample per iteration, filters that show one outcome at a time.
    const runtime = await recipeRuntime(config);
    const records = readJsonl<unknown>(readJson<{ inputs: Record<string, never> }>(rows[0].manifests.evaluate).inputs.eval_shard_0);
    expect(records.length).toBeGreaterThan(0);
    const convs = page.locator('#browser-i0 .conv');
    expect(await convs.count()).toBe(6);
    const outcomes = await convs.evaluateAll((ds) => ds.map((d) => d.getAttribute('data-outcome')));
    for (const outcome of new Set(outcomes)) {
      await page.locator(`#browser-i0 label[for="f-i0-${outcome}"]`).click();
      const visible = await convs.evaluateAll((ds) =>
        ds.filter((d) => (d as HTMLElement).offsetParent !== null).map((d) => d.getAttribute('data-outcome')),
      );
      expect(visible).toEqual(outcomes.filter((o) => o === outcome));
    }
    await page.locator('#browser-i0 label[for="f-i0-all"]').click();
    expect(await convs.evaluateAll((ds) => ds.filter((d) => (d as HTMLElement).offsetParent !== null).length)).toBe(6);
    const first = runtime.describeRecord('eval', records[0]);
    await expect(page.locator('#browser-i0 .conv').filter({ hasText: first.id }).first().locator('summary').innerText()).resolves.toContain(
      first.summary,
    );

    expect(await fitsWidth(page)).toBe(true);
    const narrow = await openReport(html, stateDir, 800);
    expect(await fitsWidth(narrow.page)).toBe(true);
    expect([...requests, ...narrow.requests]).toEqual([]);
  });

  it("ColBench: the agent's and the reference page side by side, failing test calls, pages shown as text", async () => {
    const stateDir = tempStateDir();
    const colbench = (name: 'colbench-code' | 'colbench-html', file: string) =>
      testConfig(stateDir, (c) => {
        c.iterations = 1;
        delete c.trainer;
        c.recipe = { name, evalTasks: path.join(CONFIGS, 'tasks/colbench', file), limit: 3, evalSamples: 1 };
        c.generation = { shardSize: 3, concurrency: 3, heartbeatTimeoutSeconds: 20 };
      });
    const htmlConfig = colbench('colbench-html', 'html.jsonl');
    const htmlRun = await runLoop('report-html', htmlConfig);
    const report = await reportHtml('report-html', htmlRun.iterations, { config: htmlConfig, recipe: () => recipeRuntime(htmlConfig) });
    const { page, requests } = await openReport(report, stateDir);
    const convs = page.locator('#browser-i0 .conv');
    expect(await convs.count()).toBe(3);
    await page.evaluate(() =>
      document.querySelectorAll('details').forEach((d) => {
        d.open = true;
      }),
    );
    // Each answered episode shows two real images (decoded by the browser), the agent's and the reference's.
    const answered = convs.filter({ has: page.locator('figcaption', { hasText: "agent's page" }) });
    expect(await answered.count()).toBeGreaterThan(0);
    for (const c of await answered.all()) {
      const sizes = await c
        .locator('img')
        .evaluateAll((imgs) => imgs.map((i) => [(i as HTMLImageElement).alt, (i as HTMLImageElement).naturalWidth]));
      expect(sizes.map((s) => s[0])).toEqual(["agent's page", 'reference page']);
      for (const [, w] of sizes) expect(w).toBeGreaterThan(0);
    }
    // The agent's pages are HTML: shown as text in the dialogue, never as elements of the report.
    const dialogue = await convs.first().locator('.turn pre').allInnerTexts();
    expect(dialogue.join('\n')).toMatch(/<(html|div|body)/i);
    expect(await page.locator('.convs h1, .convs script, .convs style').count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);
    expect(requests).toEqual([]);

    const codeConfig = colbench('colbench-code', 'backend.jsonl');
    const codeRun = await runLoop('report-code', codeConfig);
    const codePage = (
      await openReport(
        await reportHtml('report-code', codeRun.iterations, { config: codeConfig, recipe: () => recipeRuntime(codeConfig) }),
        stateDir,
      )
    ).page;
    await codePage.evaluate(() =>
      document.querySelectorAll('details').forEach((d) => {
        d.open = true;
      }),
    );
    const failing = codePage.locator('.conv:not(.correct) table.failures tr:has(td)');
    const correct = codePage.locator('.conv.correct');
    expect((await failing.count()) + (await correct.count())).toBeGreaterThan(0);
    const tasks = (await import('../../../../activities/recipes/colbench')).loadColbenchTasks(
      path.join(CONFIGS, 'tasks/colbench/backend.jsonl'),
      'code',
    );
    const calls = new Set(tasks.flatMap((t) => (t.kind === 'code' ? Object.values(t.testCases) : [])));
    for (const row of await failing.all()) expect(calls.has(await row.locator('td code').innerText())).toBe(true);
    expect(await correct.locator('table.failures').count()).toBe(0);
  });

  it('an old run without per-stage stats or loss curves, and a moved artifact, still give a page that says so', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
    });
    const [r] = (await runLoop('report-old', config)).iterations;
    const old = {
      ...r,
      stages: undefined,
      train: { ...r.train!, lossCurve: undefined },
      manifests: { ...r.manifests, evaluate: { ...r.manifests.evaluate, uri: pathToFileURL(path.join(stateDir, 'gone.json')).href } },
    };
    const { page } = await openReport(await reportHtml('report-old', [old], { config, recipe: () => recipeRuntime(config) }), stateDir);
    await expect(page.locator('#llm-usage').innerText()).resolves.toContain('Not recorded');
    await expect(page.locator('#loss').innerText()).resolves.toMatch(
      /Loss per step not recorded for iter 0 .* final losses: iter 0 [\d.]+/,
    );
    await expect(page.locator('#conversations').innerText()).resolves.toMatch(/Not available: .*gone\.json/);
    expect(await page.locator('figure.metric-plot').count()).toBe(Object.keys(r.metrics).length);
  });
});
