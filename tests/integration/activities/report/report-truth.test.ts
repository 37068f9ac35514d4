/// <reference lib="dom" />
// The report's plots and buckets tell the truth: rates on a 0–1 axis, a standard error as error bars on its metric,
// counts in their own group, one line per agent, a debate's wrong votes under *wrong*, and the probe's text beside
// its hash. Real debates (the recipe's runtime, its SIMULATED policy standing in for the served agents), records in
// the real artifact store, the page read in real Chromium: checks on the page's DOM, never pixels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import path from 'node:path';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH } from '../../../../activities/render/browser-pool';
import { reportHtml } from '../../../../activities/report/report-html';
import { recipeRuntime } from '../../../../activities/recipes/runtime';
import { createDebateSimulatedPolicy, loadDebateTasks, type DebateRecord } from '../../../../activities/recipes/debate';
import { storeFor } from '../../../../activities/artifacts/store';
import type { IterationSummary } from '../../../../contracts/run';
import { CONFIGS, tempStateDir, testConfig } from '../../../helpers/config';
import { DEBATE_ROLES, debateTestRecipe } from '../../../helpers/debate';
import { simulatedChat } from '../../../helpers/simulated-chat';
import { lineageLines } from '../../../../cli/format';
import { probeAnswersByIteration } from '../../../../activities/report/probe-text';
import { conversationBrowser } from '../../../../activities/report/conversation-browser';
import type { ConversationView } from '../../../../activities/report/conversation-view';
import { toaRecordView } from '../../../../activities/recipes/toa/report-view';
import { collabConversationView } from '../../../../activities/recipes/collabllm/report-view';
import { colbenchConversationView } from '../../../../activities/recipes/colbench/report-view';
import type { CollabEvalRecord } from '../../../../activities/recipes/collabllm/conversation';
import type { ColbenchTrajectory } from '../../../../activities/recipes/colbench/episode';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
});
afterAll(async () => {
  await browser?.close();
});

const open = async (html: string): Promise<Page> => {
  const page = await browser.newPage();
  await page.setContent(html);
  return page;
};

describe('the HTML report tells the truth', () => {
  it('a debate run: rate axes 0–1, accuracy_se as error bars, counts apart, a line per agent, wrong votes under wrong, probe text', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.recipe = debateTestRecipe();
      c.trainer.method = 'sft';
    });
    const runtime = await recipeRuntime(config);
    const tasks = loadDebateTasks(path.join(CONFIGS, 'tasks/debate/math.jsonl'), 'math');
    const store = storeFor(config);

    // Two iterations of 8 debates by agents of low skill: some votes are wrong.
    const iteration = async (k: number, skill: number): Promise<{ row: IterationSummary; records: DebateRecord[] }> => {
      const policy = createDebateSimulatedPolicy({ tasks, skill });
      const chats = Object.fromEntries(DEBATE_ROLES.map((role) => [role, simulatedChat(policy)]));
      const records: DebateRecord[] = [];
      for (let t = 0; t < runtime.taskCount('eval'); t++)
        records.push((await runtime.runTask({ split: 'eval', taskIndex: t, sampleIndex: 0, chats, services: {} })) as DebateRecord);
      const evaluate = await store.putJson({ inputs: { eval_shard_0: await store.putJsonl(records) } });
      const answers = [{ prompt: 0, text: `  <script>alert(1)</script> \\boxed{7}${'x'.repeat(1000)}`, finishReason: 'length' }];
      const probe = {
        records: await store.putJsonl(answers),
        prompts: 1,
        model: `ckpt-${k}`,
        completionTokens: 9,
        answersSha256: 'ab'.repeat(32),
      };
      const metrics = runtime.metrics(records);
      return { row: { iteration: k, checkpoint: `ckpt-${k}`, metrics, tokens: 0, manifests: { evaluate }, probe }, records };
    };
    const its = [await iteration(0, 0.3), await iteration(1, 0.5)];
    const rows = its.map((i) => i.row);
    const m = rows[0].metrics;
    expect(m.accuracy_se).toBeGreaterThan(0);
    const html = await reportHtml('truth', rows, { config, recipe: async () => runtime, samplesPerIteration: 8 });
    if (process.env.DUMP_REPORT) (await import('node:fs')).writeFileSync(process.env.DUMP_REPORT, html);
    const page = await open(html);

    // Rates: a 0–1 axis whatever the values (no_answer_rate, always 0 here, included).
    const ticks = (sel: string) => page.locator(`${sel} text.y-tick`).evaluateAll((ts) => ts.map((t) => t.textContent));
    for (const rate of ['accuracy', 'consensus_rate', 'no_answer_rate']) {
      const t = await ticks(`figure.metric-plot[data-metric="${rate}"]`);
      expect([t[0], t.at(-1)], rate).toEqual(['0', '1']);
    }
    // accuracy_se: error bars on accuracy, one per iteration at its value, and no plot of its own.
    expect(await page.locator('figure[data-metric="accuracy_se"], g.series[data-metric="accuracy_se"]').count()).toBe(0);
    const bars = page.locator('figure.metric-plot[data-metric="accuracy"] g.error-bar');
    expect(await bars.evaluateAll((gs) => gs.map((g) => [Number(g.getAttribute('data-x')), Number(g.getAttribute('data-se'))]))).toEqual(
      rows.map((r) => [r.iteration, r.metrics.accuracy_se]),
    );
    // Counts in their own group, from 0; no count among the rates.
    const counts = await page.locator('.plots.counts figure').evaluateAll((fs) => fs.map((f) => f.getAttribute('data-metric')));
    expect(counts.sort()).toEqual(['answered', 'avg_tokens_per_debate', 'debates', 'total_tokens']);
    expect(await page.locator('.plots.rates-values figure.count').count()).toBe(0);
    expect((await ticks('figure.metric-plot[data-metric="debates"]'))[0]).toBe('0');
    // One plot for the agents' accuracy, a line per agent; one for the rounds'.
    const agents = page.locator('figure.metric-plot[data-plot="accuracy per agent"] g.series');
    expect(await agents.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-metric')))).toEqual([
      'agent_0_accuracy',
      'agent_1_accuracy',
      'agent_2_accuracy',
    ]);
    expect(await page.locator('figure.metric-plot[data-plot="accuracy per round"] g.series').count()).toBe(2);
    expect(await page.locator('.plots figure[data-metric^="agent_"]').count()).toBe(0);

    // Buckets: every wrong vote under wrong, with the right count; debate has no "disagreed".
    for (const [k, { records }] of its.entries()) {
      const wrong = records.filter((r) => !r.correct).map((r) => `${r.taskId} #${r.sampleIndex}`);
      expect(wrong.length, `iteration ${k} has wrong votes`).toBeGreaterThan(0);
      await expect(page.locator(`label[for="f-i${k}-wrong"]`).innerText()).resolves.toBe(`wrong (${wrong.length})`);
      expect(await page.locator(`label[for="f-i${k}-disagreed"]`).count()).toBe(0);
      const shownWrong = await page.locator(`#browser-i${k} .conv.wrong summary b`).allInnerTexts();
      expect(shownWrong.length).toBeGreaterThan(0);
      for (const id of shownWrong) expect(wrong).toContain(id);
    }

    // The probe: its text, escaped and trimmed, beside its hash.
    const probe = page.locator('ul.lineage li').first();
    await expect(probe.innerText()).resolves.toContain(`answers sha256 ${'ab'.repeat(6)}`);
    const text = await probe.locator('ol.probe-answers li pre').innerText();
    expect(text.startsWith('<script>alert(1)</script> \\boxed{7}xxx')).toBe(true);
    expect(text.endsWith('…')).toBe(true);
    expect(text.length).toBeLessThan(400);
    expect(await page.locator('#lineage script').count()).toBe(0);
    await expect(probe.innerText()).resolves.toContain('finish: length');
    // The same text in the lineage `demo` and `report` print: one line, quoted, cut.
    const lines = lineageLines(rows, await probeAnswersByIteration(rows, store)).split('\n');
    const at = lines.findIndex((l) => l.startsWith('  iter 0: served ckpt-0 · probe 1 prompts, 9 tokens, answers abababababab'));
    expect(lines[at + 1]).toMatch(/^ +probe 0: "<script>alert\(1\)<\/script> \\\\boxed\{7\}x+…"$/);
    expect(lines[at + 1].length).toBeLessThan(140);
  });

  it("every recipe's buckets: a score that could not be computed is unscored, a reward with no right answer is scored", async () => {
    const usage = { promptTokens: 1, completionTokens: 1 };
    const filters = async (views: ConversationView[]) => {
      const page = await open(conversationBrowser('k', views, views, () => undefined).html);
      return page.locator('.filters label').allInnerTexts();
    };
    const toa = (reward?: number) =>
      toaRecordView({
        kind: 'eval',
        taskId: `t${reward}`,
        sampleIndex: 0,
        student: { text: 'a response', usage, ...(reward === undefined ? { failed: 'reward: HTTP 500' } : { reward }) },
        methods: {},
      });
    expect(await filters([toa(0.1), toa(0.9), toa()])).toEqual(['all (3)', 'scored (2)', 'unscored (1)']);

    const collab = (accuracy: CollabEvalRecord['metrics']['accuracy']): ConversationView =>
      collabConversationView({
        kind: 'eval',
        taskId: 'm1',
        sampleIndex: 0,
        conversation: [{ role: 'user', content: 'q' }],
        ending: 'terminated',
        metrics: { accuracy },
        simulatorFailures: 0,
        usage,
      });
    const judged = [collab({ score: 1 }), collab({ score: 0 }), collab({ missing: 'accuracy: unreadable reply' })];
    expect(judged.map((v) => v.outcome)).toEqual(['correct', 'wrong', 'unscored']);
    expect(await filters(judged)).toEqual(['all (3)', 'correct (1)', 'wrong (1)', 'unscored (1)']);

    const episode = { taskId: 'c1', sampleIndex: 0, problem: 'p', dialogue: [], agentTurns: 1, answeredWithMarker: true } as unknown;
    expect(colbenchConversationView(episode as ColbenchTrajectory, undefined).outcome).toBe('unscored');
  });
});
