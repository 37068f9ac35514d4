// What an iteration shows while it runs: its own current details in the Temporal UI, and, at stage changes,
// attention and finished shards, a progress signal to its loop (whose page then says where the run is).
import { getExternalWorkflowHandle, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import { iterationProgressSignal } from '../contracts/messages';
import type { IterationStatus } from '../contracts/run';
import { renderIterationDetails, type RolesView } from './details';
import type { IterationState } from './iteration-state';
import { generateWork, iterationStageProgress } from './live-progress';
import { roleLineage } from './role-lineage';

/** The status as the query, the CLI and the UI read it: with the stage's live progress. */
export function statusView(s: IterationState): IterationStatus {
  const progress = iterationStageProgress(s);
  return progress ? { ...s.status, progress } : s.status;
}

export const publish = (s: IterationState) => setCurrentDetails(renderIterationDetails(s.input.runName, statusView(s), rolesView(s)));

/** Each model role's lineage as far as the iteration got: served once deployed, trained as each trainer returns. */
function rolesView(s: IterationState): RolesView | undefined {
  if (!s.deployed?.roles) return undefined;
  const training = s.status.stage === 'train' && !s.status.attention;
  return { models: roleLineage(s.deployed, s.data, s.trainedRoles, s.config), method: s.config.trainer?.method, training };
}

/** Stage changes, attention, metrics and (live-progress-v1) each finished shard go to the loop's details;
 *  `finishedKey`: the shard that just finished, whose reports the loop then stops adding. */
export function tellLoop(s: IterationState, finishedKey?: string): void {
  const parentId = workflowInfo().parent?.workflowId;
  if (!s.patches.visible || !parentId) return;
  const { iteration, stage, attention, tokens, metrics, conversations } = s.status;
  const work = s.patches.liveProgress && stage === 'generate' ? generateWork(s) : undefined;
  getExternalWorkflowHandle(parentId)
    .signal(iterationProgressSignal, {
      iteration,
      stage,
      attention,
      conversations: conversations.done,
      tokens,
      metrics,
      ...(work ? { work } : {}),
      ...(finishedKey ? { finishedKey } : {}),
    })
    .catch(() => undefined); // the loop may be gone (stopped); its details are then moot
}

/** An activity's one-line UI summary, in histories that carry the ui-visibility patch (activity-proxies.ts). */
export const summary = (s: IterationState, text: string) => (s.patches.visible ? text : undefined);
