// Which (chosen, rejected) pairs one tree-sampled turn yields. `candidates` is [the spine turn — the candidate the
// conversation continued with —, ...its siblings], the order the seed builds (`[conv[turn_i]] + siblings`).
//   'shuffled': every (correct, incorrect) pair, shuffled by a seeded PRNG; the caller keeps the first few.
//   'reward_gap': the seed's choice, collaborative-reasoner finetuning/data_creation/filtering_utils.py
//     get_preference_pairs_from_turn: score every candidate, form every pair i < j (the higher score is chosen),
//     keep pairs whose gap is > 0.5, stable-sorted by gap, largest first; the caller keeps the first `max_pairs`.
//     "Favouring the spine turn" is only that order: pairs (0, j) are enumerated first and the stable sort keeps
//     them ahead of sibling–sibling pairs with the same gap, so with 0/1 scores and max_pairs = 1 the pair is the
//     spine turn against its first sibling of opposite correctness.
// Scores are correctness (0/1), optionally shaped as the seed's `discourage_*` options do (only one applies; the
// seed's `elif` gives agreement precedence, the config rejects both):
//   agreement: an incorrect candidate that agreed with its partner scores -0.1 instead of 0, so pairs rejecting a
//     wrong agreement (gap 1.1) sort before pairs rejecting a wrong disagreement (gap 1.0).
//   length: minus 0.1 × the candidate's length normalised over the turn's candidates, (l - min) / (1 + max - min),
//     so among equal-correctness gaps the shorter chosen / longer rejected pairs sort first.
// Neither shaping can make a pair of equal correctness pass the 0.5 gap; they only reorder, and so change which
// pairs the cap keeps.
import type { Compat } from './compat';
import type { CoralTurn } from './conversation';
import { shuffled } from '../../seeded-random';

export const PAIR_CHOICES = ['shuffled', 'reward_gap'] as const;
export type PairChoice = (typeof PAIR_CHOICES)[number];
export type Discourage = 'agreement' | 'length';

export type CandidatePair = { chosen: CoralTurn; rejected: CoralTurn };

const correctness = (t: CoralTurn) => (t.correct ? 1 : 0);

// SEED-COMPAT: the seed reads `usage.completion_tokens` (1 when absent), but every candidate of one n-sample request
// carries that request's usage (utils/chat_utils.py), so all lengths are equal and `discourage_length` changes
// nothing. Per-candidate token counts are not returned by the API, so fixed measures the text itself.
const lengthOf = (t: CoralTurn, compat: Compat) => (compat === 'seed' ? (t.usage?.completionTokens ?? 1) : t.content.length);

export function candidateScores(candidates: readonly CoralTurn[], discourage: Discourage | undefined, compat: Compat): number[] {
  const c = candidates.map(correctness);
  if (discourage === 'agreement') return candidates.map((t, i) => c[i] - (t.agreement ? 1 : 0) * 0.1 * (1 - c[i]));
  if (discourage === 'length') {
    const lengths = candidates.map((t) => lengthOf(t, compat));
    const min = Math.min(...lengths);
    const max = Math.max(...lengths);
    return lengths.map((l, i) => c[i] - 0.1 * ((l - min) / (1 + max - min)));
  }
  return c;
}

export function rewardGapPairs(candidates: readonly CoralTurn[], discourage: Discourage | undefined, compat: Compat): CandidatePair[] {
  const s = candidateScores(candidates, discourage, compat);
  const all: Array<CandidatePair & { gap: number }> = [];
  for (let i = 0; i < candidates.length; i++)
    for (let j = i + 1; j < candidates.length; j++) {
      const gap = s[i] - s[j];
      all.push(
        gap >= 0 ? { chosen: candidates[i], rejected: candidates[j], gap } : { chosen: candidates[j], rejected: candidates[i], gap: -gap },
      );
    }
  // Array.prototype.sort is stable, like Python's sorted(reverse=True).
  return all
    .sort((a, b) => b.gap - a.gap)
    .filter((p) => p.gap > 0.5)
    .map(({ chosen, rejected }) => ({ chosen, rejected }));
}

export function shuffledPairs(candidates: readonly CoralTurn[], rand: () => number): CandidatePair[] {
  const good = candidates.filter((t) => t.correct);
  const bad = candidates.filter((t) => !t.correct);
  return shuffled(
    good.flatMap((chosen) => bad.map((rejected) => ({ chosen, rejected }))),
    rand,
  );
}
