// CoRal's training data (seed brief A.7). SFT: every generated turn of conversations whose agreement is correct,
// as (the speaker's view, the turn). DPO: from tree-sampled turns, pairs of candidates sharing one prefix —
// chosen reaches the correct answer, rejected does not.
import type { ChatMessage } from '../../llm/types';
import { viewOf, type CoralConversation, type CoralTurn } from './conversation';
import { hashSeed, seededRandom, shuffled } from './seeded-random';

export interface SftExample { taskId: string; messages: ChatMessage[]; completion: string }
export interface PreferencePair { taskId: string; turn: number; messages: ChatMessage[]; chosen: string; rejected: string }

export function buildSftExamples(records: CoralConversation[], opts: { maxPerTask: number }): SftExample[] {
  const perTask = new Map<string, number>();
  const out: SftExample[] = [];
  for (const r of records) {
    const gen = r.turns.slice(1);
    if (!r.agreed || !gen[gen.length - 1]?.correct) continue;
    for (let k = 1; k < r.turns.length; k++) {
      const n = perTask.get(r.taskId) ?? 0;
      if (n >= opts.maxPerTask) break;
      perTask.set(r.taskId, n + 1);
      out.push({ taskId: r.taskId, messages: viewOf(r.system, r.turns.slice(0, k), r.turns[k].role), completion: r.turns[k].content });
    }
  }
  return out;
}

export function buildPreferencePairs(
  records: CoralConversation[],
  opts: { maxPerTask: number; maxPairsPerTurn: number; seed: number },
): PreferencePair[] {
  const byTask = new Map<string, PreferencePair[]>();
  for (const r of records) {
    for (let k = 1; k < r.turns.length; k++) {
      const turn = r.turns[k];
      if (!turn.siblings?.length) continue;
      const candidates: CoralTurn[] = [turn, ...turn.siblings];
      const good = candidates.filter((c) => c.correct);
      const bad = candidates.filter((c) => !c.correct);
      if (!good.length || !bad.length) continue; // score gap > 0.5 needs one correct and one incorrect
      const messages = viewOf(r.system, r.turns.slice(0, k), turn.role);
      const all = good.flatMap((g) => bad.map((b) => ({ taskId: r.taskId, turn: k, messages, chosen: g.content, rejected: b.content })));
      const rand = seededRandom(hashSeed('pairs', opts.seed, r.taskId, r.sampleIndex, k));
      const list = byTask.get(r.taskId) ?? [];
      list.push(...shuffled(all, rand).slice(0, opts.maxPairsPerTurn));
      byTask.set(r.taskId, list);
    }
  }
  const out: PreferencePair[] = [];
  for (const [taskId, pairs] of byTask) out.push(...shuffled(pairs, seededRandom(hashSeed('task-pairs', opts.seed, taskId))).slice(0, opts.maxPerTask));
  return out;
}
