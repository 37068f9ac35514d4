// The evaluation's rates per judged text (`student`, or a compared method's best response), over an iteration's
// records: AlpacaEval 2.0 win rate and length-controlled win rate (win-rates.ts) and the Arena-Hard win rate with its
// 95 % bootstrap interval (arena-hard.ts), all in percent against the reference outputs; failed judgements are left
// out. Keys: <who>/alpaca_win_rate, <who>/alpaca_lc_win_rate, <who>/arena_win_rate, <who>/arena_ci_low,
// <who>/arena_ci_high, <who>/avg_chars; with recipe.evaluation.kiwi, <who>/kiwi — the mean KIWI score of the
// translations (0–1; the paper prints KIWI-XXL × 100).
import { hashSeed } from '../../seeded-random';
import type { MetricSpec } from '../../report/metric-kinds';
import { meanOf } from '../shared/mean';
import { arenaWinRate } from './arena-hard';
import type { ArenaScore } from './evaluation';
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

export function judgedMetrics(records: readonly ToaEvalRecord[], o: { bootstrap: number; seed: number }): Record<string, number> {
  const out: Record<string, number> = {};
  const who = [...new Set(records.flatMap((r) => Object.keys(r.judged ?? {})))];
  for (const w of who) {
    const js = records.flatMap((r) => (r.judged?.[w] ? [r.judged[w]] : []));
    const rows: PreferenceRow[] = js.flatMap((j) =>
      j.alpaca && 'value' in j.alpaca
        ? [{ p: j.alpaca.value, delta: j.referenceChars - j.chars, ...(j.difficulty === undefined ? {} : { difficulty: j.difficulty }) }]
        : [],
    );
    const lc = lengthControlledWinRate(rows);
    if (lc) {
      out[`${w}/alpaca_win_rate`] = lc.winRate;
      out[`${w}/alpaca_lc_win_rate`] = lc.lcWinRate;
    }
    const scores: ArenaScore[] = js.flatMap((j) => (j.arena ?? []).flatMap((g) => ('value' in g ? [g.value] : [])));
    const arena = arenaWinRate(scores, { rounds: o.bootstrap, seed: hashSeed(o.seed, w, 'arena-bootstrap') });
    if (arena) {
      out[`${w}/arena_win_rate`] = arena.winRate;
      out[`${w}/arena_ci_low`] = arena.ciLow;
      out[`${w}/arena_ci_high`] = arena.ciHigh;
    }
    const chars = meanOf(js.map((j) => j.chars));
    if (chars !== undefined) out[`${w}/avg_chars`] = chars;
  }
  const kiwied = [...new Set(records.flatMap((r) => Object.keys(r.kiwi ?? {})))];
  for (const w of kiwied) {
    const mean = meanOf(records.flatMap((r) => (r.kiwi?.[w] && 'score' in r.kiwi[w] ? [r.kiwi[w].score] : [])));
    if (mean !== undefined) out[`${w}/kiwi`] = mean;
  }
  return out;
}
