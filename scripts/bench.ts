// `npm run bench [-- section…] [--clip-model DIR] [scale options, see bench-scale.ts]`: throughput of the generation stage against a local OpenAI-compatible endpoint with a fixed
// latency and capacity, as a ratio of that endpoint's ideal throughput (capacity ÷ latency); Temporal history
// events per iteration, for CoRal and debate; peak worker RSS. Figures are printed, never asserted; each section's
// replace its block in docs/benchmarks.md (bench-figures.ts), which says what every section measures.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Command } from 'commander';
import { defaultPayloadConverter } from '@temporalio/common';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loopConfigSchema } from '../configs/schema';
import { loadConfig, resolveConfigPaths } from '../configs/load';
import type { LoopResult } from '../workflows/loop';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';
import { startOpenAICompatibleServer } from '../activities/serving/openai-compatible-server';
import { recipeDefinition, recipeSchema } from '../activities/recipes/registry';
import { recipeRuntime } from '../activities/recipes/runtime';
import { iterationWorkflowId, loopWorkflowId, SEARCH_ATTRIBUTES } from '../contracts/messages';
import { TASK_QUEUES } from '../contracts/run';
import { createWorkers, runWorkers } from '../workers/run-worker';
import { installWorkerLogging } from '../workers/logging';
import { gradeMathAnswer } from '../activities/recipes/shared/math-equivalence';
import { sympyStats } from '../activities/recipes/shared/symbolic-equal';
import { temporalCliPath } from '../cli/temporal-cli';
import { cliAction, UserError } from '../cli/user-error';
import { clipCheckpointProblem } from '../activities/render/clip-checkpoint';
import type { S3Server } from '../cli/stack/seaweedfs';
import { recordFigures } from './bench-figures';
import { BENCH_SECTIONS, PEAK_RSS, TEMPORAL_SECTIONS, type TemporalSection } from './bench-sections';
import type { ScaleOptions, Shape } from './bench-scale';
import { exitClosingCaches } from '../activities/llm/opened-caches';

const LATENCY_MS = 100;
const CAPACITY = 32;

interface GenerationBench {
  label: string;
  /** The recipe section (evalTasks absolute); the endpoint answers from that recipe's SIMULATED policy. */
  recipe: Record<string, unknown>;
  /** Also build training data (the train split: CollabLLM's candidates, futures and judges), not only evaluate. */
  build?: boolean;
}

/** Calls and conversations of one split's shards, read back from the iteration's history (ShardResult of runShard). */
async function splitUsage(env: TestWorkflowEnvironment, workflowId: string, split: 'eval' | 'train') {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const decode = (p: unknown) => defaultPayloadConverter.fromPayload<Record<string, unknown>>(p as never);
  const splitOf = new Map<string, string>();
  let calls = 0;
  let conversations = 0;
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name === 'runShard' && s.input?.payloads?.[0])
      splitOf.set(String(e.eventId), (decode(s.input.payloads[0]).shard as { split: string }).split);
    const done = e.activityTaskCompletedEventAttributes;
    if (done?.result?.payloads?.[0] && splitOf.get(String(done.scheduledEventId)) === split) {
      const r = decode(done.result.payloads[0]) as { calls: number; conversations: number };
      calls += r.calls;
      conversations += r.conversations;
    }
  }
  return { calls, conversations };
}

/** One evaluation iteration of a recipe against the endpoint; prints its figures. */
async function benchGeneration(env: TestWorkflowEnvironment, b: GenerationBench): Promise<void> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-bench-'));
  const recipe = recipeSchema.parse(b.recipe);
  const definition = recipeDefinition(recipe.name);
  const policy = definition.simulator.policy([{ file: recipe.evalTasks, kind: definition.simulator.taskKind(recipe) }], { skill: 0.6 });
  const server = await startOpenAICompatibleServer({ modelName: 'bench-model', policy, latencyMs: LATENCY_MS, capacity: CAPACITY });
  const runName = `bench-${b.label}`;
  try {
    const config = resolveConfigPaths(
      loopConfigSchema.parse({
        name: runName,
        iterations: 1,
        seed: 1,
        stateDir,
        baseCheckpoint: path.join(PROJECT_ROOT, 'configs/checkpoints/sim-base'),
        recipe: b.recipe,
        server: { kind: 'external', endpoint: { baseUrl: `${server.url}/v1`, model: 'bench-model', maxConcurrency: 64 } },
        generation: { shardSize: 12, concurrency: 64 },
      }),
      path.join(PROJECT_ROOT, 'bench.yaml'),
    );
    const workers = await createWorkers({ connection: env.nativeConnection });
    let first = 0;
    let last = 0;
    let lastCompleted = 0;
    const probe = setInterval(() => {
      const s = server.stats();
      if (!first && s.received > 0) first = performance.now();
      if (s.completed !== lastCompleted) {
        lastCompleted = s.completed;
        last = performance.now();
      }
    }, 20);
    const t0 = performance.now();
    await runWorkers(
      workers,
      env.client.workflow.execute('trainingLoop', {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config, evalOnly: !b.build }],
      }),
    );
    clearInterval(probe);
    const wall = (performance.now() - t0) / 1000;
    const genSeconds = (last - first) / 1000;
    const stats = server.stats();
    const runtime = await recipeRuntime(config);
    const splits = b.build ? (['eval', 'train'] as const) : (['eval'] as const);
    const conversations = splits.reduce((a, split) => a + runtime.taskCount(split) * runtime.samplesPerTask(split), 0);
    const ideal = CAPACITY / (LATENCY_MS / 1000);
    const callsPerS = stats.completed / genSeconds;
    const convPerS = conversations / genSeconds;
    const callsPerConv = stats.completed / conversations;
    const iterHistory = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).fetchHistory();
    const loopHistory = await env.client.workflow.getHandle(loopWorkflowId(runName)).fetchHistory();
    console.log(`\n${b.label} — endpoint latency ${LATENCY_MS} ms, capacity ${CAPACITY} (ideal ${ideal.toFixed(0)} calls/s)`);
    console.log(`  conversations            ${conversations} (${callsPerConv.toFixed(2)} LLM calls each)`);
    console.log(`  generation time          ${genSeconds.toFixed(2)} s (whole eval iteration ${wall.toFixed(2)} s)`);
    console.log(`  LLM calls/s              ${callsPerS.toFixed(1)}   ratio to ideal ${(callsPerS / ideal).toFixed(3)}`);
    console.log(`  conversations/s          ${convPerS.toFixed(2)}   ratio to ideal ${(convPerS / (ideal / callsPerConv)).toFixed(3)}`);
    console.log(`  endpoint max in service  ${stats.maxInFlight} (capacity ${CAPACITY})`);
    console.log(`  history events          iteration ${iterHistory.events?.length ?? 0}, loop ${loopHistory.events?.length ?? 0}`);
    if (b.build) {
      const built = await splitUsage(env, iterationWorkflowId(runName, 0), 'train');
      console.log(
        `  built conversations      ${built.conversations}: ${(built.calls / built.conversations).toFixed(1)} LLM calls each (candidates, futures, judges)`,
      );
    }
  } finally {
    await server.close();
  }
}

/** Runs a documented config (a dry run) to its end on the bench's dev server, with in-process workers. */
async function runConfig(env: TestWorkflowEnvironment, file: string, overrides: string[], evalOnly = false) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-bench-'));
  const { config, runName } = loadConfig(path.join(PROJECT_ROOT, file), { overrides: [`stateDir=${stateDir}`, ...overrides] });
  const workers = await createWorkers({ connection: env.nativeConnection });
  const t0 = performance.now();
  const result = (await runWorkers(
    workers,
    env.client.workflow.execute('trainingLoop', {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config, evalOnly }],
    }),
  )) as LoopResult;
  return { config, runName, result, wall: (performance.now() - t0) / 1000 };
}

/** The documented debate dry run (configs/debate.dry-run.yaml: six trained roles, parallel stand-in trainers, one
 *  simulator per distinct checkpoint): what a society of models costs in workflow history per iteration. */
async function benchModelRoles(env: TestWorkflowEnvironment): Promise<void> {
  const { runName, result, wall } = await runConfig(env, 'configs/debate.dry-run.yaml', []);
  const events = async (id: string) => (await env.client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
  const perIteration = await Promise.all(result.iterations.map((it) => events(iterationWorkflowId(runName, it.iteration))));
  const roles = Object.values(result.iterations[0].models ?? {});
  const trained = roles.filter((m) => m.kind === 'trained').length;
  console.log(`
debate model roles — configs/debate.dry-run.yaml (${result.iterations.length} iterations, simulator, stand-in trainer)`);
  console.log(`  model roles             ${roles.length} (${trained} trained, each its own checkpoint chain)`);
  console.log(`  history events          ${perIteration.map((n, i) => `iteration ${i} ${n}`).join(', ')} (one train activity per role)`);
  console.log(`  whole loop              ${wall.toFixed(1)} s`);
}

/** TOA against its five baselines at the same budget N on the documented dry run (configs/toa.dry-run.yaml: four
 *  SIMULATED policies of seeded quality 0.3 / 0.45 / 0.6 / 0.75, a judge reading it): mean best and top-10 reward. */
async function benchToaMethods(env: TestWorkflowEnvironment): Promise<void> {
  const { config, result, wall } = await runConfig(
    env,
    'configs/toa.dry-run.yaml',
    ['iterations=1', 'recipe.limit=12', 'recipe.samples=10', 'recipe.evalSamples=3', 'recipe.topK=10'],
    true,
  );
  const m = result.iterations[0].metrics;
  const recipe = config.recipe as { samples: number; policies: number; compare: string[]; singlePolicy: number };
  console.log(`
toa methods — configs/toa.dry-run.yaml, N = ${recipe.samples * recipe.policies} calls per prompt for every method, ${m.prompts} prompts (simulator, judge 1–10)`);
  console.log(`  method       mean best   mean top-10   TFLOPs/prompt   (random and prs: policy_${recipe.singlePolicy} alone)`);
  for (const method of recipe.compare)
    console.log(
      `  ${method.padEnd(12)} ${m[`${method}/best_reward`].toFixed(3).padStart(9)}   ${m[`${method}/topk_reward`].toFixed(3).padStart(11)}   ${m[`${method}/tflops`].toFixed(1).padStart(13)}`,
    );
  console.log(`  whole evaluation        ${wall.toFixed(1)} s`);
}

/** The MATH grader's symbolic step (sympy in one helper process): its start, then 1,000 distinct answers that each
 *  reach sympy (a fraction against its decimal, a factored against an expanded polynomial), then the same again
 *  from the memo. */
async function benchMathGrading(): Promise<void> {
  const t0 = performance.now();
  gradeMathAnswer('x+1', '1+x'); // starts the helper
  const start = performance.now() - t0;
  const before = sympyStats().asked;
  const pairs = Array.from({ length: 1000 }, (_, i) =>
    i % 2 ? ([`\\frac{${i}}{${i + 2}}`, String(i / (i + 2))] as const) : ([`(x+${i})(x-1)`, `x^2+${i - 1}x-${i}`] as const),
  );
  const t1 = performance.now();
  let equal = 0;
  for (const [pred, gold] of pairs) if (gradeMathAnswer(pred, gold)) equal++;
  const fresh = performance.now() - t1;
  const asked = sympyStats().asked - before;
  const t2 = performance.now();
  for (const [pred, gold] of pairs) gradeMathAnswer(pred, gold);
  const memo = performance.now() - t2;
  console.log(`
math grading — the symbolic step (activities/recipes/shared/sympy_equal.py, one long-lived helper)`);
  console.log(`  helper start             ${start.toFixed(0)} ms (python3 + import sympy, once per worker process)`);
  console.log(
    `  1,000 answers            ${fresh.toFixed(0)} ms (${asked} reached sympy, ${equal} equal), ${(fresh / asked).toFixed(2)} ms each`,
  );
  console.log(`  the same 1,000 again     ${memo.toFixed(1)} ms (memoised)`);
}

/** A SeaweedFS server on this machine for `work`, with this process's AWS_* variables pointing at it meanwhile. */
async function withS3Server<T>(work: (s3: S3Server) => Promise<T>): Promise<T> {
  const { startS3Server } = await import('../cli/stack/seaweedfs');
  const s3 = await startS3Server();
  const saved = { ...process.env };
  Object.assign(process.env, s3.env);
  try {
    return await work(s3);
  } finally {
    process.env = saved;
    await s3.stop();
  }
}

const s3Overrides = (s3: S3Server, prefix = '') => [
  'storage.kind=s3',
  `storage.bucket=${s3.bucket}`,
  `storage.endpoint=${s3.endpoint}`,
  ...(prefix ? [`storage.prefix=${prefix}`] : []),
];

/** One dry-run iteration of CoRal (configs/coral.dry-run.yaml: generation, evaluation, data, the stand-in trainer,
 *  deploy) with the run's bytes in this machine's state dir, then in an S3 bucket on a local SeaweedFS: artifacts,
 *  manifests, the cached answers (one journal object per batch) and the checkpoint's upload (its training host
 *  serves it from its cache, so no fetch). */
async function benchS3Overhead(env: TestWorkflowEnvironment): Promise<void> {
  await withS3Server(async (s3) => {
    const file = 'configs/coral.dry-run.yaml';
    const base = ['iterations=2'];
    await runConfig(env, file, base); // warm-up: module loading, the first simulator start
    const local = await runConfig(env, file, base);
    const remote = await runConfig(env, file, [...base, ...s3Overrides(s3)]);
    const tokens = local.result.iterations.reduce((a, it) => a + it.tokens, 0);
    console.log(`
s3 overhead — ${file}, ${local.result.iterations.length} iterations (${tokens} tokens of LLM calls, stand-in trainer, checkpoint upload), SeaweedFS on this machine`);
    console.log(`  local state dir          ${local.wall.toFixed(1)} s`);
    console.log(`  S3 bucket                ${remote.wall.toFixed(1)} s   ratio ${(remote.wall / local.wall).toFixed(2)} to local`);
  });
}

const STORAGE_OUTAGE_MS = 30_000;

/** The CoRal dry run on S3 twice: undisturbed, then with SeaweedFS killed a quarter of the way in (during
 *  generation), kept down 30 s and started again on the same data and port. What the outage adds to the wall time
 *  against how long the store was unavailable (the 30 s plus SeaweedFS's own restart): the rest is what the run
 *  loses to noticing the store is back (outage-retry.ts backs off up to 2 s) and to work redone. */
async function benchStorageOutage(env: TestWorkflowEnvironment): Promise<void> {
  await withS3Server(async (s3) => {
    const file = 'configs/coral.dry-run.yaml';
    const base = ['iterations=2'];
    await runConfig(env, file, [...base, ...s3Overrides(s3, 'warm-up')]); // module loading, the first simulator start
    const calm = await runConfig(env, file, [...base, ...s3Overrides(s3, 'calm')]);
    let unavailableS = 0;
    let outage: Promise<void> | undefined;
    const timer = setTimeout(
      () => {
        outage = (async () => {
          const t0 = performance.now();
          await s3.halt();
          await new Promise((r) => setTimeout(r, STORAGE_OUTAGE_MS));
          await s3.resume();
          unavailableS = (performance.now() - t0) / 1000;
        })();
      },
      (calm.wall * 1000) / 4,
    );
    const stormy = await runConfig(env, file, [...base, ...s3Overrides(s3, 'outage')]);
    clearTimeout(timer);
    await outage;
    console.log(`
storage outage — ${file}, ${calm.result.iterations.length} iterations on S3 (SeaweedFS on this machine), the store killed ${STORAGE_OUTAGE_MS / 1000} s a quarter of the way in`);
    console.log(`  without an outage        ${calm.wall.toFixed(1)} s`);
    console.log(
      `  with the outage          ${stormy.wall.toFixed(1)} s   ratio ${(stormy.wall / calm.wall).toFixed(2)}, +${(stormy.wall - calm.wall).toFixed(1)} s`,
    );
    console.log(
      `  store unavailable        ${unavailableS.toFixed(1)} s (${STORAGE_OUTAGE_MS / 1000} s down + SeaweedFS restart); the run needed no one`,
    );
  });
}

/** The sections that share the bench's Temporal dev server (bench-sections.ts lists them in the order they run);
 *  `npm run bench -- <name…>` runs only those named. */
const SECTIONS: Record<TemporalSection, (env: TestWorkflowEnvironment) => Promise<void>> = {
  coral: (env) =>
    benchGeneration(env, {
      label: 'coral',
      recipe: {
        name: 'coral',
        dataset: 'mmlu_pro',
        evalTasks: path.join(PROJECT_ROOT, 'configs/tasks/coral-demo/mmlu_pro.jsonl'),
        maxTurns: 6,
        maxTokens: 256,
        evalSamples: 20,
        evalTemperature: 0.7,
      },
    }),
  debate: (env) =>
    benchGeneration(env, {
      label: 'debate',
      recipe: {
        name: 'debate',
        dataset: 'math',
        evalTasks: path.join(PROJECT_ROOT, 'configs/tasks/debate/math.jsonl'),
        agents: 3,
        rounds: 2,
        evalSamples: 20,
        maxTokens: 256,
      },
    }),
  'collabllm-build': (env) =>
    benchGeneration(env, {
      label: 'collabllm-build',
      build: true,
      recipe: {
        name: 'collabllm',
        task: 'math',
        evalTasks: path.join(PROJECT_ROOT, 'configs/tasks/collabllm/math.jsonl'),
        trainTasks: path.join(PROJECT_ROOT, 'configs/tasks/collabllm/math.jsonl'),
        candidates: 3,
        maxMessages: 10,
        evalSamples: 4,
        trainSamples: 8,
      },
    }),
  // Many prompts searched at once: each search is sequential (play after play), the endpoint is kept busy by the
  // number of searches in flight.
  'toa-search': (env) =>
    benchGeneration(env, {
      label: 'toa-search',
      recipe: {
        name: 'toa',
        task: 'instruction',
        evalTasks: path.join(PROJECT_ROOT, 'configs/tasks/toa/instructions.jsonl'),
        policies: 4,
        samples: 4,
        compare: ['toa'],
        search: { tau: 2 },
        flops: Object.fromEntries([0, 1, 2, 3].map((k) => [`policy_${k}`, { params: 8e9 }])),
        evalSamples: 16,
      },
    }),
  'toa-methods': benchToaMethods,
  'math-grading': benchMathGrading,
  'model-roles': benchModelRoles,
  's3-overhead': benchS3Overhead,
  'storage-outage': benchStorageOutage,
};

interface BenchOptions {
  /** clip-vs-default: the CLIP checkpoint directory (default models/tiny-clip, random weights). */
  clipModel?: string;
  /** cache-index: entries written to the index. */
  entries: number;
  scale: ScaleOptions;
}

async function runBench(only: string[], opts: BenchOptions): Promise<void> {
  const unknown = only.filter((name) => !BENCH_SECTIONS.includes(name));
  if (unknown.length) throw new Error(`bench: no section ${unknown.join(', ')} (sections: ${BENCH_SECTIONS.join(', ')})`);
  const wanted = (name: string) => only.length === 0 || only.includes(name);
  // Each section's printed figures replace its block in docs/benchmarks.md.
  const section = (name: string, work: () => Promise<void>) =>
    wanted(name) ? recordFigures(name, `npm run bench -- ${name}`, work) : Promise.resolve();
  if (TEMPORAL_SECTIONS.some(wanted)) await benchWithTemporal(wanted, section);
  // ColBench scoring: the sandbox and the renderer, each against a bare baseline measured in the same run.
  await section('sandbox', async () => {
    const { benchSandbox } = await import('./bench-sandbox');
    const sb = await benchSandbox();
    console.log(
      `  sandboxed executions/s   ${sb.sandboxedPerSecond.toFixed(1)} vs bare python3 ${sb.barePerSecond.toFixed(1)}   ratio ${sb.ratio.toFixed(3)} (${sb.runs} runs, concurrency 2)`,
    );
    console.log(
      `  numpy import per run     ${sb.numpyImportMs.toFixed(0)} ms (median run ${sb.numpyMedianMs.toFixed(0)} ms with numpy, ${sb.sandboxedMedianMs.toFixed(0)} ms without)`,
    );
  });
  await section('render', async () => {
    const { benchRender } = await import('./bench-render');
    const rb = await benchRender();
    console.log(
      `  renders/s                ${rb.poolPerSecond.toFixed(1)} vs plain playwright loop ${rb.barePerSecond.toFixed(1)}   ratio ${rb.ratio.toFixed(3)} (${rb.renders} renders)`,
    );
  });
  await section('clip-vs-default', async () => {
    const { benchClipVsDefault } = await import('./bench-clip');
    await benchClipVsDefault(opts.clipModel);
  });
  await section('llm-cpu', async () => {
    const { benchLlmCpu } = await import('./bench-llm-cpu');
    const b = await benchLlmCpu();
    const { worker: w, plain: p, plainHttp: h, plainSdk: k } = b;
    console.log(
      `\nllm-cpu — a \`collab-loop worker --queues llm --metrics-port\` process running generation shards (debate single, ${w.calls} calls: request cache, records, heartbeats, metrics) vs a plain client behind a semaphore, each in its own process, ${b.inFlight} in flight, one lean ${b.latencyMs} ms endpoint process`,
    );
    console.log(
      `  CPU per call             worker ${w.cpuMsPerCall.toFixed(3)} ms vs plain fetch client ${p.cpuMsPerCall.toFixed(3)} ms   ratio ${(w.cpuMsPerCall / p.cpuMsPerCall).toFixed(2)} (target ≤ 1.10)`,
    );
    console.log(
      `  calls/s                  worker ${w.callsPerSecond.toFixed(0)} vs plain fetch client ${p.callsPerSecond.toFixed(0)}   ratio ${(w.callsPerSecond / p.callsPerSecond).toFixed(3)} (target ≥ 1; ideal ${(b.inFlight / (b.latencyMs / 1000)).toFixed(0)})`,
    );
    console.log(
      `  plain node:http client   ${h.cpuMsPerCall.toFixed(3)} ms per call, ${h.callsPerSecond.toFixed(0)} calls/s (the worker's transport, without the worker)`,
    );
    console.log(
      `  plain openai SDK client  ${k.cpuMsPerCall.toFixed(3)} ms per call, ${k.callsPerSecond.toFixed(0)} calls/s (the worker's SDK client on that transport, without the worker: the SDK's own share is this minus node:http)`,
    );
    console.log(
      `  endpoint                 ${w.endpointCpuMsPerCall.toFixed(3)} / ${p.endpointCpuMsPerCall.toFixed(3)} / ${h.endpointCpuMsPerCall.toFixed(3)} / ${k.endpointCpuMsPerCall.toFixed(3)} ms CPU per call, max in flight ${w.endpointMaxInFlight} / ${p.endpointMaxInFlight} / ${h.endpointMaxInFlight} / ${k.endpointMaxInFlight} (worker / fetch / node:http / SDK)`,
    );
    console.log(
      `  (${b.cores} cores shared by the client measured, the endpoint, the Temporal dev server and this process's workflow worker: calls/s is bounded by CPU, not by the endpoint; the worker's request cache is on ${os.tmpdir()}: TMPDIR picks its filesystem)`,
    );
  });
  await section('cache-index', async () => {
    const { benchCacheIndex } = await import('./bench-cache-index');
    await benchCacheIndex(opts.entries);
  });
  await section('object-store', async () => {
    const { benchObjectStore } = await import('./bench-object-store');
    await benchObjectStore();
  });
  await section('scale', async () => {
    const { benchScale } = await import('./bench-scale');
    await benchScale(opts.scale);
  });
  await section('shared-limits', async () => {
    const { benchSharedLimits } = await import('./bench-shared-limits');
    const b = await benchSharedLimits();
    console.log(
      `\nshared-limits — 2 processes, ${b.waiters} calls waiting, one endpoint: maxConcurrency ${b.limit} shared through Redis, ${b.latencyMs} ms per request`,
    );
    const ratio = (r: { callsPerSecond: number }) => (r.callsPerSecond / b.ideal).toFixed(3);
    console.log(
      `  shared through Redis     ${b.shared.callsPerSecond.toFixed(1)} calls/s vs ideal ${b.ideal.toFixed(0)} (limit ÷ latency)   ratio ${ratio(b.shared)}, peak in service ${b.shared.peak} (${b.calls} calls)`,
    );
    console.log(
      `  each its own limit ÷ 2   ${b.split.callsPerSecond.toFixed(1)} calls/s   ratio ${ratio(b.split)}, peak ${b.split.peak} (no Redis: what this machine's CPU allows)`,
    );
  });
}

async function benchWithTemporal(
  wanted: (name: string) => boolean,
  section: (name: string, work: () => Promise<void>) => Promise<void>,
): Promise<void> {
  installWorkerLogging('WARN');
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCliPath() }, searchAttributes: [...SEARCH_ATTRIBUTES] },
  });
  console.log('\ncollab-loop bench: generation against a local OpenAI-compatible endpoint (SIMULATED policies)');
  try {
    for (const name of TEMPORAL_SECTIONS) await section(name, () => SECTIONS[name](env));
    const ran = TEMPORAL_SECTIONS.filter(wanted);
    const command = ran.length === TEMPORAL_SECTIONS.length ? 'npm run bench' : `npm run bench -- ${ran.join(' ')}`;
    await recordFigures(PEAK_RSS, command, async () =>
      console.log(
        `\n  peak RSS                 ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (workers, endpoint and bench in one process: ${ran.join(', ')})`,
      ),
    );
  } finally {
    await env.teardown();
  }
}

interface BenchFlags {
  clipModel?: string;
  entries: number;
  conversations: number[];
  workers: number;
  heapMb: number;
  shardSize: number;
  shape: Shape[];
  workflowProcess?: boolean;
}

function positiveInt(v: string): number {
  const n = Number(v.replaceAll('_', ''));
  if (!Number.isInteger(n) || n < 1) throw new UserError(`"${v}" is not a positive integer`);
  return n;
}
// Commander's default is replaced by the first value given, then each further one is added.
function positiveInts(v: string, prev: number[]): number[] {
  return prev === SCALE_DEFAULT_SIZES ? [positiveInt(v)] : [...prev, positiveInt(v)];
}
function shapes(v: string, prev: Shape[]): Shape[] {
  if (v !== 'few-tasks' && v !== 'many-tasks') throw new UserError(`--shape: "${v}" is not few-tasks or many-tasks`);
  return prev === SCALE_DEFAULT_SHAPES ? [v] : [...prev, v];
}
const SCALE_DEFAULT_SIZES = [10_000, 100_000];
const SCALE_DEFAULT_SHAPES: Shape[] = ['few-tasks', 'many-tasks'];

await new Command('npm run bench --')
  .argument('[sections...]', 'only these sections (e.g. toa-search toa-methods); default all')
  .description("throughput and footprint figures; each section's replace its block in docs/benchmarks.md")
  .option('--clip-model <dir>', 'clip-vs-default: a CLIP checkpoint directory (default models/tiny-clip, random weights)')
  .option('--entries <n>', 'cache-index: entries written to the index', positiveInt, 10_000_000)
  .option('--conversations <n...>', 'scale: conversations per iteration, one run (per shape) each', positiveInts, SCALE_DEFAULT_SIZES)
  .option('--workers <n>', 'scale: worker processes sharing the shards', positiveInt, 2)
  .option('--heap-mb <n>', "scale: each worker's --max-old-space-size", positiveInt, 768)
  .option('--shard-size <n>', 'scale: generation.shardSize (conversations per shard)', positiveInt, 1000)
  .option('--workflow-process', 'scale: workflow tasks in a `collab-loop worker --queues workflows` process of their own')
  .option(
    '--shape <shape...>',
    'scale: few-tasks (24 tasks × many samples) and/or many-tasks (many tasks × 4 samples)',
    shapes,
    SCALE_DEFAULT_SHAPES,
  )
  .showHelpAfterError()
  .action(
    cliAction(async (sections: string[], o: BenchFlags) => {
      const clipModel = o.clipModel && path.resolve(o.clipModel);
      const problem = clipModel && clipCheckpointProblem(clipModel);
      if (problem) throw new UserError(`--clip-model: ${problem}`);
      const scale = {
        conversations: o.conversations,
        workers: o.workers,
        heapMb: o.heapMb,
        shardSize: o.shardSize,
        shapes: o.shape,
        workflowProcess: !!o.workflowProcess,
      };
      await runBench(sections, { clipModel, entries: o.entries, scale });
    }),
  )
  .parseAsync(process.argv);
// Temporal's native runtime and the servers the sections start can keep the event loop alive after the figures are
// printed; the work is done, so leave.
await exitClosingCaches(process.exitCode ?? 0);
