// A running piece's progress rides in its activity's heartbeat details (`work`, beside what the details carry for a
// later attempt: cursors, checkpoint paths). The server keeps each pending activity's last details and returns them
// with the workflow's description, where `status`, `watch` and the Temporal UI's Pending Activities read them
// (cli/running-work.ts); the workflow never sees them, so measuring every few seconds for days costs its history
// nothing. Builds before this sent each measurement as a `reportProgress` update, which the workflows no longer
// handle: the SDK rejects an update without a handler, and a rejected update leaves no event in the history.
import type { WorkProgress } from '../../contracts/progress';

/** How often a piece is measured: readers see it at most this old, plus a heartbeat's interval. */
export const PROGRESS_REPORT_MS = 4_000;

/** Measures now and every PROGRESS_REPORT_MS, handing each measurement to `put` (which puts it in the details the
 *  activity's heartbeats carry), until stop(). */
export function reportProgress(measure: () => WorkProgress, put: (work: WorkProgress) => void): { stop(): void } {
  const take = () => put(measure());
  take();
  const timer = setInterval(take, PROGRESS_REPORT_MS);
  return { stop: () => clearInterval(timer) };
}
