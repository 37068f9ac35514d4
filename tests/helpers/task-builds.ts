// Which worker build completed each workflow task of a workflow (Temporal Worker Versioning records the deployment
// version in every WorkflowTaskCompleted event), across its continue-as-new chain.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { execa } from 'execa';
import { temporalCliPath } from '../../cli/temporal-cli';

/** The build ID of every completed workflow task, per run of the chain that starts at `firstRunId`. */
export async function taskBuildsByRun(client: Client, workflowId: string, firstRunId: string): Promise<string[][]> {
  const runs: string[][] = [];
  for (let runId: string | undefined = firstRunId; runId; ) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.push(
      events.flatMap((e) =>
        e.workflowTaskCompletedEventAttributes
          ? [e.workflowTaskCompletedEventAttributes.deploymentVersion?.buildId ?? '(unversioned)']
          : [],
      ),
    );
    runId =
      events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes
        ?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** "A×3 B×2": a run's task builds, consecutive repeats counted. */
export function buildSequence(builds: string[], names: Record<string, string>): string {
  const out: [string, number][] = [];
  for (const b of builds) {
    const name = names[b] ?? b;
    const last = out.at(-1);
    if (last?.[0] === name) last[1]++;
    else out.push([name, 1]);
  }
  return out.map(([n, k]) => `${n}×${k}`).join(' ');
}

/** The `temporal` CLI against `address`, as docs/operations.md has an operator run it; retried while it fails (the server
 *  learns a deployment version from its workers' first poll). */
export async function temporalCommand(address: string, args: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await execa(temporalCliPath(), [...args, '--address', address], { reject: false, all: true });
    if (r.exitCode === 0) return;
    if (Date.now() > deadline) throw new Error(`temporal ${args.join(' ')} failed:\n${r.all}`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

export const setCurrentVersion = (address: string, deploymentName: string, buildId: string) =>
  temporalCommand(address, [
    'worker',
    'deployment',
    'set-current-version',
    '--deployment-name',
    deploymentName,
    '--build-id',
    buildId,
    '--yes',
  ]);
