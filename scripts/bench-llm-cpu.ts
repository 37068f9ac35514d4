// CPU per LLM call of a worker process next to a plain client, in the same run, against one lean endpoint
// (scripts/bench-endpoint.ts: its own process, 100 ms per request, its CPU reported) that is not the bottleneck:
//  - worker: a real `collab-loop worker --queues llm --metrics-port …` process running the generation shards of an
//    evaluation iteration (debate, mode single: one LLM call per conversation) with 512 calls in flight — records,
//    heartbeats, metrics and the durable request cache included; chat through the openai SDK
//    (activities/llm/openai-client.ts). Its CPU is read from /proc/<pid>/stat around the
//    iteration; the workflow, cpu and gpu queues run in this process, so the figure is the shards' alone.
//  - plain: scripts/bench-plain-client.ts, fetch behind a semaphore of 512, in its own process, sending the same
//    request body as many times; then the same over node:http with a keep-alive agent (the transport the worker's
//    SDK client is given, activities/llm/sdk-fetch.ts), and through the worker's openai SDK client on that transport,
//    so the reader sees how much of the difference is the transport and how much the SDK.
// The target: the worker within 1.1× the plain (fetch) client's CPU per call and at ≥ 1× its calls/s, so that the
// SDK and the loop's bookkeeping never dominate what an LLM call costs.
// The request cache lives in a fresh directory under os.tmpdir(): TMPDIR decides the filesystem it writes to.
// Figures are returned for `npm run bench` to print, never asserted.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { execa, type ResultPromise } from 'execa';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loopConfigSchema } from '../configs/schema';
import { resolveConfigPaths } from '../configs/load';
import { nodeScriptArgv, PROJECT_ROOT } from '../activities/subprocess/node-script';
import { freePort } from '../activities/serving/free-port';
import { recipeRuntime } from '../activities/recipes/runtime';
import { temporalCliPath } from '../cli/temporal-cli';
import { loopWorkflowId, SEARCH_ATTRIBUTES } from '../contracts/messages';
import { TASK_QUEUES } from '../contracts/run';
import { createWorkers, runWorkers } from '../workers/run-worker';
import { installWorkerLogging } from '../workers/logging';

const IN_FLIGHT = 512;
const LATENCY_MS = 100;
/** debate's gsm8k file has 10 problems: 10 × 2048 samples, two shards of 5 problems — 20,480 calls, several seconds
 *  at these rates, so that the shards' start and end are a small part of the window (as in a worker running for
 *  hours); with 512 per problem the window was under 2 s and calls/s moved ±10 % between runs. */
const SAMPLES = 2048;

export interface Side {
  calls: number;
  cpuMsPerCall: number;
  callsPerSecond: number;
  /** The endpoint's own CPU per call while serving this side. */
  endpointCpuMsPerCall: number;
  endpointMaxInFlight: number;
}

export interface LlmCpuBench {
  inFlight: number;
  latencyMs: number;
  cores: number;
  worker: Side;
  /** The baseline: fetch behind a semaphore. */
  plain: Side;
  /** The same over node:http with a keep-alive agent, as the worker sends. */
  plainHttp: Side;
  /** The worker's openai SDK client over that transport, behind the same semaphore: the SDK's own cost. */
  plainSdk: Side;
}

interface EndpointStats {
  completed: number;
  firstMs: number;
  lastMs: number;
  maxInFlight: number;
  cpuMs: number;
}

async function startEndpoint(dir: string): Promise<{ url: string; proc: ResultPromise }> {
  const ready = path.join(dir, 'endpoint.json');
  const [cmd, args] = nodeScriptArgv('scripts/bench-endpoint.ts', [String(LATENCY_MS), ready]);
  const proc = execa(cmd, args, { cwd: PROJECT_ROOT, reject: false, stdio: 'ignore' });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    try {
      return { url: (JSON.parse(readFileSync(ready, 'utf8')) as { url: string }).url, proc };
    } catch {
      /* not listening yet */
    }
  }
  proc.kill('SIGTERM');
  throw new Error('bench llm-cpu: the endpoint did not start');
}

/** Runs `body` with the endpoint's counters reset before; returns its result and the endpoint's figures. */
async function onEndpoint<T>(url: string, body: () => Promise<T>): Promise<{ value: T; stats: EndpointStats }> {
  await fetch(`${url}/reset`, { method: 'POST' });
  const value = await body();
  return { value, stats: (await (await fetch(`${url}/stats`)).json()) as EndpointStats };
}

const side = (cpuMs: number, s: EndpointStats): Side => ({
  calls: s.completed,
  cpuMsPerCall: cpuMs / s.completed,
  callsPerSecond: s.completed / ((s.lastMs - s.firstMs) / 1000),
  endpointCpuMsPerCall: s.cpuMs / s.completed,
  endpointMaxInFlight: s.maxInFlight,
});

/** CPU (all threads: the Temporal core's too) a process has used so far, from /proc. */
function processCpuMs(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond; // utime, stime (fields 14 and 15)
}

/** The eval iteration of a one-call-per-conversation recipe (debate, mode single), `samples` per problem. */
function iterationConfig(url: string, stateDir: string, samples: number) {
  return resolveConfigPaths(
    loopConfigSchema.parse({
      iterations: 1,
      seed: 1,
      stateDir,
      baseCheckpoint: path.join(PROJECT_ROOT, 'configs/checkpoints/sim-base'),
      recipe: {
        name: 'debate',
        dataset: 'gsm8k',
        mode: 'single',
        evalTasks: path.join(PROJECT_ROOT, 'configs/tasks/debate/gsm8k.jsonl'),
        evalSamples: samples,
      },
      server: { kind: 'external', endpoint: { baseUrl: `${url}/v1`, model: 'bench-model', maxConcurrency: IN_FLIGHT } },
      generation: { shardSize: 5, concurrency: IN_FLIGHT },
    }),
    path.join(PROJECT_ROOT, 'bench.yaml'),
  );
}

/** The iteration's shards on a `collab-loop worker --queues llm` process; its CPU over the measured iteration. */
async function benchWorker(env: TestWorkflowEnvironment, url: string, dir: string, requestFile: string): Promise<Side> {
  const config = iterationConfig(url, path.join(dir, 'state'), SAMPLES);
  // The plain client sends what this worker sends: the first problem's prompt with the recipe's decoding.
  const [messages] = (await recipeRuntime(config)).probePrompts(1);
  writeFileSync(requestFile, JSON.stringify({ model: 'bench-model', messages, temperature: 1, top_p: 0.9, max_tokens: 2048, n: 1 }));

  const metricsPort = await freePort();
  // BENCH_WORKER_NODE_ARGS: node flags for the worker alone, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (a V8 CPU
  // profile to open in Chrome DevTools or speedscope) or "--trace-gc" with BENCH_WORKER_LOG=<file> (the worker's
  // output appended there: its scavenges per call).
  const profile = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const worker = execa(
    process.execPath,
    [...profile, path.join(PROJECT_ROOT, 'bin/collab-loop.js'), 'worker', '--queues', 'llm', '--metrics-port', String(metricsPort)],
    { cwd: PROJECT_ROOT, reject: false, env: { TEMPORAL_ADDRESS: env.address }, all: true },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      let polling = false;
      worker.all!.on('data', (d: Buffer) => {
        if (process.env.BENCH_WORKER_LOG) appendFileSync(process.env.BENCH_WORKER_LOG, d);
        if (polling) return;
        out += d.toString();
        if (out.includes('polling')) {
          polling = true;
          resolve();
        }
      });
      worker.once('exit', () => reject(new Error(`bench llm-cpu: the worker exited before polling:\n${out}`)));
    });
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
    const inProcess = await createWorkers({ connection: env.nativeConnection, queues: ['workflows', 'cpu', 'gpu'] });
    const iteration = (runName: string, c: typeof config) =>
      env.client.workflow.execute('trainingLoop', {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config: c, evalOnly: true }],
      });
    const measured = runWorkers(
      inProcess,
      (async () => {
        // A small iteration first (its own state dir, so nothing is cached for the measured one): the worker loads
        // its modules and starts its grader helper once, as a long-running worker does; the plain client's figure
        // has no start-up either.
        await iteration('bench-llm-cpu-warm-up', iterationConfig(url, path.join(dir, 'warm-up'), 16));
        return onEndpoint(url, async () => {
          const before = processCpuMs(worker.pid!, ticks);
          await iteration('bench-llm-cpu', config);
          return processCpuMs(worker.pid!, ticks) - before;
        });
      })(),
    );
    const { value: cpuMs, stats } = (await measured)!;
    return side(cpuMs, stats);
  } finally {
    worker.kill('SIGTERM');
    await worker;
  }
}

async function benchPlain(transport: 'fetch' | 'http' | 'sdk', url: string, calls: number, requestFile: string): Promise<Side> {
  const [cmd, args] = nodeScriptArgv('scripts/bench-plain-client.ts', [transport, url, String(calls), String(IN_FLIGHT), requestFile]);
  const { value, stats } = await onEndpoint(url, () => execa(cmd, args, { cwd: PROJECT_ROOT }));
  return side((JSON.parse(value.stdout) as { cpuMs: number }).cpuMs, stats);
}

export async function benchLlmCpu(): Promise<LlmCpuBench> {
  installWorkerLogging('WARN');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-llm-cpu-'));
  const requestFile = path.join(dir, 'request.json');
  const endpoint = await startEndpoint(dir);
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCliPath() }, searchAttributes: [...SEARCH_ATTRIBUTES] },
  });
  try {
    const worker = await benchWorker(env, endpoint.url, dir, requestFile);
    const plain = await benchPlain('fetch', endpoint.url, worker.calls, requestFile);
    const plainHttp = await benchPlain('http', endpoint.url, worker.calls, requestFile);
    const plainSdk = await benchPlain('sdk', endpoint.url, worker.calls, requestFile);
    return { inFlight: IN_FLIGHT, latencyMs: LATENCY_MS, cores: os.availableParallelism(), worker, plain, plainHttp, plainSdk };
  } finally {
    await env.teardown();
    endpoint.proc.kill('SIGTERM');
    await endpoint.proc;
    rmSync(dir, { recursive: true, force: true });
  }
}
