// The servers of an iteration's checkpoints (the deploy, serve-scorers and undeploy stages): one checkpoint behind an
// OpenAI-compatible endpoint, on a free port, health-checked with a timeout and probed. Servers run detached in
// their own process group with a pid file, so a retry on another worker reuses a healthy server or reaps a dead
// one, and undeploy (or the workflow's cleanup) kills every tree. Per checkpoint:
//   model  — the checkpoint itself (transformers / vllm / command), or the simulator when server.kind is simulator;
//   agents — only with `agents:` in the config: a SIMULATED policy plays the conversations (dry runs on CPU), while
//            the model server is still started, health-checked and probed, so trained weights really are served.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { execa } from 'execa';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import path from 'node:path';
import { logTail } from '../subprocess/log-tail';
import type { ProbeResult } from '../../contracts/run';
import type { StageContext } from '../../contracts/activities';
import type { EndpointRef } from '../../contracts/endpoint';
import { writeFileAtomic } from '../artifacts/store';
import { sha256Hex } from '../storage/content-hash';
import type { ChatMessage } from '../llm/types';
import { leaseEntry } from '../storage/checkpoint-cache';
import { localCheckpoint } from '../storage/checkpoints';
import { localStateDir } from '../storage/run-storage';
import { isAlive, readPidFile, reapPidFile, writePidFile } from '../subprocess/process-group';
import { acquireGpus, serversRoot } from '../subprocess/gpu-pool';
import { forgetGroup, reapOrphans, recordGroup } from '../subprocess/process-registry';
import { TemplateError } from '../subprocess/template';
import { startHeartbeat } from '../heartbeat';
import { checkpointIdentity } from './checkpoint-identity';
import { freePort } from './free-port';
import { modelServerLaunch, simulatorLaunch, type ServerLaunch } from './server-launch';
import { probeServedModel } from './probe';
import { servedKeyRef } from '../llm/served-key';

export const SIMULATED_POLICY_FILE = 'simulated-policy.json';

/** `model` / `agents` (the primary checkpoint's servers) or `model-<hash>` / `agents-<hash>` (another checkpoint's). */
type Role = string;

interface ServerRecord {
  pid: number;
  healthUrl: string;
  endpoint: EndpointRef;
  /** Its CUDA_VISIBLE_DEVICES (gpu-pool.ts), when the host hands out GPUs. */
  gpus?: number[];
}

/** What serving a checkpoint needs from the config's recipe (the stage that resolved it gives it). */
export interface ServedRecipe {
  /** How the recipe's simulator names its task files (RecipeDefinition.simulator.taskKind). */
  simulatorTaskKind: string;
  /** The first `n` evaluation prompts (RecipeRuntime.probePrompts); asked for only when a served model is probed. */
  probePrompts(n: number): Promise<ChatMessage[][]>;
}

/** Where an iteration's servers leave their pid files (one per role: `iter-<k>.<role>.json`). */
export const serversDir = (c: StageContext) => path.join(serversRoot(localStateDir(c.config)), c.runName);
const serverFile = (c: StageContext, role: Role) => path.join(serversDir(c), `iter-${c.iteration}.${role}.json`);

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

async function listsModel(baseUrl: string, model: string, apiKey: string | undefined): Promise<boolean> {
  try {
    const headers = apiKey ? { authorization: `Bearer ${apiKey}` } : undefined;
    const res = await fetch(`${baseUrl}/models`, { headers, signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { data?: Array<{ id?: string }> };
    return !!body.data?.some((m) => m.id === model);
  } catch {
    return false;
  }
}

async function waitReady(launch: ServerLaunch, pid: number, timeoutS: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutS * 1000;
  const signal = Context.current().cancellationSignal;
  while (Date.now() < deadline) {
    if (signal.aborted) throw signal.reason;
    if (
      (await healthy(launch.healthUrl)) &&
      (!launch.checkModelsList || (await listsModel(launch.endpoint.baseUrl, launch.endpoint.model, launch.apiKey)))
    )
      return;
    if (!isAlive(pid))
      throw ApplicationFailure.create({
        message: `model server exited before it was ready. Log tail (${logFile}):\n${logTail(logFile)}`,
        type: 'ServerDied',
      });
    await new Promise((r) => setTimeout(r, 250));
  }
  throw ApplicationFailure.create({
    message: `model server not healthy at ${launch.healthUrl} after ${timeoutS}s. Log tail (${logFile}):\n${logTail(logFile)}`,
    type: 'ServerNotReady',
  });
}

/** Stops the server a pid file names (left by an earlier attempt, or failing now) and forgets it. */
async function stopServer(c: StageContext, file: string): Promise<boolean> {
  const rec = readPidFile(file);
  const killed = await reapPidFile(file);
  if (rec) forgetGroup(localStateDir(c.config), rec.pid);
  return !!killed;
}

/** Stops every server of the iteration (undeploy, and a deploy that failed partway) and removes their pid files.
 *  True when one was running. */
export async function stopIterationServers(c: StageContext): Promise<boolean> {
  const dir = serversDir(c);
  if (!existsSync(dir)) return false;
  const mine = readdirSync(dir).filter((f) => f.startsWith(`iter-${c.iteration}.`));
  let any = false;
  for (const f of mine) if (await stopServer(c, path.join(dir, f))) any = true;
  return any;
}

/** Starts (or reuses) the server of one role and waits until it answers. */
async function startServer(
  c: StageContext,
  role: Role,
  launch: ServerLaunch,
  cacheId: string,
  readyTimeoutS: number,
  gpuCount: number,
): Promise<{ endpoint: EndpointRef; pid: number; logFile: string; reused: boolean; gpus?: number[] }> {
  const file = serverFile(c, role);
  // Servers a killed worker left on this host hold ports and GPU memory; its own would not be reused anyway.
  await reapOrphans(localStateDir(c.config));
  const existing = readPidFile(file) as ServerRecord | undefined;
  const logDir = path.join(localStateDir(c.config), 'logs', c.runName);
  const logFile = path.join(logDir, `server-iter-${c.iteration}-${role}.log`);
  if (existing && isAlive(existing.pid) && (await healthy(existing.healthUrl)))
    return { endpoint: existing.endpoint, pid: existing.pid, logFile, reused: true, gpus: existing.gpus };
  await stopServer(c, file);
  mkdirSync(logDir, { recursive: true });
  const lease = await acquireGpus(localStateDir(c.config), gpuCount, Context.current().cancellationSignal);
  const gpus = lease.gpus.length ? lease.gpus : undefined;
  const [cmd, ...args] = launch.argv;
  // The server writes its log file itself: with execa's { file } target its output would pass through this worker
  // (execa/lib/stdio/handle-async.js pipes it into a write stream here), and a server outliving a killed worker
  // would lose its log, or die of the broken pipe.
  // (execa's option types accept a file descriptor only as a literal number, hence the cast.)
  const log = openSync(logFile, 'a') as 3;
  if (gpus) writeSync(log, `--- ${role} server on GPUs ${lease.env.CUDA_VISIBLE_DEVICES} (CUDA_VISIBLE_DEVICES)\n`);
  const child = execa(cmd, args, {
    detached: true,
    stdio: ['ignore', log, log],
    cleanup: false,
    reject: false,
    env: { ...launch.env, ...lease.env },
  });
  child.unref();
  closeSync(log);
  const exited = child.then((r) => r);
  if (!child.pid) {
    lease.release();
    const r = await exited;
    throw ApplicationFailure.nonRetryable(
      `cannot start the ${role} server "${cmd}": ${r.shortMessage ?? r.message ?? 'no pid'} (check the server section of the config)`,
      'ConfigError',
    );
  }
  const endpoint: EndpointRef = { ...launch.endpoint, cacheId, served: true };
  writePidFile(file, { pid: child.pid, healthUrl: launch.healthUrl, endpoint, ...(gpus ? { gpus } : {}) } satisfies ServerRecord);
  recordGroup(localStateDir(c.config), {
    pid: child.pid,
    kind: 'server',
    port: Number(new URL(launch.healthUrl).port),
    run: c.runName,
    argv: launch.argv,
    ...(gpus ? { gpus } : {}),
  });
  lease.release(); // the registry holds the indices while the server lives
  const hb = startHeartbeat({ role, pid: child.pid, baseUrl: endpoint.baseUrl });
  try {
    await waitReady(launch, child.pid, readyTimeoutS, logFile);
  } catch (err) {
    await stopServer(c, file);
    throw err;
  } finally {
    hb.stop();
  }
  return { endpoint, pid: child.pid, logFile, reused: false, gpus };
}

/** The simulated policy for a checkpoint: its own simulated-policy.json, else the config's initial one. */
function agentsPolicyFile(c: StageContext, checkpoint: string, key: string): string {
  const own = path.join(checkpoint, SIMULATED_POLICY_FILE);
  if (existsSync(own)) return own;
  const a = c.config.agents;
  if (!a)
    throw ApplicationFailure.nonRetryable(
      `checkpoint ${checkpoint} has no ${SIMULATED_POLICY_FILE}: the simulator serves only simulator checkpoints (or add an agents: section)`,
      'ConfigError',
    );
  const file = path.join(serversDir(c), `iter-${c.iteration}.agents-policy${key}.json`);
  writeFileAtomic(file, JSON.stringify({ skill: a.skill, agreeability: a.agreeability }));
  return file;
}

export interface Served {
  /** Who plays the roles served from this checkpoint: its model, or the simulated agents. */
  endpoint: EndpointRef;
  model: EndpointRef;
  probe?: ProbeResult;
  pid: number;
  argv: string[];
  logFile: string;
  reused: boolean;
  /** The directory on this host the weights were read from (a fetched copy when trained elsewhere). */
  dir: string;
  /** The model server's GPU indices (CUDA_VISIBLE_DEVICES), when the host hands out GPUs. */
  gpus?: number[];
}

/** GPUs one model server takes: `server.gpus`, else vLLM's tensor-parallel size, else 1. */
const serverGpus = (s: Exclude<StageContext['config']['server'], { kind: 'external' }>): number =>
  s.gpus ?? (s.kind === 'vllm' ? s.tensorParallelSize : 1);

/** Serves one checkpoint (and, with `agents:`, its simulated agents). `key` tells apart the servers of one
 *  iteration: '' for the primary checkpoint (files `iter-<k>.model.json`), `-<hash>` for the others. */
export async function serveCheckpoint(input: StageContext, published: string, key: string, recipe: ServedRecipe): Promise<Served> {
  const { config } = input;
  const s = config.server;
  if (s.kind === 'external') throw new Error('serveCheckpoint: external servers are not deployed');
  // A checkpoint trained on another host is fetched into this host's cache (once per content).
  const checkpoint = await localCheckpoint(config, published);
  if (!existsSync(checkpoint)) throw ApplicationFailure.nonRetryable(`checkpoint ${checkpoint} does not exist`, 'ConfigError');
  const identity = checkpointIdentity(checkpoint);
  // The run's key, when this host serves with keys (llm/served-key.ts): only its reference enters the endpoint.
  const keyRef = servedKeyRef(input.runName);
  let launch: ServerLaunch;
  try {
    launch =
      s.kind === 'simulator'
        ? simulatorLaunch(config, checkpoint, await freePort(), {
            taskKind: recipe.simulatorTaskKind,
            policyFile: agentsPolicyFile(input, checkpoint, key),
            latencyMs: s.latencyMs,
            answerGate: s.answerGate,
            capacity: s.capacity,
            maxConcurrency: s.maxConcurrency,
            structuredOutputs: s.structuredOutputs,
            keyRef,
          })
        : modelServerLaunch(s, checkpoint, await freePort(), { seed: config.seed, keyRef });
  } catch (err) {
    if (err instanceof TemplateError) throw ApplicationFailure.nonRetryable(`server.command: ${err.message}`, 'ConfigError');
    throw err;
  }
  const model = await startServer(
    input,
    `model${key}`,
    launch,
    `${launch.endpoint.model}@${identity}`,
    s.readyTimeoutSeconds,
    serverGpus(s),
  );
  const probe =
    s.kind !== 'simulator' && s.probe
      ? await probeServedModel(input, model.endpoint, { prompts: await recipe.probePrompts(s.probe.prompts), maxTokens: s.probe.maxTokens })
      : undefined;
  let agents = model;
  if (config.agents && s.kind !== 'simulator') {
    const a = config.agents;
    const simLaunch = simulatorLaunch(config, checkpoint, await freePort(), {
      taskKind: recipe.simulatorTaskKind,
      policyFile: agentsPolicyFile(input, checkpoint, key),
      latencyMs: a.latencyMs,
      maxConcurrency: a.maxConcurrency,
      keyRef,
    });
    agents = await startServer(input, `agents${key}`, simLaunch, `${simLaunch.endpoint.model}@${identity}`, 60, 0);
  }
  // A fetched copy stays in this host's checkpoint cache while its servers run (storage/checkpoint-cache.ts).
  if (checkpoint !== published) for (const pid of new Set([model.pid, agents.pid])) await leaseEntry(checkpoint, pid);
  return {
    endpoint: agents.endpoint,
    model: model.endpoint,
    probe,
    pid: model.pid,
    argv: launch.argv,
    logFile: model.logFile,
    reused: model.reused,
    dir: checkpoint,
    ...(model.gpus ? { gpus: model.gpus } : {}),
  };
}

/** The name that tells a checkpoint's servers apart from the primary checkpoint's. */
export const serverKey = (checkpoint: string) => `-${sha256Hex(path.resolve(checkpoint)).slice(0, 8)}`;
