// The running stage's progress as `status`, `watch`, `start --wait`, `demo` and `status --json` show it: the
// iteration's finished work (its status query, from its activities' results: workflows/live-progress.ts) plus each
// running piece's latest measurement, which rides in its activity's heartbeat details (activities/progress/report.ts)
// and comes back with the iteration's description. The workflow never sees the measurements, so they cost its
// history nothing. The query is read before the description and again after it (cli/loop-workflow.ts
// getRunStatus), so that a piece finishing between them is neither missed nor counted twice.
import { finishedOf, stageProgress, type StageProgress, type WorkProgress, workInDetails } from '../contracts/progress';
import type { IterationStatus } from '../contracts/run';

/** The measurements in the pending activities' heartbeat details (decoded). */
export const runningWork = (details: readonly unknown[]): WorkProgress[] =>
  details.flatMap((d) => {
    const w = workInDetails(d);
    return w ? [w] : [];
  });

/** The stage's progress: its finished work plus the running pieces of that stage. Without any (pieces run by an
 *  older build, whose measurements went to the workflow as updates), the query's progress as it is. */
export function withRunningWork(it: IterationStatus, running: readonly WorkProgress[], now = Date.now()): StageProgress | undefined {
  const pieces = running.filter((w) => w.stage === it.stage);
  if (it.attention || it.stage === 'done' || pieces.length === 0) return it.progress;
  const finished = it.progress;
  // A worker's clock may be ahead of this one: the newest measurement is at least as recent as now.
  const at = Math.max(now, ...pieces.map((w) => w.at));
  return stageProgress(it.stage, pieces[0].unit, finished?.total, finished ? finishedOf(finished) : { done: 0 }, pieces, at);
}
