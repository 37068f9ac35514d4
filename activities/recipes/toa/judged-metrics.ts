// The evaluation's rates per judged text (`student`, or a compared method's best response), over an iteration's
// records: AlpacaEval 2.0 win rate and length-controlled win rate (win-rates.ts) and the Arena-Hard win rate with its
// 95 % bootstrap interval (arena-hard.ts), all in percent against the reference outputs; failed judgements are left
// out. Keys: <who>/alpaca_win_rate, <who>/alpaca_lc_win_rate, <who>/arena_win_rate, <who>/arena_ci_low,
// <who>/arena_ci_high, <who>/avg_chars; with recipe.evaluation.kiwi, <who>/kiwi — the mean KIWI score of the
// translations (0–1; the paper prints KIWI-XXL × 100).
import { hashSeed } from '../../seeded-random';
import type { MetricSpec } from '../../report/metric-kinds';
import { type MetricsFold, RunningMean } from '../metrics-fold';
import { arenaWinRate } from './arena-hard';
import type { ArenaScore, PairJudgement } from './evaluation';
import type { ToaEvalRecord } from './records';
import { lengthControlledWinRate, type PreferenceRow } from './win-rates';

export const JUDGED_METRIC_KINDS: readonly MetricSpec[] = [
  { match: /^(.+)\/alpaca_win_rate$/, kind: 'value', plot: 'AlpacaEval win rate vs the reference (%)', line: '$1' },
  { match: /^(.+)\/alpaca_lc_win_rate$/, kind: 'value', plot: 'AlpacaEval length-controlled win rate vs the reference (%)', line: '$1' },
  { match: /^(.+)\/arena_win_rate$/, kind: 'value', plot: 'Arena-Hard win rate vs the reference (%)', line: '$1' },
  { match: /^(.+)\/arena_ci_(low|high)$/, kind: 'value', plot: 'Arena-Hard 95% interval (%)', line: '$1 $2' },
  { match: /^(.+)\/avg_chars$/, kind: 'count', plot: 'judged text length (characters)', line: '$1' },
  { match: /^(.+)\/kiwi$/, kind: 'value', plot: 'KIWI score of the translations', line: '$1' },
];

/** What the rates of one judged text need, a few numbers per prompt (the records are not kept): the length-controlled
 *  fit and the bootstrap read every prompt's outcome at once, in record order. */
class JudgedTexts {
  /** Per prompt with an AlpacaEval preference: p, Δ and γ (NaN when the reference gives none: a JSON record never
   *  holds NaN). */
  readonly p: number[] = [];
  readonly delta: number[] = [];
  readonly difficulty: number[] = [];
  /** Every readable Arena-Hard game's score (−2 … 2). */
  readonly arena: ArenaScore[] = [];
  readonly chars = new RunningMean();
  add(j: PairJudgement): void {
    if (j.alpaca && 'value' in j.alpaca) {
      this.p.push(j.alpaca.value);
      this.delta.push(j.referenceChars - j.chars);
      this.difficulty.push(j.difficulty ?? Number.NaN);
    }
    for (const g of j.arena ?? []) if ('value' in g) this.arena.push(g.value);
    this.chars.add(j.chars);
  }
  rows(): PreferenceRow[] {
    return this.p.map((p, i) => ({
      p,
      delta: this.delta[i],
      ...(Number.isNaN(this.difficulty[i]) ? {} : { difficulty: this.difficulty[i] }),
    }));
  }
}

/** The judged rates as records stream past; the keys follow the order in which records first name each text. */
export function judgedMetricsFold(o: { bootstrap: number; seed: number }): MetricsFold<ToaEvalRecord> {
  const judged = new Map<string, JudgedTexts>();
  const kiwi = new Map<string, RunningMean>();
  return {
    add(r) {
      for (const [w, j] of Object.entries(r.judged ?? {})) {
        let texts = judged.get(w);
        if (!texts) judged.set(w, (texts = new JudgedTexts()));
        if (j) texts.add(j);
      }
      for (const [w, k] of Object.entries(r.kiwi ?? {})) {
        let mean = kiwi.get(w);
        if (!mean) kiwi.set(w, (mean = new RunningMean()));
        if (k && 'score' in k) mean.add(k.score);
      }
    },
    result() {
      const out: Record<string, number> = {};
      for (const [w, texts] of judged) {
        const lc = lengthControlledWinRate(texts.rows());
        if (lc) {
          out[`${w}/alpaca_win_rate`] = lc.winRate;
          out[`${w}/alpaca_lc_win_rate`] = lc.lcWinRate;
        }
        const arena = arenaWinRate(texts.arena, { rounds: o.bootstrap, seed: hashSeed(o.seed, w, 'arena-bootstrap') });
        if (arena) {
          out[`${w}/arena_win_rate`] = arena.winRate;
          out[`${w}/arena_ci_low`] = arena.ciLow;
          out[`${w}/arena_ci_high`] = arena.ciHigh;
        }
        if (texts.chars.mean !== undefined) out[`${w}/avg_chars`] = texts.chars.mean;
      }
      for (const [w, mean] of kiwi) if (mean.mean !== undefined) out[`${w}/kiwi`] = mean.mean;
      return out;
    },
  };
}
