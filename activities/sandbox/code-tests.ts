// ColBench's backend scoring (sweet_rl scripts/evaluate_code.py, utils/code_utils.py) on top of the Python sandbox. Three sandbox runs per answer, so that the
// candidate can never see the reference, the expected values or another task's files, and cannot fake equality:
//   1. reference: the task's reference source + the test call expressions → expected values;
//   2. candidate: the candidate source + the same expressions, nothing else → actual values (per-call timer inside,
//      the sandbox's wall limit outside; an exception or timeout is the seed's None);
//   3. compare: trusted runner code only, expected vs actual bytes, unpickled as plain builtin data (no class can
//      be rebuilt, so a rigged __eq__ never runs), then the seed's rule: passed iff expected is not None and
//      expected == actual.
// Values travel as frames (u32 index, u8 kind, u32 length, payload) on each run's stdout; see runners/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  /** Per-call limit on the reference (the seed has none); default 5 s. */
  referenceTimeoutSeconds?: number;
  /** Sandbox slot (uid 60000 + slot); the three runs of one answer share it, one after another. */
  slot?: number;
  compat?: CodeTestsCompat;
  isolation?: SandboxIsolation;
}

export interface CodeTestOutcome {
  name: string;
  passed: boolean;
  error?: string;
}

export interface CodeTestsResult {
  passed: number;
  total: number;
  /** passed / total (0 when there are no tests). */
  fraction: number;
  /** Every test passed (and there was at least one). */
  success: boolean;
  tests: CodeTestOutcome[];
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

/** Largest pickled value compared; a bigger one fails its test ("value too large"). */
const MAX_VALUE_BYTES = 256 * 1024;
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

type Frame = { kind: 'value' } | { kind: 'error'; message: string } | { kind: 'none' };

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
    if (index < count && !out.has(index)) {
      if (kind === 0) out.set(index, { kind: 'value' });
      else if (kind === 2) out.set(index, { kind: 'none' });
      else if (kind === 1)
        out.set(index, {
          kind: 'error',
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
 *  functions) or `function` (seed: exec'd inside the evaluator's function, so top-level names land in a locals dict
 *  the answer's own functions cannot see — a module-level import or helper raises NameError, scored None). */
const scopeOf = (compat: CodeTestsCompat) => (compat === 'seed' ? 'function' : 'module');

function evaluateFiles(source: string, exprs: string[]): Record<string, string> {
  return { 'evaluate_calls.py': runners().evaluate, 'solution.py': source, 'tests.txt': exprs.join('\0') };
}

function result(names: string[], tests: CodeTestOutcome[], rejected?: string): CodeTestsResult {
  const passed = tests.filter((t) => t.passed).length;
  const total = names.length;
  const r: CodeTestsResult = { passed, total, fraction: total ? passed / total : 0, success: total > 0 && passed === total, tests };
  if (rejected) r.rejected = rejected;
  return r;
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
  const refTimeout = input.referenceTimeoutSeconds ?? 5;
  const fail = (error: string) => names.map((name) => ({ name, passed: false, error }));

  if (compat === 'seed') {
    // SEED-COMPAT: the released evaluator refuses these substrings anywhere in the answer.
    const hits = seedBlocklistHits(input.candidate);
    if (hits.length) {
      const why = `forbidden text (seed blocklist): ${hits.map((h) => JSON.stringify(h)).join(', ')}`;
      return result(names, fail(`rejected: ${why}`), why);
    }
  }
  if (names.length === 0) return result(names, []);
  // Any NUL would split an expression (the runner's separator) and is invalid Python anyway.
  if (exprs.some((e) => e.includes('\0'))) throw new Error('runCodeTests: a test expression contains a NUL character');

  const outputBytes = names.length * (MAX_VALUE_BYTES + FRAME_HEADER + 600) + 4096;
  const isolation = input.isolation;

  // 1. Expected values: the reference alone.
  const refWall = 2 + names.length * (refTimeout + 0.5);
  const ref = await runSandboxedPython({
    files: evaluateFiles(input.reference, exprs),
    script: 'evaluate_calls.py',
    args: [String(refTimeout), String(MAX_VALUE_BYTES), scopeOf(compat)],
    slot,
    isolation,
    limits: { wallSeconds: refWall, cpuSeconds: refWall, outputBytes },
  });
  const expected = parseFrames(ref.stdoutBytes, names.length);
  const refEnded = howItEnded(ref, refWall);
  const tests: (CodeTestOutcome | undefined)[] = names.map((name, i) => {
    const e = expected.get(i);
    if (!e) return { name, passed: false, error: `reference produced no value (${refEnded})` };
    if (e.kind === 'error') return { name, passed: false, error: `reference raised: ${e.message}` };
    if (e.kind === 'none') return { name, passed: false, error: 'reference returned None (not counted as passed, as in the seed)' };
    return undefined; // decided below
  });
  const open = tests.flatMap((t, i) => (t ? [] : [i]));
  if (open.length === 0) return result(names, tests as CodeTestOutcome[]);

  // 2. Actual values: the candidate alone, with only the expressions it is called with.
  const candWall = 2 + names.length * (fnTimeout + 0.5);
  const cand = await runSandboxedPython({
    files: evaluateFiles(candidate, exprs),
    script: 'evaluate_calls.py',
    args: [String(fnTimeout), String(MAX_VALUE_BYTES), scopeOf(compat)],
    slot,
    isolation,
    limits: { wallSeconds: candWall, cpuSeconds: candWall, outputBytes },
  });
  const actual = parseFrames(cand.stdoutBytes, names.length);
  const candEnded = howItEnded(cand, candWall);
  const toCompare: number[] = [];
  for (const i of open) {
    const a = actual.get(i);
    if (!a) tests[i] = { name: names[i], passed: false, error: `no result: the candidate's run stopped (${candEnded})` };
    else if (a.kind === 'error') tests[i] = { name: names[i], passed: false, error: a.message };
    else if (a.kind === 'none') tests[i] = { name: names[i], passed: false, error: 'returned None' };
    else toCompare.push(i);
  }

  // 3. Comparison: trusted code, untrusted bytes.
  if (toCompare.length) {
    const cmp = await runSandboxedPython({
      files: { 'compare_results.py': runners().compare, 'expected.bin': ref.stdoutBytes, 'actual.bin': cand.stdoutBytes },
      script: 'compare_results.py',
      args: toCompare.map(String),
      slot,
      isolation,
      limits: { wallSeconds: 10, cpuSeconds: 10 },
    });
    let report: Record<string, { passed: boolean; error: string | null }> = {};
    let cmpError = '';
    try {
      report = cmp.exitCode === 0 && !cmp.truncated ? JSON.parse(cmp.stdout) : {};
      if (cmp.exitCode !== 0 || cmp.truncated) cmpError = howItEnded(cmp, 10);
    } catch {
      cmpError = 'unreadable report';
    }
    for (const i of toCompare) {
      const r = report[String(i)];
      if (!r) tests[i] = { name: names[i], passed: false, error: `could not compare the values (${cmpError || 'no verdict'})` };
      else tests[i] = r.passed ? { name: names[i], passed: true } : { name: names[i], passed: false, error: r.error ?? 'wrong result' };
    }
  }
  return result(names, tests as CodeTestOutcome[]);
}
