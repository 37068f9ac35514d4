// CollabLLM's pass_rate for code tasks (Wuyxin/collabllm examples/metrics/pass_rate.py, which calls BigCodeBench's
// untrusted_check) on the project's Python sandbox: the candidate and the task's unittest source run together in one
// sandboxed interpreter (runners/run_unittests.py), and the verdict is BigCodeBench's: passed iff no test failed or
// errored — and, here, at least one ran. Bad code (syntax errors, crashes, loops, exits) only fails the run, with a
// detail; a sandbox that cannot start throws SandboxConfigError.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripPythonFence } from './code-tests';
import { runSandboxedPython, type SandboxIsolation, type SandboxResult } from './python-sandbox';

export interface UnitTestsInput {
  /** The candidate: Python source, optionally inside a ```python fence. */
  code: string;
  /** Python unittest source defining class TestCases. */
  test: string;
  /** When given, the code must define this callable (BigCodeBench: task_func), else the run fails up front. */
  entryPoint?: string;
  /** Wall-clock limit for loading the code and running the whole suite. The seed allows 60 s; default 10 s. */
  timeoutSeconds?: number;
  /** Sandbox slot (uid 60000 + slot). */
  slot?: number;
  isolation?: SandboxIsolation;
}

export interface UnitTestsResult {
  /** Every test passed and at least one ran. */
  passed: boolean;
  testsRun: number;
  failures: number;
  errors: number;
  /** Why it did not pass (absent when it did). */
  detail?: string;
}

export const DEFAULT_UNIT_TEST_TIMEOUT_SECONDS = 10;

/** The runner as recipes receive it (GenerationServices.runUnitTests). */
export type RunUnitTests = (o: UnitTestsInput) => Promise<UnitTestsResult>;

const RUNNER = 'run_unittests.py';
let runnerSource: string | undefined;
const runner = () => (runnerSource ??= readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'runners', RUNNER), 'utf8'));

interface Report {
  started: string[];
  ended: Set<string>;
  issues: Array<{ kind: 'failure' | 'error'; test: string; detail: string }>;
  fatal?: string;
  done?: { run: number; failures: number; errors: number; tampered?: string };
}

const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 1000) : '');

/** The runner's JSON lines; anything else on the channel is ignored. The first `fatal` or `done` ends the report. */
function parseReport(stdout: string): Report {
  const r: Report = { started: [], ended: new Set(), issues: [] };
  for (const line of stdout.split('\n')) {
    if (r.fatal !== undefined || r.done) break;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    if (!o || typeof o !== 'object') continue;
    if (typeof o.start === 'string') r.started.push(o.start);
    else if (typeof o.end === 'string') r.ended.add(o.end);
    else if (o.issue === 'failure' || o.issue === 'error') r.issues.push({ kind: o.issue, test: str(o.test), detail: str(o.detail) });
    else if (typeof o.fatal === 'string') r.fatal = str(o.fatal);
    else if (o.done === true)
      r.done = {
        run: count(o.run),
        failures: count(o.failures),
        errors: count(o.errors),
        ...(typeof o.tampered === 'string' ? { tampered: str(o.tampered) } : {}),
      };
  }
  return r;
}

/** Why a run stopped without a verdict. */
function howItEnded(r: SandboxResult, wallSeconds: number): string {
  if (r.timedOut) return `timed out after ${wallSeconds} s`;
  if (r.truncated) return 'output limit reached';
  if (r.signal === 'SIGXCPU') return 'CPU time limit reached';
  if (r.signal) return `killed by ${r.signal}`;
  const err = r.stderr.trim().split('\n').pop()?.slice(0, 200);
  if (r.exitCode !== 0) return `exit code ${r.exitCode}${err ? `: ${err}` : ''}`;
  return 'the run ended before the suite finished';
}

function firstIssue(issues: Report['issues']): string {
  const [first, ...rest] = issues;
  if (!first) return '';
  return `${first.test} ${first.kind === 'failure' ? 'failed' : 'errored'}: ${first.detail}${rest.length ? ` (+${rest.length} more)` : ''}`;
}

/** Runs the candidate against the unittest suite in the sandbox and reports BigCodeBench's verdict. */
export async function runUnitTests(o: UnitTestsInput): Promise<UnitTestsResult> {
  const timeout = o.timeoutSeconds ?? DEFAULT_UNIT_TEST_TIMEOUT_SECONDS;
  if (!(timeout > 0)) throw new Error(`runUnitTests: timeoutSeconds must be positive, got ${timeout}`);
  const run = await runSandboxedPython({
    files: { [RUNNER]: runner(), 'solution.py': stripPythonFence(o.code), 'tests.py': o.test },
    script: RUNNER,
    args: o.entryPoint ? [o.entryPoint] : [],
    slot: o.slot,
    isolation: o.isolation,
    // The CPU limit sits a second past the wall, so that a busy loop reads as the timeout it is.
    limits: { wallSeconds: timeout, cpuSeconds: timeout + 1 },
  });
  const r = parseReport(run.stdout);
  if (r.fatal !== undefined) return { passed: false, testsRun: 0, failures: 0, errors: 0, detail: r.fatal };
  if (r.done) {
    const { run: testsRun, failures, errors, tampered } = r.done;
    const base = { testsRun, failures, errors };
    if (tampered) return { passed: false, ...base, detail: `the code modified the test harness (${tampered})` };
    if (testsRun === 0) return { passed: false, ...base, detail: 'no tests ran' };
    if (failures + errors > 0) return { passed: false, ...base, detail: firstIssue(r.issues) || `${failures + errors} tests did not pass` };
    return { passed: true, ...base };
  }
  // No verdict: the run was cut short. The test that was running counts as an error.
  const running = r.started.find((t) => !r.ended.has(t));
  const failures = r.issues.filter((i) => i.kind === 'failure').length;
  const errors = r.issues.filter((i) => i.kind === 'error').length + (running !== undefined ? 1 : 0);
  const where = running !== undefined ? ` during ${running}` : r.started.length === 0 ? ' while loading the code' : '';
  return { passed: false, testsRun: r.started.length, failures, errors, detail: `${howItEnded(run, timeout)}${where}` };
}
