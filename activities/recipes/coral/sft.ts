// SFT examples from CoRal conversations: each generated turn becomes (the speaker's view of the conversation
// before it, the turn's text). Two selections (which one a run uses: data-options.ts):
//   'correct_agreement' (the paper's intent): turns of correctly agreed conversations, at most `maxPerTask` TURNS
//     per task.
//   'all_turns' (what the seed runs): every turn of the first `maxPerTask` CONVERSATIONS per question, no correctness
//     filter — collaborative-reasoner finetuning/data_creation/ts_correctness_filtering.py, the branch taken when
//     neither `generate_preference_pairs` nor `filter_by_turns` is set, as finetuning/iterative_training.py calls it
//     (success_conv_only=False, max_instance_per_example=10, no hard_threshold or turn limit).
// Records are taken in (task, sample) order so the result does not depend on the order shards finished.
import type { SftExample } from '../../data/examples';
import { recordView } from './agent-view';
import type { CoralConversation } from './conversation';
import { byTaskAndSample } from '../task-groups';

export type { SftExample };

export const SFT_SELECTIONS = ['correct_agreement', 'all_turns'] as const;
export type SftSelection = (typeof SFT_SELECTIONS)[number];

export interface SftOptions {
  /** Per task at most: turns ('correct_agreement') or conversations ('all_turns', the seed's unit). Default 10, the
   *  seed's `max_instance_per_example`. */
  maxPerTask?: number;
  selection?: SftSelection;
}

export { byTaskAndSample };

export function buildSftExamples(records: readonly CoralConversation[], opts: SftOptions = {}): SftExample[] {
  const maxPerTask = opts.maxPerTask ?? 10;
  const selection = opts.selection ?? 'correct_agreement';
  const turnsTaken = new Map<string, number>();
  const convsTaken = new Map<string, number>();
  const out: SftExample[] = [];
  for (const r of [...records].sort(byTaskAndSample)) {
    if (selection === 'all_turns') {
      const taken = convsTaken.get(r.taskId) ?? 0;
      if (taken >= maxPerTask) continue;
      convsTaken.set(r.taskId, taken + 1);
    } else if (!(r.agreed && r.turns[r.turns.length - 1]?.correct)) continue;
    for (let k = 1; k < r.turns.length; k++) {
      if (selection === 'correct_agreement') {
        const taken = turnsTaken.get(r.taskId) ?? 0;
        if (taken >= maxPerTask) break;
        turnsTaken.set(r.taskId, taken + 1);
      }
      out.push({
        taskId: r.taskId,
        sampleIndex: r.sampleIndex,
        turn: k,
        messages: recordView(r, k),
        completion: r.turns[k].content,
      });
    }
  }
  return out;
}
