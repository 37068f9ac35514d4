// A workflow with nothing pending — no workflow task, activity, child workflow or timer — can only move when something
// from outside (a signal, an update, a cancellation) reaches it. Tests wait for that state to prove that a held run
// stays held, instead of sleeping a while and seeing nothing happen "yet".
import type { WorkflowHandle } from '@temporalio/client';
import { waitUntil } from './wait';

async function openTimers(handle: WorkflowHandle): Promise<number> {
  const open = new Set<string>();
  for (const e of (await handle.fetchHistory()).events ?? []) {
    if (e.timerStartedEventAttributes?.timerId) open.add(e.timerStartedEventAttributes.timerId);
    if (e.timerFiredEventAttributes?.timerId) open.delete(e.timerFiredEventAttributes.timerId);
    if (e.timerCanceledEventAttributes?.timerId) open.delete(e.timerCanceledEventAttributes.timerId);
  }
  return open.size;
}

/** Resolves once the workflow has nothing pending (a closed workflow counts too: callers check its status). */
export async function waitQuiescent(handle: WorkflowHandle, timeoutMs = 120_000): Promise<void> {
  await waitUntil(
    async () => {
      const { raw } = await handle.describe();
      if (raw.pendingWorkflowTask || raw.pendingActivities?.length || raw.pendingChildren?.length) return false;
      return (await openTimers(handle)) === 0;
    },
    timeoutMs,
    `${handle.workflowId} to have nothing pending`,
  );
}
