// ColBench's backend scoring (sweet_rl scripts/evaluate_code.py, utils/code_utils.py) on top of the Python sandbox. Three sandbox runs per answer, so that the
// candidate can never see the reference, the expected values or another task's files, and cannot fake equality:
//   1. reference: the task's reference source + the test call expressions → expected values;
//   2. candidate: the candidate source + the same expressions, nothing else → actual values (per-call timer inside,
//      the sandbox's wall limit outside; an exception or timeout is the seed's None);
//   3. compare: trusted runner code only, expected vs actual bytes, unpickled as plain builtin data (no class can
//      be rebuilt, so a rigged __eq__ never runs), then the seed's rule: passed iff expected is not None and
//      expected == actual.
// SEED-COMPAT: `compat: seed` gives the candidate's run the expected values, as the seed's single process has them,
// so that a result that is not plain data is compared there by its own __eq__ (runners/evaluate_calls.py).
// Values travel as frames (u32 index, u8 kind, u32 length, payload) on each run's stdout; see runners/. Every test
// that does not pass gets a reason (code-test-reasons.ts); one whose reference failed is not held against the answer:
// with `compat: fixed` it leaves `total` (the seed counts it, as failed).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countFailures, type AnswerFailureReason, type TestFailureCounts, type TestFailureReason } from './code-test-reasons';
import { runSandboxedPython, type SandboxIsolation, type SandboxResult } from './python-sandbox';

/** The seed's evaluator refuses any answer containing one of these (score 0). Only applied with `compat: 'seed'`. */
export const SEED_BLOCKLIST: readonly string[] = Object.freeze([
  'import os',
  'from os',
  'import sys',
  'from sys',
  'sudo',
  'transformers',
  'exit(',
  'quit(',
  'argparse',
]);

/** `fixed` (default): the sandbox contains what the blocklist tried to; `seed`: the released evaluator's refusal. */
export type CodeTestsCompat = 'fixed' | 'seed';

export interface CodeTestsInput {
  /** The agent's answer: Python source, optionally inside a ```python fence. */
  candidate: string;
  /** The task's hidden reference source. */
  reference: string;
  /** Test name → Python call expression. */
  testCases: Record<string, string>;
  /** Per-call limit on the candidate (the seed: 1 s). */
  functionTimeoutSeconds?: number;
  /** Per-call limit on the reference; default 5 s (`compat: seed` 60 s: the seed has none). */
  referenceTimeoutSeconds?: number;
  /** Sandbox slot (uid 60000 + slot); the three runs of one answer share it, one after another. */
  slot?: number;
  compat?: CodeTestsCompat;
  isolation?: SandboxIsolation;
}

export interface CodeTestOutcome {
  name: string;
  passed: boolean;
  /** Why it did not pass (absent when it passed, or when nothing ran). */
  reason?: TestFailureReason;
  /** What happened, in words. */
  error?: string;
}

/** The runner as recipes receive it (ScoringServices.runCodeTests). A test passes iff the reference's value is not
 *  None and the candidate returns an equal value (sweet_rl scripts/evaluate_code.py, utils/code_utils.py). */
export type RunCodeTests = (input: CodeTestsInput) => Promise<CodeTestsResult>;

export interface CodeTestsResult {
  passed: number;
  /** Tests that count: with `compat: fixed` those whose reference produced a value (a reference_error test says
   *  nothing about the answer and is left out); with `seed` every test, as the seed divides by all of them. */
  total: number;
  /** passed / total (0 when there are no tests). */
  fraction: number;
  /** Every test that counts passed (and there was at least one). */
  success: boolean;
  tests: CodeTestOutcome[];
  /** Failed tests per reason, reference_error included whether or not they count. */
  reasons: TestFailureCounts;
  /** Set when nothing of the answer could be scored: blocklist, syntax_error, reference_failed. */
  reason?: AnswerFailureReason;
  /** Set when `compat: 'seed'` refused the answer for forbidden text; it scores 0. */
  rejected?: string;
}

const RUNNERS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'runners');
let runnerSources: { evaluate: string; compare: string } | undefined;
function runners() {
  runnerSources ??= {
    evaluate: readFileSync(path.join(RUNNERS_DIR, 'evaluate_calls.py'), 'utf8'),
    compare: readFileSync(path.join(RUNNERS_DIR, 'compare_results.py'), 'utf8'),
  };
  return runnerSources;
}

/** Limits on the values compared: a bigger or deeper one fails its test ("value too large", "nested too deeply").
 *  SEED-COMPAT: the seed compares in its own process with no limit of ours; `seed` allows what it can compare —
 *  values up to 16 MB pickled, and nested as deep as Python's == goes under its default recursion limit of 1000
 *  (deeper, the seed's == raises RecursionError) — and waits up to 60 s for a reference call (the seed never stops
 *  one; a bound remains so that a looping reference cannot hold a worker). */
const VALUE_LIMITS = {
  fixed: { bytes: 256 * 1024, depth: 200, referenceSeconds: 5 },
  seed: { bytes: 16 * 1024 * 1024, depth: 990, referenceSeconds: 60 },
} as const;
const FRAME_HEADER = 9;

/** The code inside the first ```python (or bare ```) fence, else the text itself. */
export function stripPythonFence(text: string): string {
  const m = /```[ \t]*(?:python3?|py)?[^\n]*\n([\s\S]*?)(?:```|$)/i.exec(text);
  return (m ? m[1] : text).trim();
}

/** The seed's code extraction (sweet_rl utils/code_utils.py check_correctness): the text after the first "```python"
 *  up to the next fence; then, if a fence remains, what lies between the first two — so a "```py" tag line stays in
 *  the code (and fails as a NameError). */
export function seedFenceStrip(text: string): string {
  let t = text;
  if (t.includes('```python')) t = t.split('```python')[1].split('```')[0];
  if (t.includes('```')) t = t.split('```')[1] ?? '';
  return t;
}

/** The blocklisted substrings the text contains (the seed's check). */
export function seedBlocklistHits(text: string): string[] {
  return SEED_BLOCKLIST.filter((s) => text.includes(s));
}

/** What one call gave, as runners/evaluate_calls.py reports it. */
type Frame = { kind: 'value' } | { kind: 'none' } | { kind: 'error' | 'timeout' | 'unscorable' | 'uncompiled'; message: string };
const FRAME_KINDS = ['value', 'error', 'none', 'timeout', 'unscorable', 'uncompiled'] as const;

/** First frame per index; garbage and out-of-range indices ignored (the candidate may write anything here). */
export function parseFrames(buf: Buffer, count: number): Map<number, Frame> {
  const out = new Map<number, Frame>();
  let pos = 0;
  while (pos + FRAME_HEADER <= buf.length) {
    const index = buf.readUInt32BE(pos);
    const kind = buf[pos + 4];
    const length = buf.readUInt32BE(pos + 5);
    pos += FRAME_HEADER;
    if (length > buf.length - pos) break;
    const name = FRAME_KINDS[kind];
    if (index < count && !out.has(index) && name) {
      if (name === 'value' || name === 'none') out.set(index, { kind: name });
      else
        out.set(index, {
          kind: name,
          message: buf
            .subarray(pos, pos + length)
            .toString('utf8')
            .slice(0, 500),
        });
    }
    pos += length;
  }
  return out;
}

/** Why a run stopped before producing every frame. */
function howItEnded(r: SandboxResult, wallSeconds: number): string {
  if (r.timedOut) return `timed out after ${wallSeconds} s`;
  if (r.truncated) return 'output limit reached';
  if (r.signal) return `killed by ${r.signal}`;
  if (r.exitCode !== 0) return `exit code ${r.exitCode}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').pop()!.slice(0, 200)}` : ''}`;
  return 'ended early';
}

/** The runner's namespace rule: `module` (fixed: the answer runs as a module, its imports and helpers visible to its
 *  functions) or `function` (SEED-COMPAT seed: exec'd inside the evaluator's function, so top-level names land in a locals dict
 *  the answer's own functions cannot see — a module-level import or helper raises NameError, scored None). */
const scopeOf = (compat: CodeTestsCompat) => (compat === 'seed' ? 'function' : 'module');

function evaluateFiles(source: string, exprs: string[]): Record<string, string> {
  return { 'evaluate_calls.py': runners().evaluate, 'solution.py': source, 'tests.txt': exprs.join('\0') };
}

function result(tests: CodeTestOutcome[], compat: CodeTestsCompat, reason?: AnswerFailureReason, rejected?: string): CodeTestsResult {
  const passed = tests.filter((t) => t.passed).length;
  const reasons = countFailures(tests);
  // SEED-COMPAT: the seed divides by every test, those its reference failed on included.
  const total = tests.length - (compat === 'seed' ? 0 : reasons.reference_error);
  if (!reason && tests.length > 0 && reasons.reference_error === tests.length) reason = 'reference_failed';
  const r: CodeTestsResult = {
    passed,
    total,
    fraction: total ? passed / total : 0,
    success: total > 0 && passed === total,
    tests,
    reasons,
  };
  if (reason) r.reason = reason;
  if (rejected) r.rejected = rejected;
  return r;
}

/** The reason a candidate's call did not give a value to compare. */
function candidateFailure(frame: Exclude<Frame, { kind: 'value' }>): { reason: TestFailureReason; error: string } {
  switch (frame.kind) {
    case 'none':
      return { reason: 'wrong_value', error: 'returned None' };
    case 'unscorable':
      return { reason: 'wrong_value', error: frame.message };
    case 'timeout':
      return { reason: 'timeout', error: frame.message };
    default:
      return { reason: 'answer_error', error: frame.message };
  }
}

/**
 * Scores a candidate against a task's hidden tests (ColBench backend). Bad candidate code only lowers the score;
 * a broken sandbox installation throws SandboxConfigError.
 */
export async function runCodeTests(input: CodeTestsInput): Promise<CodeTestsResult> {
  const names = Object.keys(input.testCases);
  const exprs = names.map((n) => input.testCases[n]);
  const compat = input.compat ?? 'fixed';
  // SEED-COMPAT: the seed's fence rule, and (below) its blocklist over the whole answer, prose included.
  const candidate = compat === 'seed' ? seedFenceStrip(input.candidate) : stripPythonFence(input.candidate);
  const slot = input.slot ?? 0;
  const fnTimeout = input.functionTimeoutSeconds ?? 1;
  const limits = VALUE_LIMITS[compat];
  const refTimeout = input.referenceTimeoutSeconds ?? limits.referenceSeconds;
  const evaluateArgs = (timeout: number) => [String(timeout), String(limits.bytes), scopeOf(compat), String(limits.depth)];

  if (compat === 'seed') {
    // SEED-COMPAT: the released evaluator refuses these substrings anywhere in the answer.
    const hits = seedBlocklistHits(input.candidate);
    if (hits.length) {
      const why = `forbidden text (seed blocklist): ${hits.map((h) => JSON.stringify(h)).join(', ')}`;
      return result(
        names.map((name) => ({ name, passed: false, error: `rejected: ${why}` })),
        compat,
        'blocklist',
        why,
      );
    }
  }
  if (names.length === 0) return result([], compat);
  // Any NUL would split an expression (the runner's separator) and is invalid Python anyway.
  if (exprs.some((e) => e.includes('\0'))) throw new Error('runCodeTests: a test expression contains a NUL character');

  const outputBytes = names.length * (limits.bytes + FRAME_HEADER + 600) + 4096;
  const isolation = input.isolation;

  // 1. Expected values: the reference alone.
  const refWall = 2 + names.length * (refTimeout + 0.5);
  const ref = await runSandboxedPython({
    files: evaluateFiles(input.reference, exprs),
    script: 'evaluate_calls.py',
    args: evaluateArgs(refTimeout),
    slot,
    isolation,
    limits: { wallSeconds: refWall, cpuSeconds: refWall, outputBytes },
  });
  const expected = parseFrames(ref.stdoutBytes, names.length);
  const refEnded = howItEnded(ref, refWall);
  const refFailed = (name: string, error: string): CodeTestOutcome => ({ name, passed: false, reason: 'reference_error', error });
  const tests: (CodeTestOutcome | undefined)[] = names.map((name, i) => {
    const e = expected.get(i);
    if (!e) return refFailed(name, `reference produced no value (${refEnded})`);
    if (e.kind === 'none') return refFailed(name, 'reference returned None (no answer can pass: the seed requires a value)');
    if (e.kind === 'error') return refFailed(name, `reference raised: ${e.message}`);
    if (e.kind !== 'value') return refFailed(name, `reference: ${e.message}`);
    return undefined; // decided below
  });
  const open = tests.flatMap((t, i) => (t ? [] : [i]));
  if (open.length === 0) return result(tests as CodeTestOutcome[], compat);

  // 2. Actual values: the candidate alone, with only the expressions it is called with.
  const candWall = 2 + names.length * (fnTimeout + 0.5);
  // SEED-COMPAT: the seed compares in the answer's own process, so an object's own __eq__ decides (runners/).
  const seedFiles: Record<string, string | Uint8Array> =
    compat === 'seed' ? { 'expected.bin': ref.stdoutBytes, 'compare_results.py': runners().compare } : {};
  const cand = await runSandboxedPython({
    files: { ...evaluateFiles(candidate, exprs), ...seedFiles },
    script: 'evaluate_calls.py',
    args: evaluateArgs(fnTimeout),
    slot,
    isolation,
    limits: { wallSeconds: candWall, cpuSeconds: candWall, outputBytes },
  });
  const actual = parseFrames(cand.stdoutBytes, names.length);
  const candEnded = howItEnded(cand, candWall);
  const toCompare: number[] = [];
  for (const i of open) {
    const a = actual.get(i);
    if (!a) {
      const error = `no result: the candidate's run stopped (${candEnded})`;
      tests[i] = { name: names[i], passed: false, reason: cand.timedOut ? 'timeout' : 'answer_error', error };
    } else if (a.kind !== 'value') tests[i] = { name: names[i], passed: false, ...candidateFailure(a) };
    else toCompare.push(i);
  }
  // A source that does not compile fails every call the same way.
  const uncompiled = open.every((i) => actual.get(i)?.kind === 'uncompiled');

  // 3. Comparison: trusted code, untrusted bytes.
  if (toCompare.length) {
    const cmp = await runSandboxedPython({
      files: { 'compare_results.py': runners().compare, 'expected.bin': ref.stdoutBytes, 'actual.bin': cand.stdoutBytes },
      script: 'compare_results.py',
      args: [compat, ...toCompare.map(String)],
      slot,
      isolation,
      limits: { wallSeconds: 10, cpuSeconds: 10 },
    });
    let report: Record<string, { passed: boolean; error: string | null; reference?: boolean }> = {};
    let cmpError = '';
    try {
      report = cmp.exitCode === 0 && !cmp.truncated ? JSON.parse(cmp.stdout) : {};
      if (cmp.exitCode !== 0 || cmp.truncated) cmpError = howItEnded(cmp, 10);
    } catch {
      cmpError = 'unreadable report';
    }
    for (const i of toCompare) {
      const r = report[String(i)];
      const name = names[i];
      // The comparison itself failing (a value too deep or big to load) is the answer's value's doing.
      if (!r)
        tests[i] = { name, passed: false, reason: 'wrong_value', error: `could not compare the values (${cmpError || 'no verdict'})` };
      else if (r.passed) tests[i] = { name, passed: true };
      else tests[i] = { name, passed: false, reason: r.reference ? 'reference_error' : 'wrong_value', error: r.error ?? 'wrong result' };
    }
  }
  return result(tests as CodeTestOutcome[], compat, uncompiled ? 'syntax_error' : undefined);
}
