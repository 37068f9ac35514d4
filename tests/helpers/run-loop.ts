// Runs a loop to its end with in-process workers, and saves its histories for tests/workflows/replay.test.ts when asked.
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { trainingLoop, type LoopResult } from '../../workflows/loop';
import { iterationWorkflowId, loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES, type LoopConfig } from '../../contracts/run';
import { withWorkers } from './workers';

export function runLoop(
  env: TestWorkflowEnvironment,
  runName: string,
  config: LoopConfig,
  opts: { evalOnly?: boolean } = {},
): Promise<LoopResult> {
  return withWorkers(env, () =>
    env.client.workflow.execute(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config, ...opts }],
    }),
  );
}

/** The attempt each of a workflow's activities completed on (1: it never failed or timed out). */
export async function activityAttempts(client: Client, workflowId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    return started ? [started.attempt ?? 1] : [];
  });
}

/** RECORD_HISTORIES=<tag>: writes tests/histories/{iteration,loop}-<recipe>-<tag>.json from a finished run. */
export async function recordHistoriesIfAsked(env: TestWorkflowEnvironment, runName: string, recipe: string): Promise<void> {
  const tag = process.env.RECORD_HISTORIES;
  if (!tag) return;
  for (const [kind, workflowId] of [
    ['iteration', iterationWorkflowId(runName, 0)],
    ['loop', loopWorkflowId(runName)],
  ] as const) {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    writeFileSync(
      path.join(PROJECT_ROOT, 'tests', 'histories', `${kind}-${recipe}-${tag}.json`),
      `{"workflowId": ${JSON.stringify(workflowId)}, "history": ${historyToJSON(history)}}`,
    );
  }
}
