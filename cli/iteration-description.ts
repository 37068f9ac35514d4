// A run's iteration as the server describes it, no worker needed: its stage and needs-attention flag (search
// attributes the iteration workflow keeps) and what its running activities say in their heartbeat details. `status`
// and `watch` add it to the iteration's status query (cli/loop-workflow.ts); `list`, and a status no worker
// answered (cli/run-without-worker.ts), have only this.
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { iterationWorkflowId, NeedsAttentionKey, StageKey } from '../contracts/messages';
import { activityWaits } from './activity-waits';

/** The iteration workflow's description, or undefined when it has not started yet (between iterations) or is past
 *  the server's retention. */
export async function describeIteration(client: Client, runName: string, iteration: number) {
  try {
    return await client.workflow.getHandle(iterationWorkflowId(runName, iteration)).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** Its stage and whether a stage waits for `retry`, from its search attributes. */
export const iterationFlags = (d: WorkflowExecutionDescription) => ({
  stage: d.typedSearchAttributes.get(StageKey),
  attention: d.typedSearchAttributes.get(NeedsAttentionKey) === true,
});

/** A generate shard running now (heartbeat details). */
export interface ShardInFlight {
  done: number;
  total: number;
}

/** A trainer running now (heartbeat details): its model role when the iteration trains several. */
export interface TrainerInFlight {
  role?: string;
  step: number;
  loss?: number;
}

/** What the running activities say: their decoded heartbeat details, the shards and trainers among them (by role),
 *  and what any of them waits on (a worker, a retry, a heartbeat timeout). None without a description. */
export function pendingWork(d: WorkflowExecutionDescription | undefined, now = Date.now()) {
  const pending = d?.raw.pendingActivities ?? [];
  const details: unknown[] = [];
  const inFlight: ShardInFlight[] = [];
  const training: TrainerInFlight[] = [];
  for (const pa of pending) {
    const p = pa.heartbeatDetails?.payloads?.[0];
    if (!p) continue;
    const x = defaultPayloadConverter.fromPayload<Partial<ShardInFlight & TrainerInFlight>>(p as never);
    details.push(x);
    if (typeof x?.done === 'number' && typeof x.total === 'number') inFlight.push({ done: x.done, total: x.total });
    if (typeof x?.step === 'number') training.push({ role: x.role, step: x.step, loss: x.loss });
  }
  training.sort((a, b) => (a.role ?? '').localeCompare(b.role ?? ''));
  return { details, inFlight, training, waits: activityWaits(pending, now) };
}
