// Why a hidden test of a code answer did not pass, and why an answer could not be scored at all: the one vocabulary
// the scorer (code-tests.ts), ColBench's scores and metrics, and `collab-loop score`'s output share. The seed's
// evaluator (sweet_rl utils/code_utils.py check_correctness) folds every cause into "output None", so a broken
// reference looks exactly like a wrong answer there; these keep them apart.

/**
 * Why one test did not pass:
 * - `wrong_value`: the answer returned a value other than the reference's (None included, or a value that is not
 *   plain data and so cannot be compared);
 * - `answer_error`: the answer raised (NameError for a missing function included), did not compile, or its run died
 *   (a crash, the memory or output limit);
 * - `timeout`: the answer's call ran past the per-call limit, or its run past the wall-clock limit;
 * - `reference_error`: the reference raised, returned None, timed out or returned a value that cannot be compared —
 *   the test says nothing about the answer.
 */
export const TEST_FAILURE_REASONS = ['wrong_value', 'answer_error', 'timeout', 'reference_error'] as const;
export type TestFailureReason = (typeof TEST_FAILURE_REASONS)[number];
export type TestFailureCounts = Record<TestFailureReason, number>;

/**
 * Why nothing of an answer could be scored:
 * - `no_answer`: the episode ended without one (the seed's "No answer"), nothing ran;
 * - `blocklist`: `compat: seed` refused it for forbidden text, nothing ran;
 * - `syntax_error`: the answer does not compile;
 * - `reference_failed`: the reference failed on every test.
 */
export const ANSWER_FAILURE_REASONS = ['no_answer', 'blocklist', 'syntax_error', 'reference_failed'] as const;
export type AnswerFailureReason = (typeof ANSWER_FAILURE_REASONS)[number];

/** Failed tests per reason (every reason present, 0 when none). */
export function countFailures(tests: readonly { passed: boolean; reason?: TestFailureReason }[]): TestFailureCounts {
  const counts = Object.fromEntries(TEST_FAILURE_REASONS.map((r) => [r, 0])) as TestFailureCounts;
  for (const t of tests) if (!t.passed && t.reason) counts[t.reason]++;
  return counts;
}
