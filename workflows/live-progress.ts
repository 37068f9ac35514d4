// Live progress in the workflows: each running activity reports its work every few seconds
// (activities/progress/report.ts); the iteration and the loop note the reports of the stage under way and sum them
// with the stage's finished work (contracts/progress.ts) for their status query and Temporal UI Current Details.
import { setHandler } from '@temporalio/workflow';
import { progressUpdate } from '../contracts/messages';
import { type FinishedWork, type ProgressUnit, type StageProgress, stageProgress, sumWork, type WorkProgress } from '../contracts/progress';
import { shardKey, type IterationProgress, type ShardResult } from '../contracts/run';
import type { IterationState } from './iteration-state';

/** Registers the progress update. A report `wanted` is noted and `onNote` runs (it refreshes the Current Details);
 *  then every report is rejected, because a rejected update is not written to the history (Temporal's update
 *  validators: https://docs.temporal.io/handling-messages#update-validators): reporting every few seconds for days
 *  costs the history nothing. The notes feed queries and details only — no code that issues commands reads them —
 *  so a replay, which does not see them, issues the same commands; the next report (seconds later) restores them. */
export function noteProgressReports(live: Map<string, WorkProgress>, wanted: (p: WorkProgress) => boolean, onNote: () => void): void {
  setHandler(progressUpdate, () => undefined, {
    validator: (p) => {
      if (wanted(p)) {
        live.set(p.key, p);
        onNote();
      }
      throw new Error('progress noted');
    },
  });
}

/** A finished shard's work: its own report, or (shards run before live progress) its counts. */
const workOf = (r: ShardResult): FinishedWork =>
  r.work ?? { done: r.conversations, calls: { ok: r.calls - r.cachedCalls, cached: r.cachedCalls, failed: 0, retried: 0 } };

/** What generate has finished, and of how much (absent before the plan). */
export function generateWork(s: IterationState): IterationProgress['work'] {
  const shards = s.plan?.shards;
  if (!shards) return undefined;
  const unit: ProgressUnit = [...s.live.values()].find((p) => p.stage === 'generate')?.unit ?? 'conversations';
  const total = shards.every((x) => x.conversations !== undefined) ? shards.reduce((a, x) => a + (x.conversations ?? 0), 0) : undefined;
  const finished = sumWork(shards.flatMap((x) => s.shardResults.get(shardKey(x)) ?? []).map(workOf));
  return { unit, ...(total !== undefined ? { total } : {}), finished };
}

/** A report of the stage under way from a piece not finished: what the iteration notes and counts. */
export const stillRunning = (s: IterationState) => (p: WorkProgress) =>
  p.stage === s.status.stage &&
  !(p.stage === 'generate' && s.shardResults.has(p.key)) &&
  !(p.stage === 'train' && (p.role ? s.trainedRoles.has(p.role) : !!s.trained));

/** The stage's progress (absent between stages, while it needs attention, and in stages that report none). */
export function iterationStageProgress(s: IterationState): StageProgress | undefined {
  const { stage, attention } = s.status;
  if (attention || stage === 'done') return undefined;
  return combine(stage, stage === 'generate' ? generateWork(s) : undefined, [...s.live.values()].filter(stillRunning(s)));
}

/** The loop's view: what its iteration last said was finished, plus the reports of pieces it has not said finished. */
export function loopStageProgress(
  current: IterationProgress | undefined,
  live: Map<string, WorkProgress>,
  finishedKeys: ReadonlySet<string>,
): StageProgress | undefined {
  if (!current || current.attention || current.stage === 'done') return undefined;
  const stage = current.stage;
  return combine(
    stage,
    current.work,
    [...live.values()].filter((p) => p.stage === stage && !finishedKeys.has(p.key)),
  );
}

function combine(stage: WorkProgress['stage'], work: IterationProgress['work'], pieces: WorkProgress[]): StageProgress | undefined {
  if (!work && pieces.length === 0) return undefined;
  // Workflow time stands still between activations: the newest report is at least as recent.
  const now = Math.max(Date.now(), ...pieces.map((p) => p.at));
  return stageProgress(stage, work?.unit ?? pieces[0].unit, work?.total, work?.finished ?? { done: 0 }, pieces, now);
}
