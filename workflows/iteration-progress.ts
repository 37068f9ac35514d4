// What an iteration shows while it runs: its own current details in the Temporal UI, and, at stage changes and
// attention, a progress signal to its loop (whose page then says where the run is).
import { getExternalWorkflowHandle, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { iterationProgressSignal } from '../contracts/messages';
import { renderIterationDetails, type RolesView } from './details';
import type { IterationState } from './iteration-state';
import { roleLineage } from './role-lineage';

export const publish = (s: IterationState) => setCurrentDetails(renderIterationDetails(s.input.runName, s.status, rolesView(s)));

/** Each model role's lineage as far as the iteration got: served once deployed, trained as each trainer returns. */
function rolesView(s: IterationState): RolesView | undefined {
  if (!s.deployed?.roles) return undefined;
  const training = s.status.stage === 'train' && !s.status.attention;
  return { models: roleLineage(s.deployed, s.data, s.trainedRoles, s.config), method: s.config.trainer?.method, training };
}

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
