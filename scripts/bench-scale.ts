// `npm run bench -- scale [--conversations N…] [--workers W] [--heap-mb M] [--shard-size S] [--shape …]`: one
// evaluation-only CoRal iteration of N conversations, run by W `collab-loop worker` processes (each with its V8 heap
// capped at M MB) against the simulator in its own process (CoRal's SIMULATED policy, 512 requests in service,
// 100 ms each). Two shapes: few tasks × many samples (the demo's 24 MMLU-Pro questions) and many tasks × 4 samples
// (those questions repeated under new ids). Per run: wall time, requests sent per second (what the endpoint saw:
// answers from the cache or shared in flight are not sent), each worker's peak RSS (VmHWM) and share of the shards,
// the iteration's history (events and bytes, as the server counts them) and the request cache's size on disk.
// Figures are printed, never asserted.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { execa, type ResultPromise } from 'execa';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loopConfigSchema } from '../configs/schema';
import { resolveConfigPaths } from '../configs/load';
import { nodeScriptArgv, PROJECT_ROOT } from '../activities/subprocess/node-script';
import { temporalCliPath } from '../cli/temporal-cli';
import { iterationStatusQuery, iterationWorkflowId, loopWorkflowId, SEARCH_ATTRIBUTES } from '../contracts/messages';
import { TASK_QUEUES } from '../contracts/run';

/** The recipe the iteration runs, and whose simulated policy the endpoint plays. */
const RECIPE = 'coral';
const LATENCY_MS = 100;
const SLOTS = 512;
const DEMO_TASKS = path.join(PROJECT_ROOT, 'configs/tasks/coral-demo/mmlu_pro.jsonl');

export type Shape = 'few-tasks' | 'many-tasks';
export interface ScaleOptions {
  conversations: number[];
  workers: number;
  heapMb: number;
  shardSize: number;
  shapes: Shape[];
  /** Workflow tasks in a process of their own (`--queues workflows`), the W workers running the activities only. */
  workflowProcess: boolean;
}

export interface WorkerFigures {
  pid: number;
  peakRssMb: number;
  shards: number;
  conversations: number;
}

export interface ScaleRun {
  shape: Shape;
  tasks: number;
  samples: number;
  conversations: number;
  shards: number;
  wallSeconds: number;
  sent: number;
  cached: number;
  callsPerSecond: number;
  workers: WorkerFigures[];
  historyEvents: number;
  historyBytes: number;
  cacheBytes: number;
  /** The iteration's status query, asked every second while it ran (what `collab-loop status` asks): how long the
   *  answers took, and how many got none (a worker busy past the query's timeout). */
  query: { asked: number; failed: number; p50Ms: number; maxMs: number };
  /** With `workflowProcess`: that process's peak RSS. */
  workflowWorkerPeakRssMb?: number;
}

/** Asks the iteration's status query every second until stopped; its answer times, as a busy user would see them. */
function probeQueries(env: TestWorkflowEnvironment, workflowId: string) {
  const times: number[] = [];
  let failed = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      try {
        await env.client.workflow.getHandle(workflowId).query(iterationStatusQuery);
        times.push(performance.now() - t0);
      } catch {
        // Not started yet, or no worker answered in time: counted as failed once the iteration runs.
        if (times.length) failed++;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    const sorted = [...times].sort((a, b) => a - b);
    return {
      asked: times.length + failed,
      failed,
      p50Ms: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
      maxMs: sorted.at(-1) ?? Number.NaN,
    };
  };
}

/** `tasks` MMLU-Pro rows: the demo's 24, repeated under new ids past that (each its own conversations and cache keys). */
function taskFile(dir: string, tasks: number): string {
  const rows = readFileSync(DEMO_TASKS, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; question: string });
  if (tasks <= rows.length) return DEMO_TASKS;
  const file = path.join(dir, `tasks-${tasks}.jsonl`);
  const lines: string[] = [];
  for (let i = 0; i < tasks; i++) {
    const row = rows[i % rows.length];
    // A question text of its own: the request cache would rightly answer a repeated prompt from an earlier answer.
    lines.push(JSON.stringify({ ...row, id: `${row.id}-${i}`, question: `${row.question} (Case ${i}.)` }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function readyFile<T>(file: string, proc: ResultPromise, what: string): Promise<T> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    if (proc.exitCode !== null) throw new Error(`bench scale: ${what} exited before it was ready`);
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      /* not ready yet */
    }
  }
  throw new Error(`bench scale: ${what} was not ready within 60 s`);
}

/** The simulator as a model server: CoRal's simulated policy over `tasks`, SLOTS in service, LATENCY_MS each. */
async function startSimulator(dir: string, tasks: string): Promise<{ url: string; proc: ResultPromise }> {
  const ready = path.join(dir, 'simulator.json');
  rmSync(ready, { force: true });
  const [cmd, args] = nodeScriptArgv('activities/serving/simulator-main.ts', [
    ...['--model', 'bench-model', '--policy', RECIPE, '--tasks', `${tasks}:mmlu_pro`],
    ...['--latency-ms', String(LATENCY_MS), '--capacity', String(SLOTS), '--ready-file', ready],
  ]);
  const proc = execa(cmd, args, { cwd: PROJECT_ROOT, reject: false, stdio: 'ignore' });
  return { url: (await readyFile<{ url: string }>(ready, proc, 'the simulator')).url, proc };
}

/** A `collab-loop worker` process with its heap capped, once it polls (in an object: a returned ResultPromise would
 *  be awaited, i.e. waited for until it exits). */
async function startWorker(address: string, heapMb: number, queues?: string): Promise<{ proc: ResultPromise }> {
  const worker = execa(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin/collab-loop.js'), 'worker', ...(queues ? ['--queues', queues] : [])],
    {
      cwd: PROJECT_ROOT,
      reject: false,
      all: true,
      env: { TEMPORAL_ADDRESS: address, NODE_OPTIONS: `--max-old-space-size=${heapMb}` },
    },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      if (out.includes('polling')) resolve();
    };
    worker.all!.on('data', onData);
    worker.once('exit', () => reject(new Error(`bench scale: a worker exited:\n${out}`)));
  });
  worker.all!.resume(); // keep draining its output
  return { proc: worker };
}

/** Peak resident set of a live process (VmHWM), in MiB. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? bytesUnder(p) : statSync(p).size;
  }
  return total;
}

interface ShardResultLike {
  conversations: number;
  calls: number;
  cachedCalls: number;
}

/** Each runShard's worker (its identity, pid@host) and result, from the iteration's history. */
async function shardsByWorker(env: TestWorkflowEnvironment, workflowId: string) {
  const { defaultPayloadConverter } = await import('@temporalio/common');
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const runShard = new Set<string>();
  const identity = new Map<string, string>();
  const done: Array<{ identity: string; result: ShardResultLike }> = [];
  for (const e of events) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runShard') runShard.add(id);
    const started = e.activityTaskStartedEventAttributes;
    if (started && runShard.has(String(started.scheduledEventId))) identity.set(String(started.scheduledEventId), started.identity ?? '');
    const c = e.activityTaskCompletedEventAttributes;
    if (c?.result?.payloads?.[0] && runShard.has(String(c.scheduledEventId)))
      done.push({
        identity: identity.get(String(c.scheduledEventId)) ?? '',
        result: defaultPayloadConverter.fromPayload<ShardResultLike>(c.result.payloads[0] as never),
      });
  }
  return done;
}

async function runOnce(env: TestWorkflowEnvironment, dir: string, shape: Shape, n: number, o: ScaleOptions): Promise<ScaleRun> {
  const samples = shape === 'few-tasks' ? Math.ceil(n / 24) : 4;
  const tasks = Math.ceil(n / samples);
  const runDir = mkdtempSync(path.join(dir, `${shape}-${n}-`));
  const tasksFile = taskFile(runDir, tasks);
  const simulator = await startSimulator(runDir, tasksFile);
  const workers: ResultPromise[] = [];
  let workflows: ResultPromise | undefined;
  try {
    if (o.workflowProcess) workflows = (await startWorker(env.address, o.heapMb, 'workflows')).proc;
    const queues = o.workflowProcess ? 'llm,cpu,gpu,sandbox' : undefined;
    for (let i = 0; i < o.workers; i++) workers.push((await startWorker(env.address, o.heapMb, queues)).proc);
    const stateDir = path.join(runDir, 'state');
    mkdirSync(stateDir);
    const config = resolveConfigPaths(
      loopConfigSchema.parse({
        iterations: 1,
        seed: 1,
        stateDir,
        baseCheckpoint: path.join(PROJECT_ROOT, 'configs/checkpoints/sim-base'),
        recipe: { name: RECIPE, dataset: 'mmlu_pro', evalTasks: tasksFile, evalSamples: samples, limit: tasks, maxTurns: 4 },
        // The endpoint's slots shared out between the workers (each limits its own requests in flight).
        server: {
          kind: 'external',
          endpoint: { baseUrl: `${simulator.url}/v1`, model: 'bench-model', maxConcurrency: Math.floor(SLOTS / o.workers) },
        },
        // Shards enough for every worker's 16 llm slots, so the workers share them.
        generation: { shardSize: o.shardSize, concurrency: Math.floor(SLOTS / o.workers), parallelShards: 16 * o.workers },
      }),
      path.join(PROJECT_ROOT, 'bench.yaml'),
    );
    const runName = `scale-${shape}-${n}`;
    const workflowId = iterationWorkflowId(runName, 0);
    const t0 = performance.now();
    const queries = probeQueries(env, workflowId);
    await env.client.workflow.execute('trainingLoop', {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config, evalOnly: true }],
    });
    const wallSeconds = (performance.now() - t0) / 1000;
    const query = await queries();
    const desc = await env.client.workflow.getHandle(workflowId).describe();
    const shards = await shardsByWorker(env, workflowId);
    const sent = shards.reduce((a, s) => a + s.result.calls - s.result.cachedCalls, 0);
    const cached = shards.reduce((a, s) => a + s.result.cachedCalls, 0);
    const figures = workers.map((w) => {
      const mine = shards.filter((s) => s.identity.startsWith(`${w.pid}@`));
      return {
        pid: w.pid!,
        peakRssMb: peakRssMb(w.pid!),
        shards: mine.length,
        conversations: mine.reduce((a, s) => a + s.result.conversations, 0),
      };
    });
    return {
      shape,
      tasks,
      samples,
      conversations: tasks * samples,
      shards: shards.length,
      wallSeconds,
      sent,
      cached,
      callsPerSecond: sent / wallSeconds,
      workers: figures,
      historyEvents: desc.historyLength,
      historyBytes: desc.historySize ?? Number.NaN,
      cacheBytes: bytesUnder(path.join(stateDir, 'llm-cache')),
      query,
      ...(workflows ? { workflowWorkerPeakRssMb: peakRssMb(workflows.pid!) } : {}),
    };
  } finally {
    for (const w of [...workers, ...(workflows ? [workflows] : [])]) w.kill('SIGTERM');
    await Promise.all([...workers, ...(workflows ? [workflows] : [])]);
    simulator.proc.kill('SIGTERM');
    await simulator.proc;
    rmSync(runDir, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export async function benchScale(o: ScaleOptions): Promise<ScaleRun[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCliPath() }, searchAttributes: [...SEARCH_ATTRIBUTES] },
  });
  const runs: ScaleRun[] = [];
  console.log(
    `\nscale — one evaluation-only CoRal iteration (maxTurns 4), ${o.workers} workers with --max-old-space-size=${o.heapMb}, shardSize ${o.shardSize}${o.workflowProcess ? ', workflow tasks in a process of their own' : ''}`,
  );
  console.log(
    `  the simulator: ${SLOTS} in service, ${LATENCY_MS} ms each (ideal ${(SLOTS / (LATENCY_MS / 1000)).toFixed(0)} calls/s); ${os.availableParallelism()} cores for all of them and the Temporal dev server`,
  );
  console.log('  shape        conversations  shards   wall s  sent calls/s  worker peak RSS (shards)          history              cache');
  try {
    for (const n of o.conversations)
      for (const shape of o.shapes) {
        const r = await runOnce(env, dir, shape, n, o);
        runs.push(r);
        const per = r.workers.map((w) => `${w.peakRssMb.toFixed(0)} MB (${w.shards})`).join(', ');
        console.log(
          `  ${`${r.shape} ${r.tasks}×${r.samples}`.padEnd(22)} ${String(r.conversations).padStart(8)} ${String(r.shards).padStart(6)} ${r.wallSeconds.toFixed(1).padStart(8)} ${r.callsPerSecond.toFixed(0).padStart(13)}  ${per.padEnd(32)} ${`${r.historyEvents} events, ${mb(r.historyBytes)}`.padEnd(20)} ${mb(r.cacheBytes)}`,
        );
        console.log(
          `      status query every second: ${r.query.asked} asked, answered in ${r.query.p50Ms.toFixed(0)} ms (median), ${r.query.maxMs.toFixed(0)} ms (slowest), ${r.query.failed} unanswered`,
        );
        if (r.workflowWorkerPeakRssMb !== undefined)
          console.log(
            `      workflow tasks in their own process (--queues workflows): its peak RSS ${r.workflowWorkerPeakRssMb.toFixed(0)} MB`,
          );
      }
    for (const shape of o.shapes) {
      const [base, ...larger] = runs.filter((r) => r.shape === shape);
      for (const r of larger)
        console.log(
          `  calls/s at ${r.conversations} ÷ at ${base.conversations} (${shape}): ${(r.callsPerSecond / base.callsPerSecond).toFixed(3)} (target ≥ 0.9)`,
        );
    }
    return runs;
  } finally {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}
