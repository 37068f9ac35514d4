// Arena-Hard's win rate against the reference with its bootstrap confidence interval (Li et al., "From Crowdsourced
// Data to High-Quality Benchmarks: Arena-Hard and BenchBuilder Pipeline", arXiv 2406.11939; arena-hard-auto v0.1
// show_result.py), from each prompt's two games (reference as A, then as B):
//   battles — a game's verdict becomes battles of the text against the reference: a clear verdict (A>>B / B>>A) counts
//             3 times (arena-hard-auto's WEIGHT = 3), a plain one once, a tie once as a tie;
//   score   — a Bradley–Terry fit over the battles. With one model against one baseline its MLE win probability is
//             (wins + ties / 2) / battles (arena-hard-auto counts a tie as half a win each way), so that is computed
//             directly: 100 · (W + T/2) / (W + T + L);
//   interval — `rounds` bootstrap resamples of the battles with replacement (arena-hard-auto: 100), the 2.5 % and 97.5 %
//             quantiles of the resampled win rates; seeded, so the same records give the same interval.
import { seededRandom } from '../../seeded-random';
import type { ArenaScore } from './evaluation';

export interface ArenaResult {
  winRate: number;
  ciLow: number;
  ciHigh: number;
  battles: number;
}

/** The battles of one game from the text's side: 1 win, 0.5 tie, 0 loss, each repeated by its weight. */
export function battlesOf(score: ArenaScore): number[] {
  if (score === 0) return [0.5];
  const outcome = score > 0 ? 1 : 0;
  return Array<number>(Math.abs(score) === 2 ? 3 : 1).fill(outcome);
}

const rate = (xs: readonly number[]) => (100 * xs.reduce((a, b) => a + b, 0)) / xs.length;

/** Linear-interpolated quantile of sorted values (numpy's / pandas' default). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export function arenaWinRate(scores: readonly ArenaScore[], o: { rounds: number; seed: number }): ArenaResult | undefined {
  const battles = scores.flatMap(battlesOf);
  if (!battles.length) return undefined;
  const rand = seededRandom(o.seed);
  const resampled = Array.from({ length: o.rounds }, () => rate(battles.map(() => battles[Math.floor(rand() * battles.length)]))).sort(
    (a, b) => a - b,
  );
  return { winRate: rate(battles), ciLow: quantile(resampled, 0.025), ciHigh: quantile(resampled, 0.975), battles: battles.length };
}
