// Training data from built conversations (the seed's collabllm/datasets + scripts/train, paper §3.3):
//   SFT  — per conversation, the best candidate of its last state that has one, with the conversation before it
//          (optionally only when a metric of that candidate reaches a floor, e.g. accuracy ≥ 0.5);
//   DPO  — per state, chosen = the highest-reward candidate, rejected = the lowest, dropped when the rewards differ
//          by less than `minGap` (the seed's minimum_gap, 0.02); unscored candidates take no part;
//   flat — one row per scored candidate in the shape of the published `collabllm/collabllm-multiturn-*` datasets
//          (prompt, completion, conv_id, turn_id, score, single_turn_*, sessions, rewards), to compare with or mix
//          with the released data.
import type { PreferencePair, SftExample } from '../../data/examples';
import type { CollabMetric } from './config';
import type { CollabBuildRecord, Candidate } from './conversation';
import type { CollabTask } from './tasks';
import { byTaskAndSample } from '../shared/task-order';

// Each row comes from one conversation (data-builder.ts writes them as conversations stream past); the functions over
// many take them in (task, sample) order, so the result does not depend on the order shards finished.
const scored = (c: Candidate): c is Candidate & { score: number } => c.score !== undefined;

export interface CollabDataOptions {
  minGap: number;
  sftFloor?: { metric: CollabMetric; min: number };
}

/** The conversation's SFT example, if a state of it has a best candidate (above the floor, when one is set). */
export function collabSftExample(r: CollabBuildRecord, o: CollabDataOptions): SftExample | undefined {
  const last = [...r.turns].reverse().find((t) => t.best !== undefined);
  if (!last) return undefined;
  const best = last.candidates[last.best!];
  if (o.sftFloor && !((best.perMetric[o.sftFloor.metric] ?? Number.NEGATIVE_INFINITY) >= o.sftFloor.min)) return undefined;
  return {
    taskId: r.taskId,
    sampleIndex: r.sampleIndex,
    turn: last.prompt.length,
    messages: last.prompt,
    completion: best.completion,
  };
}

/** The conversation's preference pairs, one per state at most. */
export function collabRecordPairs(r: CollabBuildRecord, o: CollabDataOptions): PreferencePair[] {
  const out: PreferencePair[] = [];
  for (const t of r.turns) {
    const c = t.candidates.filter(scored);
    if (c.length < 2) continue;
    // First-seen wins ties, so the pair is the same however the candidates' scores tie.
    const chosen = c.reduce((a, x) => (x.score > a.score ? x : a));
    const rejected = c.reduce((a, x) => (x.score < a.score ? x : a));
    // A gap equal to minGap is kept, whatever the floating-point rounding of the subtraction.
    if (chosen === rejected || chosen.score - rejected.score < o.minGap - 1e-12) continue;
    out.push({
      taskId: r.taskId,
      sampleIndex: r.sampleIndex,
      turn: t.prompt.length,
      messages: t.prompt,
      chosen: chosen.completion,
      rejected: rejected.completion,
    });
  }
  return out;
}

/** The conversation's rows of the published `collabllm-multiturn-*` shape, numbered `convId`. */
export function collabMultiturnRecordRows(r: CollabBuildRecord, convId: number, task: CollabTask | undefined): string[] {
  const rows: string[] = [];
  for (const t of r.turns)
    for (const c of t.candidates.filter(scored)) {
      const usable = c.futures.filter((f) => !f.failed && Object.values(f.metrics).every((m) => m && 'score' in m));
      rows.push(
        JSON.stringify({
          prompt: t.prompt,
          completion: c.completion,
          conv_id: convId,
          turn_id: t.prompt.length,
          score: c.score,
          single_turn_prompt: task?.prompt ?? null,
          // Code rows carry the package the published -bigcodebench rows do (tasks.ts reads it back).
          single_turn_completion: task?.code
            ? JSON.stringify({
                dataset: 'collab-loop',
                task_id: r.taskId,
                test: task.code.test,
                entry_point: task.code.entryPoint,
                answer: task.answer,
              })
            : (task?.answer ?? null),
          single_turn_metadata: {
            task_id: r.taskId,
            sample: r.sampleIndex,
            ...(task?.code ? { entry_point: task.code.entryPoint } : {}),
          },
          sessions: usable.map((f) => f.messages),
          rewards: Object.fromEntries(
            Object.keys(c.perMetric).map((m) => [m, usable.map((f) => (f.metrics[m as CollabMetric] as { score: number }).score)]),
          ),
        }),
      );
    }
  return rows;
}

const inOrder = (records: readonly CollabBuildRecord[]) => [...records].sort(byTaskAndSample);

export const collabSftExamples = (records: readonly CollabBuildRecord[], o: CollabDataOptions): SftExample[] =>
  inOrder(records).flatMap((r) => collabSftExample(r, o) ?? []);

export const collabPreferencePairs = (records: readonly CollabBuildRecord[], o: CollabDataOptions): PreferencePair[] =>
  inOrder(records).flatMap((r) => collabRecordPairs(r, o));

/** Rows of the published `collabllm-multiturn-*` shape; `conv_id` numbers the conversations in (task, sample) order. */
export const collabMultiturnRows = (records: readonly CollabBuildRecord[], taskOf: (id: string) => CollabTask | undefined): string[] =>
  inOrder(records).flatMap((r, convId) => collabMultiturnRecordRows(r, convId, taskOf(r.taskId)));
