// TOA's reward call (reward.ts), its data builder (data.ts) and its metrics (metrics.ts) on hand-made answers and
// records: a score that cannot be had is FAILED (never 0) and is never ranked, averaged or trained on.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import type { Chat, ChatCall, ModelApi } from '../../../../../activities/llm/types';
import { scoreResponse } from '../../../../../activities/recipes/toa/reward';
import { toaTrainingData } from '../../../../../activities/recipes/toa/data';
import { DEFAULT_TOA_PROMPTS } from '../../../../../activities/recipes/toa/prompts';
import { toaMetrics } from '../../../../../activities/recipes/toa/metrics';
import { toaRecipeSchema } from '../../../../../activities/recipes/toa/config';
import { toaRuntime } from '../../../../../activities/recipes/toa/runtime';
import { builtRows, streamedBuild } from '../../../../helpers/streamed-build';
import type { ToaBuildRecord, ToaEvalRecord, SearchSummary } from '../../../../../activities/recipes/toa/records';
import type { ResponseRecord } from '../../../../../activities/recipes/toa/search';
import type { ToaTask } from '../../../../../activities/recipes/toa/tasks';

const task: ToaTask = { id: 't1', kind: 'instruction', instruction: 'Name three primes.' };
const usage = { promptTokens: 10, completionTokens: 2 };

/** A Chat that answers the given texts in turn (or throws them) and records what it was asked. */
function scripted(answers: Array<string | Error>, api?: ModelApi) {
  const calls: ChatCall[] = [];
  const chat = Object.assign(
    async (call: ChatCall) => {
      calls.push(call);
      const a = answers[calls.length - 1];
      if (a instanceof Error) throw a;
      return { texts: [a], finishReasons: ['stop'], usage, cached: false };
    },
    { api },
  ) as Chat;
  return { chat, calls };
}
const opts = { key: 'k', maxTokens: 64, parseRetries: 2, prompts: DEFAULT_TOA_PROMPTS };

describe('scoreResponse', () => {
  it('an LLM judge: re-asked under new keys while unreadable, then its 1–10 score with every call’s tokens', async () => {
    const { chat, calls } = scripted(['I like it', '{"score": 7}']);
    expect(await scoreResponse(chat, task, '2, 3, 5', opts)).toEqual({ reward: 7, usage: { promptTokens: 20, completionTokens: 4 } });
    expect(calls.map((c) => c.sampleKey)).toEqual(['k', 'k/retry-1']);
    expect(calls[0].messages.map((m) => m.content).join('\n')).toContain('Name three primes.');
  });

  it('a judge unreadable after its re-asks, or a request refused for good, is failed — never 0', async () => {
    const unreadable = await scoreResponse(scripted(['meh', 'meh', 'meh']).chat, task, '2, 3, 5', opts);
    expect(unreadable).toMatchObject({ failed: expect.stringMatching(/no readable score in 3 replies/) });
    expect('reward' in unreadable).toBe(false);
    const refused = ApplicationFailure.nonRetryable('HTTP 400: input too long');
    expect(await scoreResponse(scripted([refused]).chat, task, 'x', opts)).toMatchObject({ failed: 'HTTP 400: input too long' });
    // A retryable failure is the activity's: it propagates, so the shard retries and nothing is recorded.
    await expect(scoreResponse(scripted([ApplicationFailure.retryable('HTTP 503')]).chat, task, 'x', opts)).rejects.toThrow('503');
    // A spent budget stops the shard (it needs attention), not just this response.
    const spent = ApplicationFailure.create({ type: 'BudgetReached', nonRetryable: true, message: 'budget reached' });
    await expect(scoreResponse(scripted([spent]).chat, task, 'x', opts)).rejects.toThrow('budget reached');
  });

  it('a reward model or scoring service gets the bare (original question, response) pair and answers a number', async () => {
    for (const api of ['reward', 'score'] as const) {
      const { chat, calls } = scripted(['-1.25'], api);
      expect(await scoreResponse(chat, task, '2, 3, 5', opts)).toEqual({ reward: -1.25, usage });
      expect(calls[0].messages).toEqual([
        { role: 'user', content: 'Name three primes.' },
        { role: 'assistant', content: '2, 3, 5' },
      ]);
      expect(await scoreResponse(scripted(['NaN'], api).chat, task, 'x', opts)).toMatchObject({ failed: expect.stringContaining('NaN') });
    }
  });
});

const response = (play: number, reward: number | undefined, text = `r${play}`): ResponseRecord => ({
  play,
  model: 'policy_0',
  action: 'generate',
  layer: 1,
  label: 'policy_0_layer_1',
  parents: [],
  text,
  ...(reward === undefined ? { failed: 'judge unreadable' } : { reward }),
});
const built = (taskId: string, responses: ResponseRecord[]): ToaBuildRecord => ({
  kind: 'build',
  taskId,
  sampleIndex: 0,
  search: {
    method: 'toa',
    budget: responses.length,
    results: { responses, topK: { k: 10 }, failed: 0, actions: {} },
    flops: 0,
    unmeteredCalls: 0,
    policyUsage: usage,
    rewardUsage: usage,
  },
});

describe('toaTrainingData', () => {
  const tasks: Record<string, ToaTask> = {
    a: { ...task, id: 'a' },
    b: { ...task, id: 'b' },
    c: { ...task, id: 'c' },
    d: { ...task, id: 'd' },
  };
  it('SFT: the best response; DPO: best vs the response at rank dpoRank (the worst when fewer); failed never ranked', () => {
    const records = [
      // a: ranks 9 (p2), 8 (p4), 5 (p1), 3 (p5); p3 failed. Rank 3 → p1.
      built('a', [response(1, 5), response(2, 9), response(3, undefined), response(4, 8), response(5, 3)]),
      // b: two scored, rank 3 asked → the worst (p1); the failed p2 is not the worst.
      built('b', [response(1, 2), response(2, undefined), response(3, 4)]),
      // c: a tie between best and rejected gives SFT but no pair; d: nothing scored gives nothing.
      built('c', [response(1, 6), response(2, 6)]),
      built('d', [response(1, undefined)]),
    ];
    const { sft, pairs } = toaTrainingData(records, (id) => tasks[id], { dpoRank: 3, prompts: DEFAULT_TOA_PROMPTS });
    expect(sft.map((e) => [e.taskId, e.completion])).toEqual([
      ['a', 'r2'],
      ['b', 'r3'],
      ['c', 'r1'],
    ]);
    expect(pairs.map((p) => [p.taskId, p.chosen, p.rejected])).toEqual([
      ['a', 'r2', 'r1'],
      ['b', 'r3', 'r1'],
    ]);
    // The prompt is the question itself, as the student will be asked it.
    expect(sft[0].messages).toEqual([{ role: 'user', content: 'Name three primes.' }]);
  });
});

describe('the streamed data build', () => {
  it('writes the rows buildData returns as each search arrives, in plan order', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toa-data-'));
    const tasks = path.join(dir, 'tasks.jsonl');
    // Task-index order (b, a, c, d) is not id order.
    writeFileSync(tasks, `${['b', 'a', 'c', 'd'].map((id) => JSON.stringify({ id, instruction: `Question ${id}?` })).join('\n')}\n`);
    const cfg = toaRecipeSchema.parse({
      name: 'toa',
      task: 'instruction',
      evalTasks: tasks,
      trainTasks: tasks,
      policies: 2,
      data: { dpoRank: 3 },
    });
    const records = [
      built('b', [response(1, 2), response(2, undefined), response(3, 4)]),
      built('a', [response(1, 5), response(2, 9), response(3, undefined), response(4, 8), response(5, 3)]),
      built('c', [response(1, 6), response(2, 6)]),
      built('d', [response(1, undefined)]),
      built('gone', [response(1, 7), response(2, 1)]),
    ];
    for (const format of ['trl', 'fairseq2', 'verl'] as const) {
      const runtime = toaRuntime(cfg, 0, format);
      const data = runtime.buildData([...records].reverse());
      const streamed = streamedBuild(runtime, records);
      expect(streamed.rows).toEqual(builtRows(data));
      expect(streamed.counts).toEqual(data.counts);
      expect(streamed.firstRowAt).toBe(0);
    }
    expect(toaRuntime(cfg, 0, 'trl').buildData(records).counts).toEqual({
      sft_examples: 3,
      preference_pairs: 2,
      searched_prompts: 5,
      failed_rewards: 0,
    });
    // The student's datasets are named even when nothing was built.
    expect(toaRuntime(cfg, 0, 'trl').buildData([]).byRole).toEqual({ student: { sft: [], dpo: [] } });
  });
});

describe('toaMetrics', () => {
  const summary = (best: number | undefined, topK: number | undefined, flops: number, failed: number): SearchSummary => ({
    method: 'toa',
    budget: 4,
    flops,
    unmeteredCalls: 0,
    policyUsage: usage,
    rewardUsage: usage,
    ...(best === undefined ? {} : { best: { reward: best, model: 'policy_1', play: 2, action: 'refine' } }),
    topK: { k: 2, ...(topK === undefined ? {} : { mean: topK }) },
    failed,
    actions: {},
  });
  const evalRecord = (taskId: string, student: number | undefined, methods: ToaEvalRecord['methods']): ToaEvalRecord => ({
    kind: 'eval',
    taskId,
    sampleIndex: 0,
    student: { text: 's', ...(student === undefined ? { failed: 'unreadable' } : { reward: student }), usage },
    methods,
  });

  it('the student’s mean reward over scored answers, and per method the mean best, top-k, TFLOPs and failures', () => {
    const m = toaMetrics([
      evalRecord('a', 6, { toa: summary(9, 8, 2e12, 1), random: summary(7, 6, 1e12, 0) }),
      evalRecord('b', undefined, { toa: summary(undefined, undefined, 4e12, 4), random: summary(5, 4, 1e12, 2) }),
    ]);
    expect(m).toEqual({
      reward: 6, // b's failed score is left out, not averaged as 0
      failed_rewards: 1,
      prompts: 2,
      'toa/best_reward': 9,
      'toa/topk_reward': 8,
      'toa/tflops': 3,
      'toa/failed_rewards': 5,
      'random/best_reward': 6,
      'random/topk_reward': 5,
      'random/tflops': 1,
      'random/failed_rewards': 2,
    });
    // Nothing scored at all: the means are missing, not 0.
    const none = toaMetrics([evalRecord('c', undefined, { toa: summary(undefined, undefined, 1e12, 4) })]);
    expect(Object.keys(none).filter((k) => k.endsWith('reward'))).toEqual([]);
  });
});
