// A run's status for the commands that show it, through what can keep it from them: a server outage
// (cli/server-retry.ts) and a worker too busy to answer the run's queries (cli/worker-busy.ts). `status`, `report`
// and `retry` wait one more query's deadline for the worker, then take what the server knows without it
// (cli/run-without-worker.ts); `watch`, `start --wait` and `demo` wait for as long as the run runs.
import type { Client } from '@temporalio/client';
import { getRunStatus, type RunStatus } from './loop-workflow';
import { statusWithoutWorker } from './run-without-worker';
import { serverRetryMs, withServerRetry, type RetryKind } from './server-retry';
import { queryDeadlineMs, type WorkerBusyError } from './worker-busy';

/** Told on each try no worker answered, with the status the server alone gives. */
export type OnWorkerBusy = (err: WorkerBusyError, known: RunStatus) => void;

/** getRunStatus through server outages and a busy worker; `onBusy` (default: one line on stderr) hears of the latter. */
export function getRunStatusRetrying(
  client: Client,
  runName: string,
  kind: RetryKind = 'status',
  onBusy?: OnWorkerBusy,
): Promise<RunStatus> {
  let told = false;
  const tell: OnWorkerBusy =
    onBusy ??
    ((err) => {
      if (!told)
        console.error(
          `collab-loop: worker busy: ${err.reason}; retrying${kind === 'status' ? ` for up to ${queryDeadlineMs() / 1000} s` : ''}`,
        );
      told = true;
    });
  return withServerRetry(() => getRunStatus(client, runName), {
    what: kind === 'wait' ? `waiting for run ${runName}` : `reading run ${runName}`,
    giveUpAfterMs: serverRetryMs(kind),
    workerBusy: async (err, since) => {
      const known = await statusWithoutWorker(client, runName, err.reason);
      // A completed run's status needs no worker (its result): the next try reads it. Any other closed run's is
      // what the server alone knows, and nothing is left to wait for.
      if (known.workflowStatus === 'COMPLETED') return undefined;
      if (known.workflowStatus !== 'RUNNING' || (kind === 'status' && Date.now() - since >= queryDeadlineMs())) return known;
      tell(err, known);
      return undefined;
    },
  });
}

/** Polls the run until it closes (or, with `returnOnAttention`, a stage needs attention), whatever its worker's load. */
export async function waitForRun(
  client: Client,
  runName: string,
  onTick: (s: RunStatus) => void,
  pollMs = 1000,
  opts: { returnOnAttention?: boolean; onBusy?: OnWorkerBusy } = {},
): Promise<RunStatus> {
  for (;;) {
    const s = await getRunStatusRetrying(client, runName, 'wait', opts.onBusy);
    onTick(s);
    if (s.workflowStatus !== 'RUNNING') return s;
    if (opts.returnOnAttention && s.iteration?.attention) return s;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
