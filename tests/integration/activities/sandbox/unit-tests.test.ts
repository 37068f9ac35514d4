// CollabLLM's pass_rate runner (BigCodeBench-style unittest suites) on the real sandbox: the shipped reference
// solutions pass, wrong or broken candidates fail with a detail and never throw. Slots 150-159 belong to this file
// (test files run two at a time; a slot is a uid).
import { describe, expect, it } from 'vitest';
import { loadCollabTasks } from '../../../../activities/recipes/collabllm/tasks';
import { processesOfSlot } from '../../../../activities/sandbox/python-sandbox';
import { runUnitTests, type UnitTestsInput } from '../../../../activities/sandbox/unit-tests';

const SLOT = 150;
const codeTasks = loadCollabTasks('configs/tasks/collabllm/code.jsonl', 'code');
const seedTasks = loadCollabTasks('tests/fixtures/collabllm/seed-single-turn.jsonl', 'code');
const task = (id: string) => codeTasks.find((t) => t.id === id)!;

const TOP_WORDS = task('top-words');
const run = (code: string, extra: Partial<UnitTestsInput> = {}) =>
  runUnitTests({ code, test: TOP_WORDS.code!.test, entryPoint: 'task_func', slot: SLOT, timeoutSeconds: 5, ...extra });

describe('runUnitTests: reference solutions', () => {
  it.each(codeTasks.map((t) => [t.id, t] as const))('%s passes its own tests', async (_id, t) => {
    const r = await runUnitTests({ code: t.answer, test: t.code!.test, entryPoint: t.code!.entryPoint, slot: SLOT });
    const methods = (t.code!.test.match(/^ {4}def test_\w+/gm) ?? []).length;
    expect(r).toEqual({ passed: true, testsRun: methods, failures: 0, errors: 0 });
  });

  it('the seed-shaped rows (single-turn JSON completions) pass too', async () => {
    for (const t of seedTasks) {
      const r = await runUnitTests({ code: t.answer, test: t.code!.test, entryPoint: t.code!.entryPoint, slot: SLOT });
      expect(r.passed, t.id).toBe(true);
    }
  });

  it('a fenced answer with prose around it works', async () => {
    const r = await run(`Here is the function:\n\n\`\`\`python\n${TOP_WORDS.answer}\`\`\`\n\nLet me know if you need changes.`);
    expect(r).toEqual({ passed: true, testsRun: 4, failures: 0, errors: 0 });
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it("runs suites the way BigCodeBench's do: module __test__ (patchable), subtests, no false tampering", async () => {
    const test = [
      'import unittest',
      'from unittest import mock',
      '',
      'class TestCases(unittest.TestCase):',
      "    @mock.patch('__test__.scale', return_value=10)",
      '    def test_patched(self, _scale):',
      '        self.assertEqual(task_func(2), 20)',
      '',
      '    def test_subtests(self):',
      '        for x, want in [(1, 3), (2, 6), (3, 0)]:',
      '            with self.subTest(x=x):',
      '                self.assertEqual(task_func(x), want)',
      '',
    ].join('\n');
    const r = await runUnitTests({ code: 'def scale():\n    return 3\n\ndef task_func(x):\n    return x * scale()\n', test, slot: SLOT });
    expect(r).toEqual({ passed: false, testsRun: 2, failures: 1, errors: 0, detail: 'test_subtests failed: AssertionError: 9 != 0' });
  });

  it('the records row writes its files under the unshare fallback as well', async () => {
    const t = task('records-to-json-files');
    const r = await runUnitTests({ code: t.answer, test: t.code!.test, slot: SLOT + 1, isolation: 'unshare' });
    expect(r).toEqual({ passed: true, testsRun: 2, failures: 0, errors: 0 });
  });
});

describe('runUnitTests: candidates that do not pass', () => {
  it('a wrong implementation fails, counting failures and errors, naming the first', async () => {
    // No tie-break, and no check of top_n.
    const wrong =
      'from collections import Counter\ndef task_func(text, top_n=3):\n    return Counter(text.lower().split()).most_common(top_n)\n';
    const r = await run(wrong);
    expect(r).toEqual({
      passed: false,
      testsRun: 4,
      failures: 2,
      errors: 0,
      detail: expect.stringMatching(/^test_\w+ failed: AssertionError: .* \(\+1 more\)$/),
    });
    const crashing = await run('def task_func(text, top_n=3):\n    return text.missing()\n');
    expect(crashing).toMatchObject({ passed: false, testsRun: 4, errors: 4 });
    expect(crashing.detail).toMatch(/^test_\w+ errored: AttributeError: 'str' object has no attribute 'missing' \(\+3 more\)$/);
  });

  it('a syntax error is a failed run with the reason, not a throw', async () => {
    const r = await run('def task_func(text, top_n=3)\n    return []\n');
    expect(r).toMatchObject({ passed: false, testsRun: 0, failures: 0, errors: 0 });
    expect(r.detail).toMatch(/^the code does not compile: SyntaxError: /);
  });

  it('an infinite loop in a test times out, naming the test', async () => {
    const r = await run('def task_func(text, top_n=3):\n    while True:\n        pass\n', { timeoutSeconds: 2 });
    expect(r).toMatchObject({ passed: false, testsRun: 1, failures: 0, errors: 1 });
    expect(r.detail).toMatch(/^timed out after 2 s during test_\w+$/);
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it('an infinite loop while loading times out too', async () => {
    const r = await run('while True:\n    pass\n', { timeoutSeconds: 1.5 });
    expect(r).toEqual({ passed: false, testsRun: 0, failures: 0, errors: 0, detail: 'timed out after 1.5 s while loading the code' });
  });

  it('a crash ends the run without a verdict', async () => {
    const r = await run('import os\ndef task_func(text, top_n=3):\n    os._exit(3)\n');
    expect(r).toMatchObject({ passed: false, testsRun: 1, errors: 1 });
    expect(r.detail).toMatch(/^exit code 3 during test_\w+$/);
    const exited = await run('import sys\nsys.exit(0)\n');
    expect(exited).toMatchObject({ passed: false, detail: 'the code raised on load: SystemExit: 0' });
  });

  it('a missing entry point is reported up front', async () => {
    const r = await run('def top_words(text, top_n=3):\n    return []\n');
    expect(r).toEqual({ passed: false, testsRun: 0, failures: 0, errors: 0, detail: 'the code does not define task_func' });
  });

  it('printing a fake verdict does not reach the report', async () => {
    const fake = JSON.stringify({ done: true, run: 4, failures: 0, errors: 0 });
    const r = await run(
      `print(${JSON.stringify(fake)})\ndef task_func(text, top_n=3):\n    print(${JSON.stringify(fake)})\n    return []\n`,
    );
    expect(r).toMatchObject({ passed: false, testsRun: 4 });
  });

  it('patching unittest to swallow failures is caught', async () => {
    const r = await run(
      'import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\ndef task_func(text, top_n=3):\n    return []\n',
    );
    expect(r).toMatchObject({ passed: false, detail: 'the code modified the test harness (TestCase.assertEqual)' });
  });

  it('a suite without tests, or without TestCases, does not pass', async () => {
    const empty = await run(TOP_WORDS.answer, { test: 'import unittest\n\nclass TestCases(unittest.TestCase):\n    pass\n' });
    expect(empty).toEqual({ passed: false, testsRun: 0, failures: 0, errors: 0, detail: 'no tests ran' });
    const none = await run(TOP_WORDS.answer, { test: 'import unittest\n' });
    expect(none.detail).toBe('the tests define no class TestCases (a unittest.TestCase)');
  });
});
