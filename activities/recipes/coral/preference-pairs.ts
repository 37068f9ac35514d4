// DPO preference pairs from tree-sampled conversations (collaborative-reasoner finetuning/). At every turn that has siblings, the
// candidates (chosen turn + siblings) share one prefix; a pair is (a candidate whose answer is correct, one whose
// answer is not) — the seed's "score gap > 0.5" with 0/1 scores. Per turn keep `maxPairsPerTurn`, per task
// `maxPerTask`, both after a shuffle seeded by the input (never Math.random), so reruns give the same data.
import type { PreferencePair } from '../../data/examples';
import { agentView } from './agent-view';
import type { CoralConversation, CoralTurn } from './conversation';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { byTaskAndSample } from './sft';

export type { PreferencePair };

export interface PreferencePairOptions {
  /** Default 1 (the seed's code; the paper used 2). */
  maxPairsPerTurn?: number;
  /** Default 10 (the seed's code; the paper used 20). */
  maxPerTask?: number;
  seed?: number;
}

export function buildPreferencePairs(records: readonly CoralConversation[], opts: PreferencePairOptions = {}): PreferencePair[] {
  const { maxPairsPerTurn = 1, maxPerTask = 10, seed = 0 } = opts;
  const byTask = new Map<string, PreferencePair[]>();
  for (const r of [...records].sort(byTaskAndSample)) {
    for (let k = 1; k < r.turns.length; k++) {
      const turn = r.turns[k];
      if (!turn.siblings?.length) continue;
      const candidates: CoralTurn[] = [turn, ...turn.siblings];
      const good = candidates.filter((c) => c.correct);
      const bad = candidates.filter((c) => !c.correct);
      if (!good.length || !bad.length) continue;
      const messages = agentView(r.system, r.turns.slice(0, k), turn.role);
      const all = good.flatMap((g) =>
        bad.map((b) => ({ taskId: r.taskId, sampleIndex: r.sampleIndex, turn: k, messages, chosen: g.content, rejected: b.content })),
      );
      const kept = shuffled(all, seededRandom(hashSeed('turn-pairs', seed, r.taskId, r.sampleIndex, k))).slice(0, maxPairsPerTurn);
      byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), ...kept]);
    }
  }
  return [...byTask.entries()].flatMap(([taskId, pairs]) =>
    shuffled(pairs, seededRandom(hashSeed('task-pairs', seed, taskId))).slice(0, maxPerTask),
  );
}
