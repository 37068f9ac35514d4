// `collab-loop list`: the latest execution of every run, from the server's visibility store, with the state a user
// reads it in: running, paused, needs attention, completed, stopped, failed, … The loop's search attributes say
// which iteration; its iteration's (workflows/iteration.ts) say the stage and whether it needs attention; the
// loop's status query says paused (a worker answers it); the loop's result says stopped (cli/runs.ts runState).
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { iterationLabel } from '../contracts/iteration-label';
import { IterationKey, loopStatusQuery, RecipeKey, RunNameKey } from '../contracts/messages';
import { describeIteration, iterationFlags } from './iteration-description';
import { runState, type LoopMemo } from './loop-workflow';
import { queryInTime, WorkerBusyError } from './worker-busy';

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
  /** Set when no worker polls the run's workflow queue: a running run's pause is then unknown. */
  noWorker?: true;
  /** Set when a worker polls it but did not answer the loop's status query in time (cli/worker-busy.ts). */
  workerBusy?: true;
}

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
  const [described, started] = await Promise.all([describeIteration(client, run, iteration), runStart(client, w)]);
  const child = described && iterationFlags(described);
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
    let paused: boolean | undefined;
    if (await workerPolls(w.taskQueue))
      paused = await queryInTime(client, () => client.workflow.getHandle(w.workflowId, w.runId).query(loopStatusQuery))
        .then((s) => s.paused)
        .catch((err) => {
          if (err instanceof WorkerBusyError) row.workerBusy = true;
          return undefined;
        });
    if (paused === undefined && !row.workerBusy) row.noWorker = true;
    row.state = paused ? 'paused' : 'running';
  }
  return row;
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
    const state = r.noWorker ? `${r.state} (no worker answered)` : r.workerBusy ? `${r.state} (worker busy)` : r.state;
    lines.push([r.run, r.recipe, state, label, r.stage ?? '', r.started].join('\t'));
  }
  return lines.join('\n');
}
