// `collab-loop list`: the latest execution of every run, from the server's visibility store, with the state a user
// reads it in: running, paused, needs attention, completed, stopped, failed, … The loop's search attributes say
// which iteration; its iteration's (workflows/iteration.ts) say the stage and whether it needs attention; the
// loop's status query says paused (a worker answers it); the loop's result says stopped (cli/runs.ts runState).
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { iterationLabel } from '../contracts/iteration-label';
import {
  IterationKey,
  iterationWorkflowId,
  loopStatusQuery,
  NeedsAttentionKey,
  RecipeKey,
  RunNameKey,
  StageKey,
} from '../contracts/messages';
import { runState, type LoopMemo } from './loop-workflow';

export interface RunRow {
  run: string;
  recipe: string;
  /** running, paused, needs attention, completed, stopped, failed, terminated, timed out, canceled. */
  state: string;
  /** The iteration running, or the last one the run ran (numbered from 0). */
  iteration: number;
  /** How many the run has (absent for runs started without the CLI, which writes it in the memo). */
  iterations?: number;
  /** The stage of that iteration (`done` once it finished); absent before its first stage. */
  stage?: string;
  /** When the run began: its first execution's start, across the loop's continue-as-new after every iteration. */
  started: string;
  /** Set when no worker answered the loop's status query: a running run's pause is then unknown. */
  noWorker?: true;
}

/** How long a running run's status query may wait for a worker before `list` says so and goes on. */
const QUERY_MS = 10_000;

export async function listRuns(client: Client): Promise<RunRow[]> {
  const latest: WorkflowExecutionInfo[] = [];
  const seen = new Set<string>();
  for await (const w of client.workflow.list({ query: `WorkflowType = 'trainingLoop'` })) {
    if (seen.has(w.workflowId)) continue; // newest first: older executions are earlier segments or restarts
    seen.add(w.workflowId);
    latest.push(w);
  }
  const polled = new Map<string, Promise<boolean>>();
  const workerPolls = (taskQueue: string) => {
    if (!polled.has(taskQueue)) polled.set(taskQueue, workflowPollers(client, taskQueue));
    return polled.get(taskQueue)!;
  };
  return Promise.all(latest.map((w) => runRow(client, w, workerPolls)));
}

/** Whether a worker has polled the run's workflow task queue lately (the server remembers pollers for minutes): with
 *  none, the status query could only wait out its deadline, so `list` says so at once. Unknown counts as yes. */
async function workflowPollers(client: Client, taskQueue: string): Promise<boolean> {
  try {
    const r = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue }, // no type: the server describes the workflow pollers
    });
    return (r.pollers?.length ?? 0) > 0;
  } catch {
    return true;
  }
}

async function runRow(client: Client, w: WorkflowExecutionInfo, workerPolls: (taskQueue: string) => Promise<boolean>): Promise<RunRow> {
  const run = w.typedSearchAttributes.get(RunNameKey) ?? w.workflowId;
  const loopIteration = Number(w.typedSearchAttributes.get(IterationKey) ?? 0);
  const memoTotal = (w.memo as Partial<LoopMemo> | undefined)?.iterations;
  const iterations = memoTotal ?? (w.status.name === 'COMPLETED' ? loopIteration + 1 : undefined);
  const iteration = iterations !== undefined ? Math.min(loopIteration, iterations - 1) : loopIteration;
  const [child, started] = await Promise.all([describeIteration(client, run, iteration), runStart(client, w)]);
  const row: RunRow = {
    run,
    recipe: w.typedSearchAttributes.get(RecipeKey) ?? '',
    state: '',
    iteration,
    ...(iterations !== undefined ? { iterations } : {}),
    ...(child?.stage ? { stage: child.stage } : {}),
    started: started.toISOString(),
  };
  if (w.status.name !== 'RUNNING') row.state = await runState(client, w);
  else if (child?.attention) row.state = 'needs attention';
  else {
    const paused = (await workerPolls(w.taskQueue))
      ? await client
          .withDeadline(Date.now() + QUERY_MS, () => client.workflow.getHandle(w.workflowId, w.runId).query(loopStatusQuery))
          .then((s) => s.paused)
          .catch(() => undefined)
      : undefined;
    row.state = paused ? 'paused' : 'running';
    if (paused === undefined) row.noWorker = true;
  }
  return row;
}

/** The iteration workflow's stage and needs-attention flag, from its search attributes (no worker needed). */
async function describeIteration(client: Client, run: string, iteration: number) {
  try {
    const d = await client.workflow.getHandle(iterationWorkflowId(run, iteration)).describe();
    return { stage: d.typedSearchAttributes.get(StageKey), attention: d.typedSearchAttributes.get(NeedsAttentionKey) === true };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined; // not started yet, or past the server's retention
    throw err;
  }
}

/** The run's start: a continued run's from its memo, else the start of the first execution of the latest one's
 *  continue-as-new chain (the server's first_run_id). */
export async function runStart(
  client: Client,
  w: Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'startTime' | 'memo'>,
): Promise<Date> {
  const carried = (w.memo as Partial<LoopMemo> | undefined)?.startedAt;
  if (carried) return new Date(carried);
  const first = (await client.workflow.getHandle(w.workflowId, w.runId).describe()).raw.workflowExecutionInfo?.firstRunId;
  if (!first || first === w.runId) return w.startTime;
  try {
    return (await client.workflow.getHandle(w.workflowId, first).describe()).startTime;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return w.startTime; // the first segment is past the server's retention
    throw err;
  }
}

/** One line per run, tab-separated, the iteration said as `status` says it (contracts/iteration-label.ts). */
export function renderRunRows(rows: RunRow[]): string {
  if (!rows.length) return '(no runs)';
  const lines = [['run', 'recipe', 'state', 'iteration', 'stage', 'started'].join('\t')];
  for (const r of rows) {
    const label =
      r.iterations === undefined
        ? `iteration ${r.iteration}`
        : iterationLabel({ iteration: r.state === 'completed' ? r.iterations : r.iteration, iterations: r.iterations });
    const state = r.noWorker ? `${r.state} (no worker answered)` : r.state;
    lines.push([r.run, r.recipe, state, label, r.stage ?? '', r.started].join('\t'));
  }
  return lines.join('\n');
}
