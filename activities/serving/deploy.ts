// Deploy and undeploy stages: serve the current checkpoint behind an OpenAI-compatible endpoint.
// kinds: `simulator` (the project's dry-run server with a seeded SIMULATED policy — no GPU, no weights),
// `command` (vllm serve / transformers serve / anything from a template), `external` (used as it is).
// Servers run detached in their own process group with a pid file per (run, iteration): a retry on another worker
// reuses a healthy server or reaps a dead one, and undeploy kills the whole tree.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { DeployResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import type { EndpointRef } from '../llm/client';
import { writeStageManifest } from '../manifest';
import { isAlive, killProcessGroup, readPidFile, reapPidFile, writePidFile } from '../subprocess/process-group';
import { nodeScriptArgv, PROJECT_ROOT } from '../subprocess/node-script';
import { renderCommand } from '../subprocess/template';
import { startHeartbeat } from '../heartbeat';
import { checkpointIdentity } from './checkpoint-identity';
import { freePort } from './free-port';

export const SIMULATED_POLICY_FILE = 'simulated-policy.json';

interface ServerRecord {
  pid: number;
  baseUrl: string;
  healthUrl: string;
  endpoint: EndpointRef;
}

const serverFile = (c: StageContext) => path.join(c.config.stateDir, 'servers', c.runName, `iter-${c.iteration}.json`);

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

async function waitHealthy(url: string, pid: number, timeoutS: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutS * 1000;
  const signal = Context.current().cancellationSignal;
  while (Date.now() < deadline) {
    if (signal.aborted) throw signal.reason;
    if (await healthy(url)) return;
    if (!isAlive(pid)) {
      const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      throw ApplicationFailure.create({ message: `model server exited before it was ready. Log tail (${logFile}):\n${tail}`, type: 'ServerDied' });
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw ApplicationFailure.create({ message: `model server not healthy at ${url} after ${timeoutS}s`, type: 'ServerNotReady' });
}

function serverArgv(c: StageContext, checkpoint: string, port: number, model: string): [string, string[]] {
  const d = c.config.deploy;
  if (d.kind === 'simulator') {
    const policyFile = path.join(checkpoint, SIMULATED_POLICY_FILE);
    if (!existsSync(policyFile))
      throw ApplicationFailure.nonRetryable(`checkpoint ${checkpoint} has no ${SIMULATED_POLICY_FILE}: the simulator serves only simulator checkpoints`, 'ConfigError');
    const r = c.config.recipe;
    const tasks = [r.evalTasks, r.trainTasks].filter((f): f is string => !!f).flatMap((f) => ['--tasks', `${f}:${r.dataset}`]);
    return nodeScriptArgv('activities/serving/simulator-main.ts', [
      '--port', String(port), '--model', model, '--policy', r.name, '--policy-file', policyFile, ...tasks,
      '--latency-ms', String(d.latencyMs), ...(d.capacity ? ['--capacity', String(d.capacity)] : []),
    ]);
  }
  if (d.kind === 'command') {
    const argv = renderCommand(d.command, { checkpoint, port, model, host: '127.0.0.1', project: PROJECT_ROOT });
    return [argv[0], argv.slice(1)];
  }
  throw new Error('unreachable');
}

export async function deployCheckpoint(input: StageContext & { checkpoint: string }): Promise<DeployResult> {
  const d = input.config.deploy;
  const manifestFor = (endpoint: EndpointRef, extra: Record<string, unknown> = {}) =>
    writeStageManifest(input.config.stateDir, {
      run: input.runName, iteration: input.iteration, stage: 'deploy',
      inputs: { checkpoint: input.checkpoint }, params: { deploy: d, ...extra },
      outputs: { baseUrl: endpoint.baseUrl, model: endpoint.model, cacheId: endpoint.cacheId },
    });

  if (d.kind === 'external') {
    const e = d.endpoint;
    const endpoint = { baseUrl: e.baseUrl, model: e.model, cacheId: e.model, apiKeyEnv: e.apiKeyEnv, maxConcurrency: e.maxConcurrency };
    return { endpoint, manifest: manifestFor(endpoint) };
  }

  const file = serverFile(input);
  const existing = readPidFile(file) as ServerRecord | undefined;
  if (existing && isAlive(existing.pid) && (await healthy(existing.healthUrl)))
    return { endpoint: existing.endpoint, serverId: String(existing.pid), manifest: manifestFor(existing.endpoint, { reused: true }) };
  await reapPidFile(file);

  const identity = checkpointIdentity(input.checkpoint);
  const model = d.kind === 'simulator' ? `sim-${path.basename(input.checkpoint)}` : renderCommand([d.servedModel], { checkpoint: input.checkpoint })[0];
  const port = await freePort();
  const [cmd, args] = serverArgv(input, input.checkpoint, port, model);
  const logDir = path.join(input.config.stateDir, 'logs', input.runName);
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `server-iter-${input.iteration}.log`);
  let child;
  try {
    const log = { file: logFile, append: true } as const;
    child = execa(cmd, args, { detached: true, stdin: 'ignore', stdout: log, stderr: log, cleanup: false, reject: false });
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`cannot start model server "${cmd}": ${(err as Error).message}`, 'ConfigError');
  }
  child.unref();
  child.catch(() => undefined);
  if (!child.pid) throw ApplicationFailure.nonRetryable(`cannot start model server "${cmd}" (check deploy.command)`, 'ConfigError');
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const healthUrl = `http://127.0.0.1:${port}${d.kind === 'command' ? d.healthPath : '/health'}`;
  const endpoint: EndpointRef = {
    baseUrl, model, cacheId: `${model}@${identity}`,
    apiKeyEnv: d.kind === 'command' ? d.apiKeyEnv : undefined,
    maxConcurrency: d.maxConcurrency,
  };
  writePidFile(file, { pid: child.pid, baseUrl, healthUrl, endpoint } satisfies ServerRecord);
  const hb = startHeartbeat({ pid: child.pid, baseUrl });
  try {
    await waitHealthy(healthUrl, child.pid, d.readyTimeoutSeconds, logFile);
  } catch (err) {
    await reapPidFile(file);
    throw err;
  } finally {
    hb.stop();
  }
  return { endpoint, serverId: String(child.pid), manifest: manifestFor(endpoint, { logFile, port }) };
}

export async function undeployCheckpoint(input: StageContext): Promise<boolean> {
  const file = serverFile(input);
  const rec = readPidFile(file);
  if (!rec) return false;
  await killProcessGroup(rec.pid);
  rmSync(file, { force: true });
  return true;
}

/** Every server a run still has (used by `collab-loop stop` cleanup and tests). */
export function serverRecordsDir(stateDir: string, runName: string): string {
  return path.join(stateDir, 'servers', runName);
}
