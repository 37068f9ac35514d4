// Compute accounting (activities/recipes/toa/flops.ts, arXiv 2412.17061 §4): FLOPs per call from the model's size and the call's tokens, summed per prompt.
import { describe, expect, it } from 'vitest';
import { callFlops, flopsPerToken, promptFlops } from '../../../../../activities/recipes/toa/flops';

describe('flops', () => {
  it('is 2·P per token without the model shape: prompt and completion tokens both count', () => {
    expect(callFlops({ params: 7e9 }, { promptTokens: 100, completionTokens: 50 })).toBe(2 * 7e9 * 150);
    // A refine prompt carries the previous answer, so the same completion costs more.
    expect(callFlops({ params: 7e9 }, { promptTokens: 600, completionTokens: 50 })).toBeGreaterThan(
      callFlops({ params: 7e9 }, { promptTokens: 100, completionTokens: 50 }),
    );
  });

  it('adds the attention term 2·n_layer·n_ctx·d_model, with TOA’s context of 15000 unless given', () => {
    const llama8b = { params: 8e9, layers: 32, hiddenSize: 4096 };
    expect(flopsPerToken(llama8b)).toBe(2 * 8e9 + 2 * 32 * 15000 * 4096);
    expect(flopsPerToken({ ...llama8b, contextLength: 8192 })).toBe(2 * 8e9 + 2 * 32 * 8192 * 4096);
    expect(() => flopsPerToken({ params: 8e9, contextLength: 8192 })).toThrow(/needs both layers and hiddenSize/);
    expect(() => flopsPerToken({ params: 0 })).toThrow(/params must be a positive number/);
    expect(() => callFlops({ params: 1 }, { promptTokens: -1, completionTokens: 0 })).toThrow(/promptTokens/);
  });

  it('sums a prompt’s calls per model and reports calls without usage instead of guessing', () => {
    const models = { small: { params: 1e9 }, big: { params: 70e9 } };
    const total = promptFlops(models, [
      { model: 'small', usage: { promptTokens: 10, completionTokens: 20 } },
      { model: 'big', usage: { promptTokens: 100, completionTokens: 0 } },
      { model: 'big' },
    ]);
    expect(total).toEqual({ flops: 2e9 * 30 + 2 * 70e9 * 100, unmeteredCalls: 1 });
    expect(() => promptFlops(models, [{ model: 'toString', usage: { promptTokens: 1, completionTokens: 1 } }])).toThrow(
      /no parameter count for model "toString"/,
    );
  });
});
