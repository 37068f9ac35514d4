// Throughput of the Python sandbox against no isolation at all, on ColBench's unit of work: one candidate function
// and 5 test calls, evaluated by the same runner script (activities/sandbox/runners/evaluate_calls.py). Both sides
// write the files to a fresh temp dir and run them at concurrency 2 (this machine class has two cores); the bare
// side is a plain `/usr/bin/python3 evaluate_calls.py` subprocess (default flags), which is what an evaluator
// without a sandbox would do. Figures are returned for `npm run bench` to print, never asserted.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSandboxedPython, SANDBOX_PYTHON } from '../activities/sandbox/python-sandbox';

const RUNNER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'activities', 'sandbox', 'runners', 'evaluate_calls.py');
const SOLUTION = [
  'def running_max(xs, window):',
  '    out = []',
  '    for i in range(len(xs)):',
  '        lo = max(0, i - window + 1)',
  '        out.append(max(xs[lo:i + 1]))',
  '    return out',
  '',
].join('\n');
/** The same work through numpy (one of the sandbox's packages): its import is what a numpy task adds to every run. */
const NUMPY_SOLUTION = [
  'import numpy as np',
  'def running_max(xs, window):',
  '    a = np.asarray(xs)',
  '    return [int(a[max(0, i - window + 1):i + 1].max()) for i in range(len(a))]',
  '',
].join('\n');
const NUMPY_RUNS = 40;
const TESTS = [
  'running_max([1, 3, 2, 5, 4], 2)',
  'running_max([], 3)',
  'running_max([7], 1)',
  'running_max(list(range(50)), 5)',
  'running_max([5, 4, 3, 2, 1], 3)',
];
/** Slots far from the worker's (0..n) and the tests' (100..199), so a bench never shares a uid with them. */
const SLOTS = [200, 201];
const CONCURRENCY = 2;

export interface SandboxBench {
  /** Sandboxed runs per second at concurrency 2. */
  sandboxedPerSecond: number;
  /** Unisolated runs per second at concurrency 2 (`/usr/bin/python3 script`, default flags). */
  barePerSecond: number;
  /** sandboxedPerSecond / barePerSecond. */
  ratio: number;
  /** Runs per side. */
  runs: number;
  /** Unisolated with the sandbox's interpreter flags (-I -S -B): isolates the cost of the isolation layers alone. */
  bareSameFlagsPerSecond: number;
  ratioSameFlags: number;
  /** Median latency of one run, ms. */
  sandboxedMedianMs: number;
  bareMedianMs: number;
  /** Median latency of a sandboxed run whose solution imports numpy, ms; minus sandboxedMedianMs: numpy's import. */
  numpyMedianMs: number;
  numpyImportMs: number;
}

function spawnBare(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(SANDBOX_PYTHON, args, { cwd, env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString('latin1')) : reject(new Error(`bare python exited ${code}`)),
    );
  });
}

async function bareRun(runner: string, flags: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'collab-loop-bare-'));
  try {
    await writeFile(path.join(dir, 'evaluate_calls.py'), runner);
    await writeFile(path.join(dir, 'solution.py'), SOLUTION);
    await writeFile(path.join(dir, 'tests.txt'), TESTS.join('\0'));
    return await spawnBare([...flags, 'evaluate_calls.py', '1', '262144'], dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function sandboxRun(runner: string, slot: number, solution = SOLUTION): Promise<string> {
  const r = await runSandboxedPython({
    files: { 'evaluate_calls.py': runner, 'solution.py': solution, 'tests.txt': TESTS.join('\0') },
    script: 'evaluate_calls.py',
    args: ['1', '262144'],
    slot,
  });
  if (r.exitCode !== 0) throw new Error(`sandboxed run failed: exit ${r.exitCode ?? r.signal}: ${r.stderr}`);
  return r.stdoutBytes.toString('latin1');
}

/** Runs `job` `runs` times over `CONCURRENCY` lanes; returns the elapsed seconds and each run's latency. */
async function batch(
  runs: number,
  job: (lane: number) => Promise<string>,
): Promise<{ seconds: number; latencies: number[]; output: string }> {
  const latencies: number[] = [];
  let next = 0;
  let output = '';
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      while (next < runs) {
        next++;
        const t0 = performance.now();
        output = await job(lane);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies, output };
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `runs` runs per side, interleaved in batches of 10 so that load from elsewhere on the machine (other test
 * suites, builds) falls on all sides alike.
 */
export async function benchSandbox(runs = 200): Promise<SandboxBench> {
  const runner = await readFile(RUNNER, 'utf8');
  const sides = {
    sandboxed: (lane: number) => sandboxRun(runner, SLOTS[lane]),
    bare: () => bareRun(runner, []),
    bareSameFlags: () => bareRun(runner, ['-I', '-S', '-B']),
  };
  type Side = keyof typeof sides;
  const totals = {
    sandboxed: { seconds: 0, latencies: [] as number[] },
    bare: { seconds: 0, latencies: [] as number[] },
    bareSameFlags: { seconds: 0, latencies: [] as number[] },
  };
  // Warm-up: page cache, the sandbox's one-time self-check.
  const warm = { sandboxed: (await batch(6, sides.sandboxed)).output, bare: (await batch(6, sides.bare)).output };
  if (warm.sandboxed !== warm.bare) throw new Error('benchSandbox: the sandboxed and the bare run disagree on the results');
  const BATCH = 10;
  for (let done = 0; done < runs; done += BATCH) {
    for (const side of Object.keys(sides) as Side[]) {
      const b = await batch(Math.min(BATCH, runs - done), sides[side]);
      totals[side].seconds += b.seconds;
      totals[side].latencies.push(...b.latencies);
    }
  }
  const numpy = await batch(NUMPY_RUNS, (lane) => sandboxRun(runner, SLOTS[lane], NUMPY_SOLUTION));
  if (numpy.output !== warm.sandboxed) throw new Error('benchSandbox: the numpy solution disagrees with the plain one');
  const perSecond = (side: Side) => totals[side].latencies.length / totals[side].seconds;
  return {
    sandboxedPerSecond: round(perSecond('sandboxed')),
    barePerSecond: round(perSecond('bare')),
    ratio: round(perSecond('sandboxed') / perSecond('bare'), 3),
    runs,
    bareSameFlagsPerSecond: round(perSecond('bareSameFlags')),
    ratioSameFlags: round(perSecond('sandboxed') / perSecond('bareSameFlags'), 3),
    sandboxedMedianMs: round(median(totals.sandboxed.latencies)),
    bareMedianMs: round(median(totals.bare.latencies)),
    numpyMedianMs: round(median(numpy.latencies)),
    numpyImportMs: round(median(numpy.latencies) - median(totals.sandboxed.latencies)),
  };
}

// `npx tsx scripts/bench-sandbox.ts` prints the figures on its own.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  benchSandbox().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
