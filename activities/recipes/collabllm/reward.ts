// The multiturn-aware reward (MR) of one candidate turn: the conversation-level reward averaged over the simulated
// futures that follow it (CollabLLM paper, arXiv 2502.00640; the seed's collabllm/reward.py).
//
// Two aggregations, because they give different numbers:
//  - 'weighted-mean' (the default): per future Σ_m w_m·score_m, then the mean over futures. This is the method as
//    published and as the seed computes it; it is linear in every metric, so a metric's weight means the same thing
//    whatever the other metrics do.
//  - 'clamped' (verl's CollabLLMRewardManager): per metric the mean over futures times its weight, clamped to
//    [−1, 1], then summed. The clamp bounds each metric's pull (e.g. a long answer's token cost) at the price of
//    linearity; kept for parity with runs trained by the verl recipe.
// A future whose simulation failed or whose metrics are not all available is left out, never scored as 0 (verl
// scores failed metrics 0); with no usable future there is no reward at all.
import type { MetricOutcome } from './metrics';
import { meanOf } from '../shared/mean';

export type Aggregation = 'weighted-mean' | 'clamped';
export const DEFAULT_AGGREGATION: Aggregation = 'weighted-mean';

/** One simulated future: its metric outcomes, or why the simulation itself failed. */
export type FutureOutcome = { metrics: Record<string, MetricOutcome> } | { failed: string };

export interface MultiturnReward {
  /** Undefined when no future is usable. */
  score?: number;
  usedFutures: number;
  /** Futures left out: failed simulations and futures with a missing metric. */
  missingFutures: number;
  /** Unweighted mean of each weighted metric over the used futures (empty when none is used). */
  perMetric: Record<string, number>;
}

/**
 * @param weights metric name → weight; negative weights are costs (token_amount). Exactly these metrics are
 *   scored; a future must report every one of them (as a score or as missing).
 */
export function multiturnReward(
  futures: readonly FutureOutcome[],
  weights: Record<string, number>,
  aggregation: Aggregation = DEFAULT_AGGREGATION,
): MultiturnReward {
  const names = Object.keys(weights);
  if (names.length === 0) throw new Error('multiturn reward: no metric weights');
  for (const m of names) if (!Number.isFinite(weights[m])) throw new Error(`multiturn reward: weight of "${m}" is not a finite number`);

  const used: Array<Record<string, number>> = [];
  for (const f of futures) {
    if ('failed' in f) continue;
    const scores: Record<string, number> = {};
    let complete = true;
    for (const m of names) {
      const outcome = f.metrics[m];
      // A metric that was never computed is a wiring bug, not a judge failure: say so instead of dropping futures.
      if (!outcome) throw new Error(`multiturn reward: a future has no outcome for metric "${m}"`);
      if ('missing' in outcome) {
        complete = false;
        break;
      }
      if (!Number.isFinite(outcome.score)) throw new Error(`multiturn reward: metric "${m}" scored ${outcome.score}`);
      scores[m] = outcome.score;
    }
    if (complete) used.push(scores);
  }

  const result = { usedFutures: used.length, missingFutures: futures.length - used.length };
  if (used.length === 0) return { ...result, perMetric: {} };
  const mean = (xs: number[]) => meanOf(xs) as number; // `used` is not empty here
  const perMetric = Object.fromEntries(names.map((m) => [m, mean(used.map((s) => s[m]))]));
  const score =
    aggregation === 'weighted-mean'
      ? mean(used.map((s) => names.reduce((sum, m) => sum + weights[m] * s[m], 0)))
      : names.reduce((sum, m) => sum + Math.min(1, Math.max(-1, weights[m] * perMetric[m])), 0);
  return { ...result, score, perMetric };
}
