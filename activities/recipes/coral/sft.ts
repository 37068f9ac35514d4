// SFT examples from CoRal conversations (collaborative-reasoner finetuning/): each generated turn becomes (the speaker's view of the
// conversation before it, the turn's text).
//   'correct_agreement' (default, the paper's intent): every turn of conversations whose agreement is correct.
//   'all_turns': every turn of every conversation, no correctness filter — what the seed's iterative_training.py
//     actually runs (success_conv_only=False, filter_by_turns=False); kept to reproduce its numbers.
// Records are taken in (task, sample) order so the result does not depend on the order shards finished.
import type { SftExample } from '../../data/examples';
import { agentView } from './agent-view';
import type { CoralConversation } from './conversation';

export type { SftExample };

export interface SftOptions {
  /** Examples (turns) kept per task at most. Default 10, the seed's `max_instance_per_example`. */
  maxPerTask?: number;
  selection?: 'correct_agreement' | 'all_turns';
}

export const byTaskAndSample = (a: CoralConversation, b: CoralConversation) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.sampleIndex - b.sampleIndex;

export function buildSftExamples(records: readonly CoralConversation[], opts: SftOptions = {}): SftExample[] {
  const maxPerTask = opts.maxPerTask ?? 10;
  const selection = opts.selection ?? 'correct_agreement';
  const perTask = new Map<string, number>();
  const out: SftExample[] = [];
  for (const r of [...records].sort(byTaskAndSample)) {
    const last = r.turns[r.turns.length - 1];
    if (selection === 'correct_agreement' && !(r.agreed && last?.correct)) continue;
    for (let k = 1; k < r.turns.length && (perTask.get(r.taskId) ?? 0) < maxPerTask; k++) {
      perTask.set(r.taskId, (perTask.get(r.taskId) ?? 0) + 1);
      out.push({
        taskId: r.taskId,
        sampleIndex: r.sampleIndex,
        turn: k,
        messages: agentView(r.system, r.turns.slice(0, k), r.turns[k].role),
        completion: r.turns[k].content,
      });
    }
  }
  return out;
}
