// A query no worker answered in time is told apart from a server outage, by the errors the Temporal client throws
// for it (a ServiceError "Failed to query Workflow" whose cause is the gRPC error), and waited for as the caller says.
import { describe, expect, it } from 'vitest';
import { isTransientServerError, withServerRetry } from '../../../cli/server-retry';
import { unansweredQueryReason, WorkerBusyError } from '../../../cli/worker-busy';

const grpc = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
const failedQuery = (cause: Error) => Object.assign(new Error('Failed to query Workflow'), { name: 'ServiceError', cause });

describe('an unanswered query', () => {
  it('is a deadline, a cancel at the deadline, a full query buffer, a failing workflow task or a queue no worker polls', () => {
    const timedOut = 'the status query timed out after 10 s';
    expect(unansweredQueryReason(failedQuery(grpc(4, 'DEADLINE_EXCEEDED: query timed out before a worker could process it')))).toBe(
      timedOut,
    );
    expect(unansweredQueryReason(failedQuery(grpc(4, 'DEADLINE_EXCEEDED: Deadline exceeded after 10.001s')))).toBe(timedOut);
    expect(unansweredQueryReason(failedQuery(grpc(1, 'CANCELLED: Call cancelled')))).toBe(timedOut);
    expect(unansweredQueryReason(failedQuery(grpc(8, 'RESOURCE_EXHAUSTED: consistent query buffer is full')))).toBe(
      "too many queries wait for the run's workflow task",
    );
    expect(
      unansweredQueryReason(failedQuery(grpc(9, 'FAILED_PRECONDITION: Unable to query workflow due to Workflow Task in failed state.'))),
    ).toBe("the run's workflow task keeps failing or timing out on its worker");
    expect(
      unansweredQueryReason(failedQuery(grpc(9, 'FAILED_PRECONDITION: no poller seen for task queue recently, worker may be down'))),
    ).toBe("no worker has polled the run's workflow queue lately");
  });

  it('is not an unreachable server, a missing run or a query the workflow rejected', () => {
    expect(unansweredQueryReason(failedQuery(grpc(14, 'UNAVAILABLE: No connection established')))).toBeUndefined();
    expect(unansweredQueryReason(failedQuery(grpc(5, 'NOT_FOUND: workflow not found')))).toBeUndefined();
    expect(unansweredQueryReason(failedQuery(grpc(3, 'INVALID_ARGUMENT: unknown queryType')))).toBeUndefined();
  });

  it('is waited for through the caller’s hook, never taken for a server outage', async () => {
    const busy = new WorkerBusyError('the status query timed out after 10 s');
    expect(isTransientServerError(busy)).toBe(false);
    const said: string[] = [];
    const o = { what: 'reading run r', giveUpAfterMs: 0, say: (l: string) => said.push(l), initialDelayMs: 1 };
    // Without a hook, thrown at once.
    await expect(withServerRetry(() => Promise.reject(busy), o)).rejects.toBe(busy);
    // With one: each unanswered try is the hook's, with when that began; a value ends the wait, undefined tries again.
    let tries = 0;
    const since: number[] = [];
    const v = await withServerRetry(
      async () => {
        tries++;
        throw busy;
      },
      {
        ...o,
        workerBusy: async (_err, s) => {
          since.push(s);
          return since.length === 3 ? 'known' : undefined;
        },
      },
    );
    expect(v).toBe('known');
    expect(tries).toBe(3);
    expect(new Set(since).size).toBe(1);
    expect(said).toEqual([]);
    // The worker answers again: the try's value.
    let n = 0;
    expect(
      await withServerRetry(async () => (++n < 3 ? Promise.reject(busy) : 'status'), { ...o, workerBusy: async () => undefined }),
    ).toBe('status');
  });
});
