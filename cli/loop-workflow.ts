// A run's loop workflow as the CLI reads and starts it: its status, its start input, a new execution. Light on
// purpose: status, watch, list, stop, pause, resume and continue load this and the Temporal client, not the config
// schema and every recipe behind it (cli/runs.ts, which starting from a config file needs).
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
} from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  iterationStatusQuery,
  iterationWorkflowId,
  loopStatusQuery,
  loopWorkflowId,
  RecipeKey,
  RunNameKey,
  IterationKey,
} from '../contracts/messages';
import { TASK_QUEUES, type IterationStatus, type LoopConfig, type LoopInput, type LoopState, type LoopStatus } from '../contracts/run';
import { effectiveConfig } from '../contracts/effective-config';
import type { WorkProgress } from '../contracts/progress';
import type { trainingLoop, LoopResult } from '../workflows/loop';
import { UserError } from './user-error';
import type { ActivityWait } from './activity-waits';
import { pendingWork, type ShardInFlight, type TrainerInFlight } from './iteration-description';
import { runningWork, withRunningWork } from './running-work';
import { queryInTime } from './worker-busy';

/** Memo written at start: lets `list` say how many iterations a run has without asking a worker. */
export interface LoopMemo {
  iterations: number;
  /** A continued run's start (LoopState.startedAt): `continue` begins a new continue-as-new chain, whose first
   *  execution is not where the run started. The server carries a memo across continue-as-new. */
  startedAt?: string;
}

/** A run's state as a user reads it: "stopped" for a loop that completed on `stop`, else its workflow status
 *  ("completed", "failed", "timed out", …). */
export async function runState(client: Client, d: Pick<WorkflowExecutionInfo, 'status' | 'workflowId'>): Promise<string> {
  if (d.status.name === 'COMPLETED' && ((await client.workflow.getHandle(d.workflowId).result()) as LoopResult).stopped) return 'stopped';
  return d.status.name.toLowerCase().replace(/_/g, ' ');
}

/** The loop workflow of a name, in whatever state, or undefined when the name was never used. */
export async function describeRun(client: Client, runName: string) {
  try {
    return await client.workflow.getHandle(loopWorkflowId(runName)).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** Starts the loop workflow of a run: fresh (no state) or from the state after its last finished iteration. */
export async function startExecution(
  client: Client,
  o: {
    input: LoopInput;
    state?: LoopState & { paused?: boolean };
    memo: LoopMemo;
    summary: string;
    details: string;
    reuse: 'ALLOW_DUPLICATE' | 'REJECT_DUPLICATE';
  },
): Promise<WorkflowHandle<typeof trainingLoop>> {
  const { runName } = o.input;
  try {
    return await client.workflow.start<typeof trainingLoop>('trainingLoop', {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: o.state ? [o.input, o.state] : [o.input],
      workflowIdReusePolicy: o.reuse,
      memo: { ...o.memo },
      staticSummary: o.summary,
      staticDetails: o.details,
      typedSearchAttributes: [
        { key: RunNameKey, value: runName },
        { key: RecipeKey, value: o.input.config.recipe.name },
        { key: IterationKey, value: o.state?.iteration ?? 0 },
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      throw new UserError(`run "${runName}" was started by someone else just now (collab-loop status ${runName})`);
    throw err;
  }
}

export interface RunStatus {
  workflowStatus: string;
  loop: LoopStatus;
  iteration?: IterationStatus;
  inFlight: ShardInFlight[];
  training?: TrainerInFlight[];
  /** Activities of the running iteration that wait on a heartbeat timeout, a retry or a worker. */
  waits?: ActivityWait[];
  result?: LoopResult;
  /** Set when no worker answered the run's queries in time (cli/run-without-worker.ts): `loop` is then the state the
   *  loop's execution started with, `iteration` is absent, and this says what the server knows of the running one. */
  unanswered?: Unanswered;
}

/** The running iteration as the server alone knows it. */
export interface Unanswered {
  /** How the worker did not answer ("the status query timed out after 10 s"). */
  reason: string;
  stage?: string;
  attention?: boolean;
  /** The running activities' latest measurements (heartbeat details): the stage's finished work is the worker's. */
  running: WorkProgress[];
}

/** The namespace is named: a run started under another TEMPORAL_NAMESPACE or profile is the usual cause. */
export const noSuchRun = (client: Client, runName: string) =>
  new UserError(`no run named "${runName}" in namespace ${client.options.namespace} (see collab-loop list)`);

/** Tries at a consistent look at a running iteration; the last one is taken as it is (a piece finished between its
 *  reads is missing from that one look). Pieces finish seconds apart, a look takes milliseconds. */
const CONSISTENT_LOOKS = 3;

export async function getRunStatus(client: Client, runName: string): Promise<RunStatus> {
  const handle = client.workflow.getHandle(loopWorkflowId(runName));
  let desc: Awaited<ReturnType<typeof handle.describe>>;
  try {
    desc = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw noSuchRun(client, runName);
    throw err;
  }
  const workflowStatus = desc.status.name;
  let loop: LoopStatus;
  let result: LoopResult | undefined;
  if (workflowStatus === 'COMPLETED') {
    result = (await handle.result()) as LoopResult;
    const total = (desc.memo as Partial<LoopMemo> | undefined)?.iterations ?? result.iterations.length;
    loop = {
      runName,
      recipe: desc.typedSearchAttributes.get(RecipeKey) ?? '',
      iteration: result.iterations.length,
      iterations: total,
      paused: false,
      done: result.iterations,
      finished: true,
      stopped: result.stopped,
      trackingError: result.trackingError,
      tracking: result.tracking,
      configChanges: result.iterations.at(-1)?.configChanges,
    };
  } else {
    loop = await queryInTime(client, () => handle.query(loopStatusQuery));
  }
  let iteration: IterationStatus | undefined;
  let cd: WorkflowExecutionDescription | undefined;
  if (workflowStatus === 'RUNNING') {
    const child = client.workflow.getHandle(iterationWorkflowId(runName, loop.iteration));
    const query = () => queryInTime(client, () => child.query(iterationStatusQuery));
    try {
      // A consistent look: the finished work (the query) and the running pieces (the description) from one moment.
      // A piece finishing between the two reads would be in neither; so the query is read again after the
      // description, and the pair is taken once no piece finished meanwhile (else a count could go back down).
      for (let look = 1; ; look++) {
        iteration = await query();
        cd = await child.describe();
        if (look === CONSISTENT_LOOKS) break;
        const again = await query();
        const same = again.stage === iteration.stage && again.progress?.done === iteration.progress?.done;
        if (same && again.conversations.done === iteration.conversations.done) break;
      }
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err; // between iterations: no child yet
    }
  }
  const { details, inFlight, training, waits } = pendingWork(cd);
  if (iteration) {
    const trainer = training.at(-1);
    if (trainer) iteration.train = { step: trainer.step, loss: trainer.loss };
    const progress = withRunningWork(iteration, runningWork(details));
    if (progress) iteration.progress = progress;
  }
  return { workflowStatus, loop, iteration, inFlight, training, waits, result };
}

/** Control commands act on running runs only; anything else is a clear user error. */
export async function requireRunning(client: Client, runName: string): Promise<void> {
  try {
    const d = await client.workflow.getHandle(loopWorkflowId(runName)).describe();
    if (d.status.name !== 'RUNNING') throw new UserError(`run "${runName}" is not running (${d.status.name.toLowerCase()})`);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw noSuchRun(client, runName);
    throw err;
  }
}

/** What the latest execution of a run's loop was started with: the input, and the state after the iterations
 *  finished before it (absent for a run's first execution). Read from its history's first event, so no worker is
 *  needed (and a loop's thousands of progress signals are not read). */
export async function lastStart(client: Client, runName: string): Promise<{ input: LoopInput; state?: LoopState }> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: loopWorkflowId(runName) },
    maximumPageSize: 1,
  });
  const [input, state] = (history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []).map((p) =>
    defaultPayloadConverter.fromPayload<unknown>(p as never),
  );
  if (!input) throw new Error(`the history of run ${runName} has no start input`);
  return { input: input as LoopInput, state: state as LoopState | undefined };
}

/** The config the run goes on with: its own plus the `retry --set` changes carried so far (the current loop
 *  execution's start input: LoopInput, then the LoopState continue-as-new carried), in the current format (an
 *  older run recorded it in its own: configs/upgrade.ts). */
export async function runConfig(client: Client, runName: string): Promise<LoopConfig | undefined> {
  const { input, state } = await lastStart(client, runName);
  // Loaded here: the upgrade reads the config schema (every recipe), which status and list never need.
  const { upgradeConfig } = await import('../configs/upgrade');
  return upgradeConfig(effectiveConfig(input.config, state ?? undefined));
}
