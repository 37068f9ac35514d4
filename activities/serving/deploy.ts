// Deploy and undeploy stages: serve the iteration's checkpoint behind an OpenAI-compatible endpoint.
// One server per (run, iteration, role), on a free port, health-checked with a timeout. Servers run detached in
// their own process group with a pid file, so a retry on another worker reuses a healthy server or reaps a dead
// one, and undeploy (or the workflow's cleanup) kills every tree. Roles:
//   model  — the checkpoint itself (transformers / vllm / command), or the simulator when server.kind is simulator;
//   agents — only with `agents:` in the config: a SIMULATED policy plays the conversations (dry runs on CPU), while
//            the model server is still started, health-checked and probed, so trained weights really are served.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { DeployResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import { externalEndpointRef, type EndpointRef } from '../llm/client';
import { writeFileAtomic } from '../artifacts/store';
import { writeStageManifest } from '../manifest';
import { isAlive, killProcessGroup, readPidFile, reapPidFile, writePidFile } from '../subprocess/process-group';
import { TemplateError } from '../subprocess/template';
import { startHeartbeat } from '../heartbeat';
import { checkpointIdentity } from './checkpoint-identity';
import { freePort } from './free-port';
import { modelServerLaunch, simulatorLaunch, type ServerLaunch } from './server-launch';
import { probeServedModel } from './probe';

export const SIMULATED_POLICY_FILE = 'simulated-policy.json';

type Role = 'model' | 'agents';

interface ServerRecord {
  pid: number;
  healthUrl: string;
  endpoint: EndpointRef;
}

const serversDir = (c: StageContext) => path.join(c.config.stateDir, 'servers', c.runName);
const serverFile = (c: StageContext, role: Role) => path.join(serversDir(c), `iter-${c.iteration}.${role}.json`);

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

async function listsModel(baseUrl: string, model: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { data?: Array<{ id?: string }> };
    return !!body.data?.some((m) => m.id === model);
  } catch {
    return false;
  }
}

const logTail = (file: string, n = 15) => (existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n') : '');

async function waitReady(launch: ServerLaunch, pid: number, timeoutS: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutS * 1000;
  const signal = Context.current().cancellationSignal;
  while (Date.now() < deadline) {
    if (signal.aborted) throw signal.reason;
    if (
      (await healthy(launch.healthUrl)) &&
      (!launch.checkModelsList || (await listsModel(launch.endpoint.baseUrl, launch.endpoint.model)))
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

/** Starts (or reuses) the server of one role and waits until it answers. */
async function startServer(
  c: StageContext,
  role: Role,
  launch: ServerLaunch,
  cacheId: string,
  readyTimeoutS: number,
): Promise<{ endpoint: EndpointRef; pid: number; logFile: string; reused: boolean }> {
  const file = serverFile(c, role);
  const existing = readPidFile(file) as ServerRecord | undefined;
  const logDir = path.join(c.config.stateDir, 'logs', c.runName);
  const logFile = path.join(logDir, `server-iter-${c.iteration}-${role}.log`);
  if (existing && isAlive(existing.pid) && (await healthy(existing.healthUrl)))
    return { endpoint: existing.endpoint, pid: existing.pid, logFile, reused: true };
  await reapPidFile(file);
  mkdirSync(logDir, { recursive: true });
  const [cmd, ...args] = launch.argv;
  const log = { file: logFile, append: true } as const;
  const child = execa(cmd, args, {
    detached: true,
    stdin: 'ignore',
    stdout: log,
    stderr: log,
    cleanup: false,
    reject: false,
    env: launch.env,
  });
  child.unref();
  const exited = child.then((r) => r);
  if (!child.pid) {
    const r = await exited;
    throw ApplicationFailure.nonRetryable(
      `cannot start the ${role} server "${cmd}": ${r.shortMessage ?? r.message ?? 'no pid'} (check the server section of the config)`,
      'ConfigError',
    );
  }
  const endpoint: EndpointRef = { ...launch.endpoint, cacheId };
  writePidFile(file, { pid: child.pid, healthUrl: launch.healthUrl, endpoint } satisfies ServerRecord);
  const hb = startHeartbeat({ role, pid: child.pid, baseUrl: endpoint.baseUrl });
  try {
    await waitReady(launch, child.pid, readyTimeoutS, logFile);
  } catch (err) {
    await reapPidFile(file);
    throw err;
  } finally {
    hb.stop();
  }
  return { endpoint, pid: child.pid, logFile, reused: false };
}

/** The simulated policy for a checkpoint: its own simulated-policy.json, else the config's initial one. */
function agentsPolicyFile(c: StageContext, checkpoint: string): string {
  const own = path.join(checkpoint, SIMULATED_POLICY_FILE);
  if (existsSync(own)) return own;
  const a = c.config.agents;
  if (!a)
    throw ApplicationFailure.nonRetryable(
      `checkpoint ${checkpoint} has no ${SIMULATED_POLICY_FILE}: the simulator serves only simulator checkpoints (or add an agents: section)`,
      'ConfigError',
    );
  const file = path.join(serversDir(c), `iter-${c.iteration}.agents-policy.json`);
  writeFileAtomic(file, JSON.stringify({ skill: a.skill, agreeability: a.agreeability }));
  return file;
}

export async function deployCheckpoint(input: StageContext & { checkpoint: string }): Promise<DeployResult> {
  const { config, checkpoint } = input;
  const s = config.server;
  if (s.kind === 'external') {
    const endpoint = externalEndpointRef(s.endpoint);
    const manifest = writeStageManifest(config.stateDir, {
      run: input.runName,
      iteration: input.iteration,
      stage: 'deploy',
      inputs: { checkpoint },
      params: { server: s },
      outputs: { model: endpoint },
    });
    return { endpoint, manifest };
  }
  if (!existsSync(checkpoint)) throw ApplicationFailure.nonRetryable(`checkpoint ${checkpoint} does not exist`, 'ConfigError');
  const identity = checkpointIdentity(checkpoint);

  let launch: ServerLaunch;
  try {
    launch =
      s.kind === 'simulator'
        ? simulatorLaunch(config, checkpoint, await freePort(), {
            policyFile: agentsPolicyFile(input, checkpoint),
            latencyMs: s.latencyMs,
            capacity: s.capacity,
            maxConcurrency: s.maxConcurrency,
          })
        : modelServerLaunch(s, checkpoint, await freePort(), { seed: config.seed });
  } catch (err) {
    if (err instanceof TemplateError) throw ApplicationFailure.nonRetryable(`server.command: ${err.message}`, 'ConfigError');
    throw err;
  }
  const model = await startServer(input, 'model', launch, `${launch.endpoint.model}@${identity}`, s.readyTimeoutSeconds);
  const probe = s.kind !== 'simulator' && s.probe ? await probeServedModel(input, model.endpoint, s.probe) : undefined;

  let agents = model;
  if (config.agents && s.kind !== 'simulator') {
    const a = config.agents;
    const simLaunch = simulatorLaunch(config, checkpoint, await freePort(), {
      policyFile: agentsPolicyFile(input, checkpoint),
      latencyMs: a.latencyMs,
      maxConcurrency: a.maxConcurrency,
    });
    agents = await startServer(input, 'agents', simLaunch, `${simLaunch.endpoint.model}@${identity}`, 60);
  }
  const manifest = writeStageManifest(config.stateDir, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'deploy',
    inputs: { checkpoint },
    params: {
      server: s,
      agents: config.agents ?? null,
      argv: launch.argv,
      port: Number(new URL(model.endpoint.baseUrl).port),
      logFile: model.logFile,
      reused: model.reused,
    },
    outputs: { model: model.endpoint, agents: agents.endpoint, probe: probe ?? null },
  });
  return { endpoint: agents.endpoint, served: { endpoint: model.endpoint, probe }, serverId: String(model.pid), manifest };
}

export async function undeployCheckpoint(input: StageContext): Promise<boolean> {
  const dir = serversDir(input);
  if (!existsSync(dir)) return false;
  const mine = readdirSync(dir).filter((f) => f.startsWith(`iter-${input.iteration}.`));
  let any = false;
  for (const f of mine) {
    const rec = readPidFile(path.join(dir, f));
    if (typeof rec?.pid === 'number') {
      await killProcessGroup(rec.pid);
      any = true;
    }
    rmSync(path.join(dir, f), { force: true });
  }
  return any;
}
