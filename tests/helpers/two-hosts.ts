// Two worker "hosts" on one machine that share only the Temporal server and the bucket: separate state dirs and
// working directories, host A polling workflows,llm,cpu,sandbox and host B gpu (docs/operations.md, "Running on several machines").
import type { Client } from '@temporalio/client';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loopWorkflowId } from '../../contracts/messages';
import { type LoopConfig, TASK_QUEUES } from '../../contracts/run';
import { trainingLoop } from '../../workflows/loop';
import { startCliWorker } from './cli';
import { tempStateDir } from './config';

const QUEUES = { a: 'workflows,llm,cpu,sandbox', b: 'gpu' } as const;
export type Host = keyof typeof QUEUES;

/** The starter's and each host's state dir; `start(host)` runs `collab-loop worker` there (again, for a restart). */
export function twoHosts(prefix: string, workerEnv: Record<string, string>) {
  const starter = tempStateDir(`${prefix}-starter-`);
  const dirs: Record<Host, string> = { a: tempStateDir(`${prefix}-a-`), b: tempStateDir(`${prefix}-b-`) };
  for (const dir of Object.values(dirs)) mkdirSync(path.join(dir, 'cwd'));
  const start = (host: Host) =>
    startCliWorker(workerEnv, ['--queues', QUEUES[host], '--state-dir', dirs[host]], path.join(dirs[host], 'cwd'));
  return { starter, hostA: dirs.a, hostB: dirs.b, start };
}

/** Starts a loop on the hosts' workers and waits for its result: 200 s, then fails with what the hosts printed. */
export async function runOnHosts(client: Client, runName: string, config: LoopConfig, hostsOutput: () => string) {
  const handle = await client.workflow.start(trainingLoop, {
    taskQueue: TASK_QUEUES.workflows,
    workflowId: loopWorkflowId(runName),
    args: [{ runName, config }],
  });
  const result = await Promise.race([
    handle.result(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no result in 200 s\n${hostsOutput()}`)), 200_000)),
  ]);
  return { handle, result };
}
