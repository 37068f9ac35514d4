// A stage's progress as the workflows know it: what its finished activities did, from their results. The running
// pieces' progress is in their activities' heartbeat details (activities/progress/report.ts), which the workflow
// never sees: `status`, `watch` and `start --wait` add it to this (cli/running-work.ts), and the Temporal UI shows it
// under Pending Activities. The status query and the Current Details are therefore the finished work only.
import { type FinishedWork, type ProgressUnit, type StageProgress, stageProgress, sumWork } from '../contracts/progress';
import { shardKey, type IterationProgress, type ShardResult } from '../contracts/run';
import type { IterationState } from './iteration-state';

/** A finished shard's work: its own report, or (shards run before live progress) its counts. */
const workOf = (r: ShardResult): FinishedWork =>
  r.work ?? { done: r.conversations, calls: { ok: r.calls - r.cachedCalls, cached: r.cachedCalls, failed: 0, retried: 0 } };

/** What generate has finished, and of how much (absent before the plan). */
export function generateWork(s: IterationState): IterationProgress['work'] {
  const shards = s.plan?.shards;
  if (!shards) return undefined;
  const results = shards.flatMap((x) => s.shardResults.get(shardKey(x)) ?? []);
  const unit: ProgressUnit = results.find((r) => r.unit)?.unit ?? 'conversations';
  const total = shards.every((x) => x.conversations !== undefined) ? shards.reduce((a, x) => a + (x.conversations ?? 0), 0) : undefined;
  return { unit, ...(total !== undefined ? { total } : {}), finished: sumWork(results.map(workOf)) };
}

/** The stage's finished work (absent between stages, while it needs attention, and in stages that count none). */
export function iterationStageProgress(s: IterationState): StageProgress | undefined {
  const { stage, attention } = s.status;
  if (attention || stage !== 'generate') return undefined;
  return finishedProgress(stage, generateWork(s));
}

/** The loop's view: what its iteration last said was finished. */
export function loopStageProgress(current: IterationProgress | undefined): StageProgress | undefined {
  if (!current || current.attention || current.stage === 'done') return undefined;
  return finishedProgress(current.stage, current.work);
}

function finishedProgress(stage: StageProgress['stage'], work: IterationProgress['work']): StageProgress | undefined {
  return work && stageProgress(stage, work.unit, work.total, work.finished, [], Date.now());
}
