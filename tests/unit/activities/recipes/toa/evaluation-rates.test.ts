// The evaluation's statistics on hand-made judgements: AlpacaEval 2.0's win rate and length-controlled win rate
// (win-rates.ts: the GLM of arXiv 2404.04475 fitted here) and Arena-Hard's win rate with its bootstrap interval
// (arena-hard.ts), and the verdict parsers they read.
import { describe, expect, it } from 'vitest';
import { arenaWinRate, battlesOf } from '../../../../../activities/recipes/toa/arena-hard';
import { arenaScore, type ArenaScore } from '../../../../../activities/recipes/toa/evaluation';
import { parseAlpacaChoice, parseArenaVerdict } from '../../../../../activities/recipes/toa/prompts';
import { lengthControlledWinRate, type PreferenceRow } from '../../../../../activities/recipes/toa/win-rates';
import { seededRandom } from '../../../../../activities/seeded-random';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Preferences drawn from a known GLM σ(θ + φ·tanh(Δ/sd) + ψ·γ): what the fit must recover. */
function fromGlm(n: number, g: { theta: number; phi: number; psi?: number; longer: number }, seed = 1): PreferenceRow[] {
  const rand = seededRandom(seed);
  const rows = Array.from({ length: n }, () => {
    // `longer`: the share of prompts where the text is longer than the reference (Δ = ref − text < 0).
    const delta = (rand() < g.longer ? -1 : 1) * (50 + 950 * rand());
    const difficulty = g.psi === undefined ? undefined : rand() * 2 - 1;
    return { delta, ...(difficulty === undefined ? {} : { difficulty }) };
  });
  const mean = rows.reduce((a, r) => a + r.delta, 0) / n;
  const sd = Math.sqrt(rows.reduce((a, r) => a + (r.delta - mean) ** 2, 0) / (n - 1));
  // Soft labels at the GLM's own probabilities: the maximum-likelihood fit is the GLM itself (up to the small L2).
  return rows.map((r) => ({ ...r, p: sigmoid(g.theta + g.phi * Math.tanh(r.delta / sd) + (g.psi ?? 0) * (r.difficulty ?? 0)) }));
}

describe('AlpacaEval 2.0 win rate and length-controlled win rate', () => {
  it('a judge swayed only by length: the raw win rate rewards the longer texts, the LC win rate is back at 50', () => {
    // φ < 0: the judge prefers the text when Δ = len(ref) − len(text) < 0, i.e. when the text is longer.
    const rows = fromGlm(400, { theta: 0, phi: -3, longer: 0.8 });
    const r = lengthControlledWinRate(rows)!;
    expect(r.winRate).toBeGreaterThan(70);
    expect(r.lcWinRate).toBeCloseTo(50, 0);
    expect(r.phi).toBeCloseTo(-3, 1);
  });

  it('a judge not swayed by length: the LC win rate equals the raw one, σ(θ)', () => {
    const r = lengthControlledWinRate(fromGlm(300, { theta: 1, phi: 0, longer: 0.5 }))!;
    expect(r.winRate).toBeCloseTo(100 * sigmoid(1), 6);
    expect(r.lcWinRate).toBeCloseTo(100 * sigmoid(1), 1);
    expect(r.theta).toBeCloseTo(1, 2);
  });

  it('with instruction difficulty: LC = mean over prompts of σ(θ + ψ·γ), the length term at 0', () => {
    const rows = fromGlm(400, { theta: 0.5, phi: -2, psi: 1.5, longer: 0.7 }, 3);
    const r = lengthControlledWinRate(rows)!;
    expect(r.psi).toBeCloseTo(1.5, 1);
    const expected = (100 * rows.reduce((a, x) => a + sigmoid(0.5 + 1.5 * x.difficulty!), 0)) / rows.length;
    expect(r.lcWinRate).toBeCloseTo(expected, 0);
  });

  it('hard preferences, the text winning every game: finite weights, LC near 100 — and no rows, no rate', () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({ p: 1, delta: i * 10 - 100 }));
    const r = lengthControlledWinRate(rows)!;
    expect(r.winRate).toBe(100);
    expect(Number.isFinite(r.theta)).toBe(true);
    expect(r.lcWinRate).toBeGreaterThan(95);
    expect(lengthControlledWinRate([])).toBeUndefined();
  });
});

describe('Arena-Hard win rate and bootstrap interval', () => {
  it('a clear verdict is 3 battles, a plain one 1, a tie half a win (arena-hard-auto)', () => {
    expect(battlesOf(2)).toEqual([1, 1, 1]);
    expect(battlesOf(1)).toEqual([1]);
    expect(battlesOf(0)).toEqual([0.5]);
    expect(battlesOf(-1)).toEqual([0]);
    expect(battlesOf(-2)).toEqual([0, 0, 0]);
    // 2 games: much better (3 wins) and a tie (0.5) → 3.5 / 4.
    expect(arenaWinRate([2, 0], { rounds: 10, seed: 1 })!.winRate).toBe(87.5);
  });

  it('the interval holds the rate, is seeded, and narrows with more prompts', () => {
    const rand = seededRandom(9);
    const scores = (n: number): ArenaScore[] => Array.from({ length: n }, () => (Math.floor(rand() * 5) - 2) as ArenaScore);
    const small = arenaWinRate(scores(40), { rounds: 100, seed: 5 })!;
    expect(small.ciLow).toBeLessThanOrEqual(small.winRate);
    expect(small.ciHigh).toBeGreaterThanOrEqual(small.winRate);
    expect(small.ciHigh).toBeGreaterThan(small.ciLow);
    const s = scores(40);
    expect(arenaWinRate(s, { rounds: 100, seed: 5 })).toEqual(arenaWinRate(s, { rounds: 100, seed: 5 }));
    const big = arenaWinRate(scores(2000), { rounds: 100, seed: 5 })!;
    expect(big.ciHigh - big.ciLow).toBeLessThan((small.ciHigh - small.ciLow) / 3);
    expect(arenaWinRate([], { rounds: 100, seed: 5 })).toBeUndefined();
  });
});

describe('verdicts', () => {
  it('Arena-Hard labels: one label (repeated is fine); none or two different ones is no verdict', () => {
    expect(parseArenaVerdict('My answer… Final verdict: [[B>A]]')).toBe('B>A');
    expect(parseArenaVerdict('[[A>>B]] … so [[A>>B]]')).toBe('A>>B');
    expect(parseArenaVerdict('[[A>B]] or maybe [[A=B]]')).toBeUndefined();
    expect(parseArenaVerdict('A is better')).toBeUndefined();
  });

  it("a verdict is turned to the judged text's side by the order it was shown in", () => {
    expect(arenaScore('A>>B', true)).toBe(2);
    expect(arenaScore('A>>B', false)).toBe(-2);
    expect(arenaScore('B>A', false)).toBe(1);
    expect(Object.is(arenaScore('A=B', false), 0)).toBe(true);
  });

  it('AlpacaEval picks: a lone letter, bracketed or not; prose is no pick', () => {
    for (const [t, v] of [
      ['A', 'A'],
      [' b. ', 'B'],
      ['(B)', 'B'],
      ['[[A]]', 'A'],
      ['Answer B', 'B'],
    ] as const)
      expect(parseAlpacaChoice(t)).toBe(v);
    for (const t of ['A is better than B', 'Both', '']) expect(parseAlpacaChoice(t)).toBeUndefined();
  });
});
