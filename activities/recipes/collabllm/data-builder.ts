// CollabLLM's training rows as built conversations stream past (data.ts makes each conversation's rows): its SFT
// example, its preference pairs, and its rows of the published multiturn shape, which are also the online-RL prompts
// (the converter of onlineRl.rollout, verl-rollout.ts, turns them into verl's). Every row comes from one
// conversation, so nothing is held between records but the counts.
import type { CollabBuildRecord } from './conversation';
import { type CollabDataOptions, collabMultiturnRecordRows, collabRecordPairs, collabSftExample } from './data';
import type { CollabTask } from './tasks';
import { formatPreferences, formatSft, type TrainingDataFormat } from '../../data/formats';
import type { DataBuilder, RowSink, TrainingData } from '../types';

/** The role CollabLLM trains. */
export const ASSISTANT = 'assistant';

/** What `buildData` returned before any row (collected-data.ts fills it). */
export const emptyCollabData = (): TrainingData => ({
  byRole: { [ASSISTANT]: { sft: [], dpo: [], rl: [] } },
  counts: {},
  extra: { multiturn: [] },
});

export interface CollabBuildOptions extends CollabDataOptions {
  format: TrainingDataFormat;
  taskOf: (id: string) => CollabTask | undefined;
  /** A conversation's `conv_id` in the multiturn rows: its place in (task id, sample) order (data.ts). */
  convId: (r: CollabBuildRecord) => number;
}

export function collabDataBuilder(o: CollabBuildOptions, sink: RowSink): DataBuilder<CollabBuildRecord> {
  const counts = {
    sft_examples: 0,
    preference_pairs: 0,
    multiturn_rows: 0,
    built_conversations: 0,
    missing_scores: 0,
    simulator_failures: 0,
  };
  return {
    add(r) {
      const example = collabSftExample(r, o);
      const pairs = collabRecordPairs(r, o);
      const multiturn = collabMultiturnRecordRows(r, o.convId(r), o.taskOf(r.taskId));
      for (const line of formatSft(example ? [example] : [], o.format)) sink.row(ASSISTANT, 'sft', line);
      for (const line of formatPreferences(pairs, o.format)) sink.row(ASSISTANT, 'dpo', line);
      for (const line of multiturn) {
        sink.row(ASSISTANT, 'rl', line);
        sink.extra('multiturn', line);
      }
      counts.sft_examples += example ? 1 : 0;
      counts.preference_pairs += pairs.length;
      counts.multiturn_rows += multiturn.length;
      counts.built_conversations++;
      counts.missing_scores += r.missingScores;
      counts.simulator_failures += r.simulatorFailures;
    },
    finish: () => ({ ...counts }),
  };
}

/** `conv_id`s from the plan, for records streaming in plan order: the plan holds every sample of every task
 *  (run-shard.ts), so a conversation's place in (task id, sample) order is the samples of the tasks whose ids sort
 *  before its task's, plus its sample. */
export function planConvIds(tasks: readonly CollabTask[], samplesPerTask: number): (r: CollabBuildRecord) => number {
  // The default sort and byTaskAndSample both compare ids by UTF-16 code units.
  const rank = new Map([...tasks.map((t) => t.id)].sort().map((id, i) => [id, i]));
  return (r) => {
    const i = rank.get(r.taskId);
    if (i === undefined || r.sampleIndex >= samplesPerTask)
      throw new Error(
        `collabllm data: conversation ${r.taskId}#${r.sampleIndex} is not in the plan (${samplesPerTask} samples of each task)`,
      );
    return i * samplesPerTask + r.sampleIndex;
  };
}
