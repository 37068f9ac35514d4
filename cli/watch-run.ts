// Follows a run with the live view until it closes: `watch NAME`, `start --wait`, `continue --wait`, `demo`.
import type { Client } from '@temporalio/client';
import { renderStatus } from './format';
import { liveDisplay, type LiveDisplay } from './live-display';
import { LiveView } from './live-view';
import type { RunStatus } from './loop-workflow';
import { waitForRun } from './status-retrying';

/** The run's status once it has closed (or, with `returnOnAttention`, once a stage needs attention); undefined when
 *  the user pressed Ctrl-C with `detachOnInterrupt`: watching stops, the run goes on. */
export async function watchRun(
  client: Client,
  runName: string,
  o: { pollMs?: number; returnOnAttention?: boolean; detachOnInterrupt?: boolean; display?: LiveDisplay } = {},
): Promise<RunStatus | undefined> {
  const view = new LiveView();
  const display = o.display ?? liveDisplay();
  let onInterrupt: (() => void) | undefined;
  const interrupted = new Promise<undefined>((resolve) => {
    onInterrupt = () => resolve(undefined);
    if (o.detachOnInterrupt) process.once('SIGINT', onInterrupt);
  });
  try {
    const watched = waitForRun(client, runName, (s) => display.show(view.next(s)), o.pollMs ?? 1000, {
      returnOnAttention: o.returnOnAttention,
      onBusy: (err, known) => display.show(view.busy(err.reason, known)),
    });
    watched.catch(() => undefined); // after a detach, a later failure of the abandoned poll is nobody's concern
    return await Promise.race([watched, interrupted]);
  } finally {
    if (onInterrupt) process.removeListener('SIGINT', onInterrupt);
    display.close();
  }
}

/** `watch` and `--wait`: the live view, then the run's status; exit code 0 when the run completed (a stopped run
 *  too), 1 when it failed, was terminated or timed out, 130 when the user detached. */
export async function followRun(client: Client, runName: string): Promise<void> {
  const s = await watchRun(client, runName, { detachOnInterrupt: true });
  if (!s) {
    console.log(`\ndetached from run ${runName}; it goes on (collab-loop watch ${runName} shows it again)`);
    process.exitCode = 130;
    return;
  }
  console.log(renderStatus(s));
  process.exitCode = s.workflowStatus === 'COMPLETED' ? 0 : 1;
}
