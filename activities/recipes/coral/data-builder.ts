// CoRal's training rows as conversations stream past: the SFT examples (sft.ts) and preference pairs
// (preference-pairs.ts) of each task, built once all of that task's conversations are in. Both cap and shuffle per
// task, so a task's rows depend on its own conversations only, and one task at a time is all the build holds.
import type { CoralConversation } from './conversation';
import type { coralDataOptions } from './data-options';
import { buildPreferencePairs } from './preference-pairs';
import { buildSftExamples } from './sft';
import { byTaskAndSample } from '../shared/task-order';
import { formatPreferences, formatSft, type TrainingDataFormat } from '../../data/formats';
import { perTaskBuilder } from '../task-groups';
import type { DataBuilder, RowSink } from '../types';

export function coralDataBuilder(
  role: string,
  opts: ReturnType<typeof coralDataOptions>,
  format: TrainingDataFormat,
  sink: RowSink,
): DataBuilder<CoralConversation> {
  let sft = 0;
  let pairs = 0;
  return perTaskBuilder<CoralConversation>(
    'coral data',
    (task) => {
      task.sort(byTaskAndSample);
      const examples = buildSftExamples(task, opts.sft);
      const preferences = buildPreferencePairs(task, opts.pairs);
      for (const line of formatSft(examples, format)) sink.row(role, 'sft', line);
      for (const line of formatPreferences(preferences, format)) sink.row(role, 'dpo', line);
      sft += examples.length;
      pairs += preferences.length;
    },
    () => ({ sft_examples: sft, preference_pairs: pairs }),
  );
}
