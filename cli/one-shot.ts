// `demo` and `eval`: one command that brings up what it needs (dev server, workers), runs, and prints results.
import type { LoadedConfig } from '../configs/load';
import { connectClient, ensureSearchAttributes } from './connection';
import { ensureDevServer } from './server-control';
import { withInProcessWorkers } from './in-process-worker';
import { placedClasses } from '../contracts/placement';
import type { Client } from '@temporalio/client';
import { startLoop } from './runs';
import { describeRun, type RunStatus } from './loop-workflow';
import { watchRun } from './watch-run';
import { lineageLines, metricsTable, renderStatus } from './format';
import { loopWorkflowId } from '../contracts/messages';
import { probeAnswersByIteration } from '../activities/report/probe-text';
import { storeFor } from '../activities/artifacts/store';
import { trackerLine } from './tracking-lines';

const uiLink = (ui: string, namespace: string, workflowId: string) =>
  `${ui}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;

/** Without --name, a one-shot command runs again under the first free `<name>`, `<name>-2`, …: each demo is a
 *  new run, where `start` would refuse a name already used. */
export interface OneShotOptions {
  freshName: boolean;
}

async function freeRunName(client: Client, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (!(await describeRun(client, name))) return name;
  }
}

async function runToEnd(
  given: LoadedConfig,
  evalOnly: boolean,
  opts: OneShotOptions,
): Promise<{ loaded: LoadedConfig; status: RunStatus; link?: string; started: boolean; pid?: number }> {
  const server = await ensureDevServer(given.config.stateDir);
  if (server.started)
    console.log(`started the Temporal dev server (pid ${server.pid}, state ${given.config.stateDir}/temporal.sqlite, log ${server.log})`);
  const client = await connectClient();
  await ensureSearchAttributes(client);
  const loaded = opts.freshName ? { ...given, runName: await freeRunName(client, given.runName) } : given;
  const status = await withInProcessWorkers(async () => {
    await startLoop(client, loaded, { evalOnly });
    console.log(
      `run ${loaded.runName}: ${evalOnly ? 'evaluation' : `iterations 0–${loaded.config.iterations - 1}`} of ${loaded.config.recipe.name}`,
    );
    // Its workers live in this process: a stage that needs attention ends the command (workers and all).
    const status = await watchRun(client, loaded.runName, { pollMs: 500, returnOnAttention: true });
    return status!;
  }, placedClasses(loaded.config));
  const link = server.uiUrl && uiLink(server.uiUrl, client.options.namespace, loopWorkflowId(loaded.runName));
  return { loaded, status, link, started: server.started, pid: server.pid };
}

export async function runDemo(given: LoadedConfig, opts: OneShotOptions & { stopServer: boolean }): Promise<void> {
  const t0 = Date.now();
  const { loaded, status, link, started, pid } = await runToEnd(given, false, opts);
  console.log(
    `\n${status.workflowStatus === 'COMPLETED' ? 'finished' : status.workflowStatus.toLowerCase()} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`,
  );
  console.log(metricsTable(status.loop.done));
  const probes = await probeAnswersByIteration(status.loop.done, storeFor(loaded.config));
  console.log(`\nlineage:\n${lineageLines(status.loop.done, probes)}`);
  if (status.loop.tracking?.length) console.log(`\ntracker output:\n${status.loop.tracking.map((o) => `  ${trackerLine(o)}`).join('\n')}`);
  if (link) console.log(`\nTemporal UI: ${link}`);
  if (started && pid) {
    if (opts.stopServer) process.kill(-pid, 'SIGTERM');
    else console.log(`The dev server keeps running for the UI (pid ${pid}); stop it with: kill ${pid}`);
  }
  if (status.workflowStatus !== 'COMPLETED') {
    // A stage needs attention: the run waits durably; a worker plus `collab-loop retry` continues it.
    console.log(renderStatus(status));
    console.log(
      `\nThe run is waiting. Start workers with \`collab-loop worker\`, fix the cause, then \`collab-loop retry ${loaded.runName}\`.`,
    );
    process.exitCode = 1;
  }
}

export async function runEval(given: LoadedConfig, opts: OneShotOptions): Promise<void> {
  const { status, link } = await runToEnd(given, true, opts);
  console.log('');
  console.log(metricsTable(status.loop.done));
  if (link) console.log(`\nTemporal UI: ${link}`);
  if (status.workflowStatus !== 'COMPLETED') {
    console.log(renderStatus(status));
    process.exitCode = 1;
  }
}
