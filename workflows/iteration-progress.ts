// What an iteration shows while it runs: its own current details in the Temporal UI, and, at stage changes and
// attention, a progress signal to its loop (whose page then says where the run is).
import { getExternalWorkflowHandle, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { iterationProgressSignal } from '../contracts/messages';
import { renderIterationDetails } from './details';
import type { IterationState } from './iteration-state';

export const publish = (s: IterationState) => setCurrentDetails(renderIterationDetails(s.input.runName, s.status));

/** Stage changes, attention and metrics go to the loop's details; shard-by-shard progress stays here. */
export function tellLoop(s: IterationState): void {
  const parentId = workflowInfo().parent?.workflowId;
  if (!s.patches.visible || !parentId) return;
  const { iteration, stage, attention, tokens, metrics, conversations } = s.status;
  getExternalWorkflowHandle(parentId)
    .signal(iterationProgressSignal, { iteration, stage, attention, conversations: conversations.done, tokens, metrics })
    .catch(() => undefined); // the loop may be gone (stopped); its details are then moot
}

/** An activity's one-line UI summary, in histories that carry the ui-visibility patch (activity-proxies.ts). */
export const summary = (s: IterationState, text: string) => (s.patches.visible ? text : undefined);
