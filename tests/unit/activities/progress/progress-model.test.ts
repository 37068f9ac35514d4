// The progress model's arithmetic: what an activity measures (rates over the last minute), how a stage sums its
// finished and running pieces (a silent piece's rate no longer counts), the ETAs, the dollars only where a price is
// set, and the words the terminal and the UI print.
import { describe, expect, it } from 'vitest';
import { iterationEtaSeconds, stageProgress, STALE_PROGRESS_MS, type WorkProgress } from '../../../../contracts/progress';
import { progressLines } from '../../../../contracts/progress-text';
import { STAGES } from '../../../../contracts/stages';
import { newUsageCounter } from '../../../../activities/llm/usage';
import { llmCounts } from '../../../../activities/progress/llm-counts';
import { progressMeter, RATE_WINDOW_MS } from '../../../../activities/progress/meter';
import { DEFAULT_PROGRESS, parseTrainerLine, DEFAULT_CHECKPOINT } from '../../../../activities/training/train-progress';

describe('an activity measures its work', () => {
  it('rates are over the last minute, and absent until a second measurement', () => {
    let t = 0;
    let done = 0;
    const measure = progressMeter(
      { key: 'eval-0', stage: 'generate', unit: 'conversations' },
      () => ({ done, total: 100 }),
      () => t,
    );
    expect(measure().perSecond).toBeUndefined();
    // 1 per second for two minutes, then 5 per second: after a minute of the new pace the rate is the new pace.
    for (let i = 0; i < 30; i++) {
      t += 4000;
      done += 4;
    }
    expect(measure().perSecond).toBeCloseTo(1);
    for (let i = 0; i < RATE_WINDOW_MS / 4000 + 1; i++) {
      t += 4000;
      done += 20;
      measure();
    }
    expect(measure().perSecond).toBeCloseTo(5);
  });

  it('calls by outcome, tokens, and dollars only for roles whose endpoint has a price', () => {
    const agent = {
      ...newUsageCounter(),
      calls: 10,
      cachedCalls: 4, // 3 from the cache, 1 shared with an identical call in flight
      sharedCalls: 1,
      promptTokens: 1_000_000,
      completionTokens: 500_000,
      failedCalls: 1,
      retriedRequests: 3,
    };
    const judge = { ...newUsageCounter(), calls: 2, promptTokens: 100, completionTokens: 10 };
    const priced = llmCounts({ agent, judge }, { agent: { input: 0.5, output: 2 }, judge: undefined });
    expect(priced).toEqual({
      calls: { ok: 8, cached: 3, shared: 1, failed: 1, retried: 3 },
      tokens: { prompt: 1_000_100, completion: 500_010 },
      usd: 1.5,
    });
    expect(llmCounts({ agent }, { agent: undefined }).usd).toBeUndefined();
  });

  it('calls/s counts what the endpoint was sent, not answers from the cache or shared in flight', () => {
    let t = 0;
    const calls = { ok: 0, cached: 0, shared: 0, failed: 0, retried: 0 };
    const measure = progressMeter(
      { key: 'eval-0', stage: 'generate', unit: 'conversations' },
      () => ({ done: 0, calls: { ...calls } }),
      () => t,
    );
    measure();
    t += 10_000;
    Object.assign(calls, { ok: 90, cached: 500, shared: 400, failed: 10 });
    const p = measure();
    expect(p.callsPerSecond).toBeCloseTo(10);
    expect(progressLines({ ...p, done: 0 } as never).at(-1)).toMatch(
      /^calls 90 sent, 500 cached, 400 shared, 10 failed, 0 retried · 10 calls\/s/,
    );
  });

  it('a trainer line gives its step, its total when printed, and its loss', () => {
    expect(parseTrainerLine('step 12/40 loss 0.4100 rows 8', DEFAULT_PROGRESS, DEFAULT_CHECKPOINT)).toEqual({
      step: 12,
      totalSteps: 40,
      loss: 0.41,
    });
    expect(parseTrainerLine('step 12 loss 0.41', DEFAULT_PROGRESS, DEFAULT_CHECKPOINT)).toEqual({ step: 12, loss: 0.41 });
  });
});

const piece = (o: Partial<WorkProgress>): WorkProgress => ({ key: 'k', stage: 'generate', unit: 'conversations', done: 0, at: 1000, ...o });

describe('a stage sums its pieces', () => {
  it('finished plus running work, rates of fresh pieces only, ETA from what is left', () => {
    const now = 100_000;
    const p = stageProgress(
      'generate',
      'conversations',
      48,
      { done: 12, calls: { ok: 30, cached: 0, failed: 0, retried: 1 } },
      [
        piece({ key: 'eval-1', done: 6, perSecond: 0.5, calls: { ok: 10, cached: 5, failed: 0, retried: 0 }, at: now - 2000 }),
        piece({ key: 'train-0', done: 3, perSecond: 0.25, at: now - 1000 }),
        piece({ key: 'train-1', done: 3, perSecond: 9, at: now - STALE_PROGRESS_MS - 1 }),
      ],
      now,
    );
    expect(p).toMatchObject({ done: 24, total: 48, perSecond: 0.75, etaSeconds: 32, calls: { ok: 40, cached: 5, failed: 0, retried: 1 } });
    expect(p.usd).toBeUndefined();
    expect(p.at).toBe(now - STALE_PROGRESS_MS - 1);
    expect(progressLines(p)).toEqual([
      'generate: 24 of 48 conversations · 0.75/s · ETA 32 s',
      'calls 40 ok, 5 cached, 0 failed, 1 retried · no price set',
    ]);
  });

  it('training: one line per trainer, the stage ETA is the slowest trainer', () => {
    const trainers = [
      piece({ key: 'train:critic', stage: 'train', unit: 'steps', role: 'critic', done: 10, total: 40, loss: 0.5, perSecond: 1, at: 5000 }),
      piece({
        key: 'train:agent',
        stage: 'train',
        unit: 'steps',
        role: 'agent',
        done: 30,
        total: 40,
        loss: 0.25,
        perSecond: 0.5,
        at: 5000,
      }),
    ];
    const p = stageProgress('train', 'steps', undefined, { done: 0 }, trainers, 6000);
    expect(p.etaSeconds).toBe(30);
    expect(progressLines(p)).toEqual([
      'train agent: step 30 of 40 · loss 0.25 · 0.5 steps/s · ETA 20 s',
      'train critic: step 10 of 40 · loss 0.5 · 1 steps/s · ETA 30 s',
    ]);
  });

  it("the iteration's ETA adds the later stages as the last iteration took them, and is unknown in the first", () => {
    const previous = { evaluate: { ms: 10_000 }, 'build-data': { ms: 5_000 }, train: { ms: 60_000 } };
    expect(iterationEtaSeconds(STAGES, 'generate', 30, previous)).toBe(105);
    expect(iterationEtaSeconds(STAGES, 'generate', 30, undefined)).toBeUndefined();
    expect(iterationEtaSeconds(STAGES, 'train', 12, undefined)).toBe(12);
  });
});
