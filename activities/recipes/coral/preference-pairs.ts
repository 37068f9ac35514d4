// DPO preference pairs from tree-sampled conversations (collaborative-reasoner finetuning/data_creation/). At every
// turn that has siblings, the candidates (the spine turn + siblings) share one prefix; pair-choice.ts says which
// (chosen, rejected) pairs the turn yields — today's seeded shuffle of (correct, incorrect) pairs, or the seed's
// reward-gap order. Per turn keep `maxPairsPerTurn`; per task `maxPerTask` after a shuffle seeded by the input (the
// seed shuffles each question's pairs with an unseeded `random.shuffle`; we never use Math.random), so reruns give
// the same data.
import type { PreferencePair } from '../../data/examples';
import { recordView } from './agent-view';
import type { Compat } from './compat';
import type { CoralConversation } from './conversation';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { rewardGapPairs, shuffledPairs, type Discourage, type PairChoice } from './pair-choice';
import { byTaskAndSample } from '../shared/task-order';

export type { PreferencePair };

export interface PreferencePairOptions {
  /** Default 1 (the seed's code; the paper used 2). */
  maxPairsPerTurn?: number;
  /** Default 10 (the seed's code; the paper used 20). */
  maxPerTask?: number;
  seed?: number;
  /** Default 'shuffled'. */
  choice?: PairChoice;
  /** The seed's `discourage_*` score shaping; only with choice 'reward_gap'. */
  discourage?: Discourage;
  /** Which length `discourage: 'length'` measures (pair-choice.ts). Default 'fixed'. */
  compat?: Compat;
}

export function buildPreferencePairs(records: readonly CoralConversation[], opts: PreferencePairOptions = {}): PreferencePair[] {
  const { maxPairsPerTurn = 1, maxPerTask = 10, seed = 0, choice = 'shuffled', discourage, compat = 'fixed' } = opts;
  if (discourage && choice !== 'reward_gap') throw new Error(`discourage '${discourage}' needs the 'reward_gap' pair choice`);
  const byTask = new Map<string, PreferencePair[]>();
  for (const r of [...records].sort(byTaskAndSample)) {
    for (let k = 1; k < r.turns.length; k++) {
      const turn = r.turns[k];
      if (!turn.siblings?.length) continue;
      const candidates = [turn, ...turn.siblings];
      const pairs =
        choice === 'reward_gap'
          ? rewardGapPairs(candidates, discourage, compat)
          : shuffledPairs(candidates, seededRandom(hashSeed('turn-pairs', seed, r.taskId, r.sampleIndex, k)));
      if (!pairs.length) continue;
      const messages = recordView(r, k);
      const kept = pairs.slice(0, maxPairsPerTurn).map((p) => ({
        taskId: r.taskId,
        sampleIndex: r.sampleIndex,
        turn: k,
        messages,
        chosen: p.chosen.content,
        rejected: p.rejected.content,
      }));
      byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), ...kept]);
    }
  }
  return [...byTask.entries()].flatMap(([taskId, pairs]) =>
    shuffled(pairs, seededRandom(hashSeed('task-pairs', seed, taskId))).slice(0, maxPerTask),
  );
}
