// A query no worker answered in time, told apart from a server outage (cli/server-retry.ts). A query is answered by
// the run's workflow worker, not by the server: a worker busy with a huge iteration (or stopped) leaves it waiting
// until its deadline, and the server says so as gRPC DEADLINE_EXCEEDED "query timed out before a worker could process
// it", which the Temporal client wraps in a ServiceError "Failed to query Workflow". The run goes on meanwhile: a
// command that reads it shows what it last had, or what the server knows without the worker, and tries again.
import type { Client } from '@temporalio/client';

/** How long the CLI waits for a worker to answer a query (COLLAB_LOOP_QUERY_SECONDS overrides): without a deadline
 *  of its own a query waits for the server's, and a command showing a run would sit silent meanwhile. */
export function queryDeadlineMs(): number {
  const env = Number(process.env.COLLAB_LOOP_QUERY_SECONDS);
  return env > 0 ? env * 1000 : 10_000;
}

/** No worker answered a query of the run in time; `reason` says how ("the status query timed out after 10 s"). */
export class WorkerBusyError extends Error {
  override name = 'WorkerBusyError';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`worker busy: ${reason}; the run goes on in the server, try again later`, options);
  }
}

/** gRPC DEADLINE_EXCEEDED, CANCELLED: a query past its deadline comes back as either — CANCELLED ("Call cancelled")
 *  when the server resets the stream before the client's own timer fires. The CLI cancels no query itself. */
const TIMED_OUT = new Set([1, 4]);

/** Why a query went unanswered, or undefined when its error is something else. Walks the cause chain (the client's
 *  ServiceError ← the gRPC error). A deadline is the worker's: the query reached the server, which waits for a
 *  worker to answer it. A full query buffer and a failing workflow task are the same worker falling behind: the
 *  server holds queries until a workflow task completes, and after three failed or timed-out tasks refuses them.
 *  A queue no worker polled lately (FAILED_PRECONDITION "no poller seen …") is a worker stopped or too stuck to
 *  poll. */
export function unansweredQueryReason(err: unknown): string | undefined {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 8;
    e = e.cause as typeof e, depth++
  ) {
    const message = typeof e.message === 'string' ? e.message : '';
    if (TIMED_OUT.has(e.code as number) || /query timed out before a worker could process it/i.test(message))
      return `the status query timed out after ${Math.round(queryDeadlineMs() / 1000)} s`;
    if (/consistent query buffer is full/i.test(message)) return "too many queries wait for the run's workflow task";
    if (/no poller seen for task queue recently/i.test(message)) return "no worker has polled the run's workflow queue lately";
    if (/Workflow Task in failed state/i.test(message)) return "the run's workflow task keeps failing or timing out on its worker";
  }
  return undefined;
}

/** Runs a query under the CLI's deadline; one no worker answered in time becomes a WorkerBusyError. */
export async function queryInTime<T>(client: Client, query: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + queryDeadlineMs(), query);
  } catch (err) {
    const reason = unansweredQueryReason(err);
    throw reason ? new WorkerBusyError(reason, { cause: err }) : err;
  }
}

const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

/** The line a command prints while the worker is busy: with the time of the state it still shows, or saying that
 *  what it shows is the server's view without the worker. */
export const busyLine = (reason: string, shownAt?: number) =>
  shownAt === undefined
    ? `worker busy: ${reason}; showing what the server knows without it`
    : `worker busy: ${reason}; showing the state of ${clock(shownAt)}, retrying`;
