// Sends a running activity's progress to its iteration and loop workflows every few seconds, so their status query
// and Temporal UI Current Details are never more than a few seconds old. Each report is an update the workflow
// rejects after noting it (workflows/live-progress.ts): a rejected update leaves no event in the history, so a
// train stage reporting for two days costs its history nothing (a signal would add an event per report), nor its
// run's quota of 2000 updates (`history.maxTotalUpdates` counts accepted ones only: tests/integration/ui/live-progress.test.ts).
import { Context } from '@temporalio/activity';
import type { WorkProgress } from '../../contracts/progress';
import { loopIdOfIteration, progressUpdate } from '../../contracts/messages';

/** How often progress is sent: readers see it at most this old, plus the send. */
export const PROGRESS_REPORT_MS = 4_000;

export interface ProgressReport {
  /** Measures and sends now (a piece finishing its work), skipped while a send is in flight. */
  now(): void;
  stop(): void;
}

/** Reports `measure()` every PROGRESS_REPORT_MS while the activity runs (nothing outside a worker's activity). */
export function reportProgress(measure: () => WorkProgress): ProgressReport {
  let ctx: Context;
  try {
    ctx = Context.current();
    void ctx.client; // absent outside a worker (a test calling the activity as a function)
  } catch {
    return { now() {}, stop() {} };
  }
  const workflowId = ctx.info.workflowExecution?.workflowId;
  if (!workflowId) return { now() {}, stop() {} };
  const targets = [workflowId, loopIdOfIteration(workflowId)].filter((id): id is string => !!id);
  let sending = false;
  let stopped = false;
  const send = () => {
    if (sending || stopped) return;
    sending = true;
    const p = measure();
    Promise.allSettled(targets.map((id) => ctx.client.workflow.getHandle(id).executeUpdate(progressUpdate, { args: [p] }))).finally(() => {
      sending = false;
    });
  };
  send();
  const timer = setInterval(send, PROGRESS_REPORT_MS);
  return {
    now: send,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
