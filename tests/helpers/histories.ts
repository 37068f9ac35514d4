// Recorded histories for tests/replay.test.ts: a loop's history and its iteration 0's, saved as
// tests/histories/{iteration,loop}-<name>.json. Older recordings stay: each one stands for loops that may still be
// running on the code that recorded it.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { iterationWorkflowId, loopWorkflowId } from '../../contracts/messages';

export async function recordHistories(env: TestWorkflowEnvironment, runName: string, name: string): Promise<void> {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'histories');
  mkdirSync(dir, { recursive: true });
  for (const [kind, workflowId] of [
    ['iteration', iterationWorkflowId(runName, 0)],
    ['loop', loopWorkflowId(runName)],
  ] as const) {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    writeFileSync(
      path.join(dir, `${kind}-${name}.json`),
      `{"workflowId": ${JSON.stringify(workflowId)}, "history": ${historyToJSON(history)}}`,
    );
  }
}
