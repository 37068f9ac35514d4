// `collab-loop list`: the latest execution of every run, from the server's visibility store (no worker needed),
// with the iteration said the way `status` and the UI say it (contracts/iteration-label.ts).
import type { Client } from '@temporalio/client';
import { iterationLabel } from '../contracts/iteration-label';
import type { LoopResult } from '../workflows/loop';
import { IterationKey, RecipeKey, RunNameKey } from '../contracts/messages';
import type { LoopMemo } from './runs';

export interface RunRow {
  run: string;
  recipe: string;
  status: string;
  iteration: string;
  started: string;
}

export async function listRuns(client: Client): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  const seen = new Set<string>();
  for await (const w of client.workflow.list({ query: `WorkflowType = 'trainingLoop'` })) {
    const run = w.typedSearchAttributes.get(RunNameKey) ?? w.workflowId;
    if (seen.has(run)) continue; // newest first: older executions of a reused name are history
    seen.add(run);
    const index = Number(w.typedSearchAttributes.get(IterationKey) ?? 0);
    const total = (w.memo as Partial<LoopMemo> | undefined)?.iterations;
    let iteration = total ? iterationLabel({ iteration: index, iterations: total }) : `iteration ${index}`;
    if (w.status.name === 'COMPLETED') {
      // The result says how it ended: every iteration done, or stopped in one.
      const result = (await client.workflow.getHandle(w.workflowId, w.runId).result()) as LoopResult;
      const n = total ?? result.iterations.length;
      iteration = iterationLabel({
        iteration: result.iterations.length,
        iterations: n,
        finished: !result.stopped,
        stopped: result.stopped,
      });
    }
    rows.push({
      run,
      recipe: w.typedSearchAttributes.get(RecipeKey) ?? '',
      status: w.status.name.toLowerCase(),
      iteration,
      started: w.startTime.toISOString(),
    });
  }
  return rows;
}
