import type { Client } from '@temporalio/client';
import { iterationStatusQuery, iterationWorkflowId } from '../../contracts/messages';
import type { IterationStatus } from '../../contracts/run';

export async function waitUntil<T>(probe: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An iteration's status once one of its stages needs attention. */
export function waitForAttention(client: Client, runName: string, iteration: number, timeoutMs: number): Promise<IterationStatus> {
  const handle = client.workflow.getHandle(iterationWorkflowId(runName, iteration));
  return waitUntil(
    async () => {
      const s = await handle.query(iterationStatusQuery).catch(() => undefined);
      return s?.attention ? s : undefined;
    },
    timeoutMs,
    `iteration ${iteration} needs attention`,
  );
}
