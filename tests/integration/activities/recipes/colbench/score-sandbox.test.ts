// `collab-loop score --recipe colbench-code` on the real Python sandbox, over fixture rows in the seed's trajectory
// format: reference functions that import numpy, pandas and the standard library score under both compat modes, and
// every test that does not pass says why — a reference's failure never reads as a wrong answer.
// The seed's published rows (facebook/collaborative_agent_bench) cannot be fetched here; these rows follow their
// format (problem_description, ground_truth, test_cases) and were written for this file. Slots 160-169 belong to it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreColbenchCodeFile } from '../../../../../activities/recipes/colbench';
import { TEST_FAILURE_REASONS } from '../../../../../activities/sandbox/code-test-reasons';
import { runCodeTests } from '../../../../../activities/sandbox/code-tests';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

const FIXTURES = path.join(PROJECT_ROOT, 'tests/fixtures/colbench');
const SLOT = 160;
const score = (file: string, compat: 'fixed' | 'seed') =>
  scoreColbenchCodeFile(path.join(FIXTURES, file), runCodeTests, { compat, slot: SLOT });

/** Failed-test counts: the given ones, every other reason 0. */
const failed = (counts: Partial<Record<(typeof TEST_FAILURE_REASONS)[number], number>>) => ({
  ...Object.fromEntries(TEST_FAILURE_REASONS.map((r) => [r, 0])),
  ...counts,
});

describe('score: reference functions that import numpy, pandas and the standard library', () => {
  it('fixed: every correct answer passes, numpy scalars and arrays compare by value', async () => {
    expect(await score('score-packages.jsonl', 'fixed')).toEqual([
      { id: 'numpy-in-function', success: true, fraction: 1, passed: 4, total: 4 }, // np.float64 / np.int64 vs float / int
      { id: 'numpy-module-import', success: true, fraction: 1, passed: 3, total: 3 },
      { id: 'numpy-arrays', success: true, fraction: 1, passed: 3, total: 3 }, // array vs array, by shape and elements
      { id: 'stdlib-mix', success: true, fraction: 1, passed: 3, total: 3 }, // Decimal, date, Counter, re, statistics
      { id: 'pandas-in-function', success: true, fraction: 1, passed: 2, total: 2 },
    ]);
  });

  it("seed: the seed's own outcomes, each with its reason", async () => {
    expect(await score('score-packages.jsonl', 'seed')).toEqual([
      { id: 'numpy-in-function', success: true, fraction: 1, passed: 4, total: 4 },
      // The seed execs the reference inside a function: a module-level `import numpy as np` is a NameError in its
      // body, so no test has an expected value — the task's fault, and the output says so.
      {
        id: 'numpy-module-import',
        success: false,
        fraction: 0,
        passed: 0,
        total: 3,
        reasons: failed({ reference_error: 3 }),
        reason: 'reference_failed',
      },
      // The seed's `==` on arrays of more than one element raises ValueError (not passed); one element decides.
      { id: 'numpy-arrays', success: false, fraction: 1 / 3, passed: 1, total: 3, reasons: failed({ wrong_value: 2 }) },
      { id: 'stdlib-mix', success: true, fraction: 1, passed: 3, total: 3 },
      { id: 'pandas-in-function', success: true, fraction: 1, passed: 2, total: 2 },
    ]);
  });
});

describe('score: the reason for every test that did not pass', () => {
  it('fixed: wrong value, exception, reference failure (left out of total), timeout, syntax error, no answer', async () => {
    expect(await score('score-reasons.jsonl', 'fixed')).toEqual([
      { id: 'wrong-value', success: false, fraction: 0.75, passed: 3, total: 4, reasons: failed({ wrong_value: 1 }) },
      { id: 'answer-raises', success: false, fraction: 0.75, passed: 3, total: 4, reasons: failed({ answer_error: 1 }) },
      // The reference raises on one of five tests: the answer is judged on the other four, and passes them.
      { id: 42, success: true, fraction: 1, passed: 4, total: 4, reasons: failed({ reference_error: 1 }) },
      { id: 'endless-loop', success: false, fraction: 0.75, passed: 3, total: 4, reasons: failed({ timeout: 1 }) },
      {
        id: 'syntax-error',
        success: false,
        fraction: 0,
        passed: 0,
        total: 4,
        reasons: failed({ answer_error: 4 }),
        reason: 'syntax_error',
      },
      // scipy is not among the sandbox's packages: the reference cannot run, nothing is held against the answer.
      {
        id: 'reference-needs-scipy',
        success: false,
        fraction: 0,
        passed: 0,
        total: 0,
        reasons: failed({ reference_error: 2 }),
        reason: 'reference_failed',
      },
      { id: 'blocklisted', success: true, fraction: 1, passed: 4, total: 4 }, // `import os` runs in the sandbox
      { id: 'no-answer', success: false, fraction: 0, passed: 0, total: 4, reason: 'no_answer' },
    ]);
  });

  it("seed: reference failures count as failed tests (the seed's denominator), blocklisted text refuses the answer", async () => {
    const out = await score('score-reasons.jsonl', 'seed');
    expect(out.find((r) => r.id === 42)).toEqual({
      id: 42,
      success: false,
      fraction: 0.8,
      passed: 4,
      total: 5,
      reasons: failed({ reference_error: 1 }),
    });
    expect(out.find((r) => r.id === 'reference-needs-scipy')).toMatchObject({ total: 2, reason: 'reference_failed' });
    expect(out.find((r) => r.id === 'blocklisted')).toEqual({
      id: 'blocklisted',
      success: false,
      fraction: 0,
      passed: 0,
      total: 4,
      reason: 'blocklist',
    });
    // The rest score as in fixed mode.
    expect(out.find((r) => r.id === 'endless-loop')).toMatchObject({ passed: 3, reasons: failed({ timeout: 1 }) });
    expect(out.find((r) => r.id === 'syntax-error')).toMatchObject({ reason: 'syntax_error' });
  });
});
