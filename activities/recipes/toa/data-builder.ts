// TOA's rows as the training searches stream past (RecipeRuntime.dataBuilder): a prompt's SFT example and preference
// pair depend on its own pool of responses only (data.ts), so each record's rows are written as it arrives and the
// build holds nothing but counts.
import { formatPreferences, formatSft, type TrainingDataFormat } from '../../data/formats';
import type { Prompts } from '../prompt-texts';
import type { DataBuilder, RowSink } from '../types';
import { STUDENT_ROLE } from './config';
import { toaExamples } from './data';
import type { ToaBuildRecord } from './records';
import type { ToaTask } from './tasks';

export function toaDataBuilder(
  taskOf: (id: string) => ToaTask | undefined,
  o: { dpoRank: number; prompts: Prompts },
  format: TrainingDataFormat,
  sink: RowSink,
): DataBuilder<ToaBuildRecord> {
  const counts = { sft_examples: 0, preference_pairs: 0, searched_prompts: 0, failed_rewards: 0 };
  return {
    add(r) {
      counts.searched_prompts++;
      counts.failed_rewards += r.search.results.failed;
      const task = taskOf(r.taskId);
      const { sft, pair } = task ? toaExamples(r, task, o) : {};
      if (sft) {
        for (const line of formatSft([sft], format)) sink.row(STUDENT_ROLE, 'sft', line);
        counts.sft_examples++;
      }
      if (pair) {
        for (const line of formatPreferences([pair], format)) sink.row(STUDENT_ROLE, 'dpo', line);
        counts.preference_pairs++;
      }
    },
    finish: () => ({ ...counts }),
  };
}
