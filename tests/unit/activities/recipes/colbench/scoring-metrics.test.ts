import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  bestOfK,
  blackPng,
  colbenchCodeMetrics,
  colbenchHtmlMetrics,
  countFailures,
  scoreCodeTrajectory,
  scoreHtmlTrajectory,
  type CodeScore,
  type ColbenchCodeTask,
  type ColbenchHtmlTask,
  type ColbenchTrajectory,
  type RunCodeTests,
  type ScoredCodeTrajectory,
  type ScoredHtmlTrajectory,
} from '../../../../../activities/recipes/colbench';
import { colbenchConversationView } from '../../../../../activities/recipes/colbench/report-view';
import { fakeRender, fakeSimilarity, memoryImages, textualRunCodeTests } from '../../../../helpers/colbench';

const task: ColbenchCodeTask = {
  id: 't1',
  kind: 'code',
  problem: 'P',
  reference: 'def f(x):\n    return x * 2',
  testCases: { a: 'f(1)', b: 'f(2)', c: 'f(3)' },
};
const page: ColbenchHtmlTask = { id: 'h1', kind: 'html', problem: 'P', reference: '<html><body>ref</body></html>' };

const record = (o: Partial<ColbenchTrajectory> = {}): ColbenchTrajectory => ({
  taskId: 't1',
  kind: 'code',
  sampleIndex: 0,
  system: 'S',
  problem: 'P',
  maxTurns: 10,
  dialogue: [
    { role: 'agent', content: 'q?' },
    { role: 'human', content: 'a. b.' },
    { role: 'agent', content: 'answer' },
  ],
  answer: 'def f(x):\n    return x * 2',
  answeredWithMarker: true,
  agentTurns: 2,
  humanNoResponse: 0,
  usage: { agent: { promptTokens: 100, completionTokens: 20 }, human: { promptTokens: 50, completionTokens: 10 } },
  ...o,
});

describe('scoring a code episode', () => {
  it("sends the answer as written (the sandbox applies the compat mode's fence rule) with the reference and tests", async () => {
    const run = textualRunCodeTests();
    const s = await scoreCodeTrajectory(record({ answer: '```python\ndef f(x):\n    return x * 2\n```' }), task, run, {
      functionTimeoutSeconds: 2,
      slot: 3,
      compat: 'seed',
    });
    expect(s).toMatchObject({ success: true, fraction: 1, passed: 3, total: 3 });
    expect(run.inputs[0]).toEqual({
      candidate: '```python\ndef f(x):\n    return x * 2\n```',
      reference: task.reference,
      testCases: task.testCases,
      functionTimeoutSeconds: 2,
      slot: 3,
      compat: 'seed',
    });
  });

  it('scores no answer ("No answer", empty, null) as 0 without running anything', async () => {
    const run = textualRunCodeTests();
    for (const answer of ['No answer', '  ', null]) {
      const s = await scoreCodeTrajectory(record({ answer }), task, run);
      expect(s).toMatchObject({ success: false, fraction: 0, passed: 0, total: 3, reason: 'no_answer', rejected: 'no answer' });
      expect(s.tests.every((t) => !t.passed)).toBe(true);
    }
    expect(run.inputs).toHaveLength(0);
  });

  it('scores a candidate the sandbox refused as 0, with the reason', async () => {
    const refusing: RunCodeTests = async () => ({
      passed: 0,
      total: 3,
      fraction: 0,
      success: false,
      tests: [],
      reasons: countFailures([]),
      reason: 'blocklist',
      rejected: 'forbidden text: import os',
    });
    expect(await scoreCodeTrajectory(record({ answer: 'import os' }), task, refusing)).toMatchObject({
      fraction: 0,
      success: false,
      reason: 'blocklist',
      rejected: 'forbidden text: import os',
    });
    await expect(scoreCodeTrajectory(record({ taskId: 'other' }), task, refusing)).rejects.toThrow('the record is for task other, not t1');
  });
});

describe("the report's view of a code episode", () => {
  it('names the tests the reference failed on beside the count, apart from the answer', () => {
    const s: CodeScore = {
      success: true,
      fraction: 1,
      passed: 2,
      total: 2,
      tests: [{ name: 'c', passed: false, reason: 'reference_error', error: 'reference raised: ZeroDivisionError' }],
      reasons: { ...countFailures([]), reference_error: 1 },
    };
    const view = colbenchConversationView({ ...record(), score: s }, task);
    expect(view.outcome).toBe('correct');
    expect(view.summary).toMatch(/^2\/2 hidden tests passed \(the reference failed on 1\) · /);
  });
});

describe('scoring an html episode', () => {
  it('compares the final render with a fresh render of the reference', async () => {
    const images = memoryImages();
    const good = await images.saveImage(await fakeRender(page.reference));
    const bad = await images.saveImage(await fakeRender('<html>other</html>'));
    const deps = { render: fakeRender, similarity: fakeSimilarity, loadImage: images.loadImage };
    expect(await scoreHtmlTrajectory(record({ taskId: 'h1', kind: 'html', answer: good }), page, deps)).toEqual({
      similarity: 1,
      answered: true,
    });
    expect(await scoreHtmlTrajectory(record({ taskId: 'h1', kind: 'html', answer: bad }), page, deps)).toEqual({
      similarity: 0.25,
      answered: true,
    });
  });

  it("keeps the reference render when given a store, answered or not, for the report to show beside the agent's", async () => {
    const images = memoryImages();
    const good = await images.saveImage(await fakeRender(page.reference));
    const deps = { render: fakeRender, similarity: fakeSimilarity, loadImage: images.loadImage, saveImage: images.saveImage };
    const scored = await scoreHtmlTrajectory(record({ taskId: 'h1', kind: 'html', answer: good }), page, deps);
    expect(scored).toMatchObject({ similarity: 1, answered: true });
    expect(await images.loadImage(scored.referenceImage!)).toEqual(await fakeRender(page.reference));
    const unanswered = await scoreHtmlTrajectory(record({ taskId: 'h1', kind: 'html', answer: null }), page, deps);
    expect(unanswered).toMatchObject({ similarity: 0, answered: false });
    expect(await images.loadImage(unanswered.referenceImage!)).toEqual(await fakeRender(page.reference));
  });

  it('no render: 0 by default; compat seed compares a black 224×224 image, as the seed does', async () => {
    const seen: Buffer[] = [];
    const similarity = (a: Buffer) => {
      seen.push(a);
      return 0.13;
    };
    const deps = { render: fakeRender, similarity, loadImage: async () => Buffer.alloc(0) };
    expect(await scoreHtmlTrajectory(record({ taskId: 'h1', kind: 'html', answer: null }), page, deps)).toEqual({
      similarity: 0,
      answered: false,
    });
    expect(seen).toHaveLength(0);
    expect(await scoreHtmlTrajectory(record({ taskId: 'h1', kind: 'html', answer: null }), page, { ...deps, compat: 'seed' })).toEqual({
      similarity: 0.13,
      answered: false,
    });
    expect(seen[0]).toEqual(blackPng(224, 224));
  });

  it('builds a valid black PNG', () => {
    const png = blackPng(4, 2);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(4);
    expect(png.readUInt32BE(20)).toBe(2);
    const idatLength = png.readUInt32BE(33);
    expect(png.subarray(37, 41).toString('ascii')).toBe('IDAT');
    expect(inflateSync(png.subarray(41, 41 + idatLength))).toEqual(Buffer.alloc(2 * (4 * 3 + 1)));
  });
});

describe('ColBench metrics', () => {
  const score = (fraction: number, referenceErrors = 0): CodeScore => ({
    success: fraction === 1,
    fraction,
    passed: fraction * 4,
    total: 4,
    tests: [],
    reasons: { ...countFailures([]), wrong_value: 4 - fraction * 4, reference_error: referenceErrors },
  });
  const scored = (taskId: string, sampleIndex: number, fraction: number, o: Partial<ColbenchTrajectory> = {}): ScoredCodeTrajectory => ({
    ...record({ taskId, sampleIndex, ...o }),
    score: score(fraction),
  });

  it('code: success_rate, tests_passed_fraction (average correctness), answered_rate, turns, tokens', () => {
    const rs = [
      scored('a', 0, 1),
      scored('a', 1, 0.5, { answeredWithMarker: false, agentTurns: 10 }),
      scored('b', 0, 0.25, { humanNoResponse: 1 }),
      scored('b', 1, 0, { answer: null }),
    ];
    rs[3].score.rejected = 'no answer';
    rs[2].score = score(0.25, 2);
    rs[1].score.reasons.reference_error = 1;
    const m = colbenchCodeMetrics(rs, { bestOfK: 2 });
    expect(m).toMatchObject({
      success_rate: 0.25,
      tests_passed_fraction: (1 + 0.5 + 0.25 + 0) / 4,
      answered_rate: 0.75,
      avg_agent_turns: (2 + 10 + 2 + 2) / 4,
      human_no_response_rate: 1 / 4,
      rejected_rate: 0.25,
      reference_error_tests: 3, // a run with broken references shows
      total_tokens: 4 * 180,
      agent_tokens: 4 * 120,
      avg_tokens_per_episode: 180,
      episodes: 4,
      best_of_2_success_rate: 0.5,
      best_of_2_tests_passed_fraction: (1 + 0.25) / 2,
    });
  });

  it('best-of-k takes per task the max over its first k samples', () => {
    const rs = [scored('a', 0, 0), scored('a', 1, 0.5), scored('a', 2, 1), scored('b', 0, 0.2), scored('b', 2, 0.9)];
    expect(bestOfK(rs, (r) => r.score.fraction, 1)).toBeCloseTo((0 + 0.2) / 2);
    expect(bestOfK(rs, (r) => r.score.fraction, 2)).toBeCloseTo((0.5 + 0.2) / 2);
    expect(bestOfK(rs, (r) => r.score.fraction)).toBeCloseTo((1 + 0.9) / 2);
    expect(bestOfK([], (r: ScoredCodeTrajectory) => r.score.fraction)).toBe(0);
  });

  it('html: mean_similarity, rendered_rate, best-of-k', () => {
    const h = (taskId: string, sampleIndex: number, similarity: number, answered = true): ScoredHtmlTrajectory => ({
      ...record({ taskId, sampleIndex, kind: 'html' }),
      score: { similarity, answered },
    });
    const m = colbenchHtmlMetrics([h('a', 0, 0.8), h('a', 1, 0.6), h('b', 0, 0, false), h('b', 1, 0.4)], { bestOfK: 2 });
    expect(m.mean_similarity).toBeCloseTo(0.45);
    expect(m.rendered_rate).toBe(0.75);
    expect(m.best_of_2_mean_similarity).toBeCloseTo(0.6);
    expect(m.episodes).toBe(4);
  });

  it('zero episodes give zeros, never NaN', () => {
    const m = colbenchCodeMetrics([]);
    expect(Object.values(m).every((v) => v === 0)).toBe(true);
    expect(Object.values(colbenchHtmlMetrics([])).every((v) => v === 0)).toBe(true);
  });
});
