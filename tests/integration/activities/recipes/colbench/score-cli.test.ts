// `collab-loop score --recipe colbench-code`: each record's answer runs against its task's hidden tests in the real
// Python sandbox; one JSON line per record; a bad record is one error line naming file, line and field.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli } from '../../../../helpers/cli';
import { tempStateDir } from '../../../../helpers/config';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

const FIXTURE = path.join(PROJECT_ROOT, 'tests/fixtures/colbench/score-code.jsonl');
const REASONS = path.join(PROJECT_ROOT, 'tests/fixtures/colbench/score-reasons.jsonl');
const none = { wrong_value: 0, answer_error: 0, timeout: 0, reference_error: 0 };

describe('collab-loop score --recipe colbench-code', () => {
  it('prints success, fraction passed and, for every record not fully passed, why', async () => {
    const r = await cli(['score', '--recipe', 'colbench-code', '--input', FIXTURE]);
    expect(r.exitCode, r.all).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toEqual([
      { id: 'exact', success: true, fraction: 1, passed: 8, total: 8 },
      { id: 'fenced', success: true, fraction: 1, passed: 8, total: 8 },
      // the under-18 rule is wrong
      { id: 'buggy-junior-fee', success: false, fraction: 0.75, passed: 6, total: 8, reasons: { ...none, wrong_value: 2 } },
      { id: 'no-answer', success: false, fraction: 0, passed: 0, total: 8, reason: 'no_answer' },
      // reads /etc/shadow: not in the sandbox, so every call raises
      { id: 'escape-attempt', success: false, fraction: 0, passed: 0, total: 8, reasons: { ...none, answer_error: 8 } },
    ]);
  });

  it('keeps a numeric record id a JSON number', async () => {
    const r = await cli(['score', '--recipe', 'colbench-code', '--input', REASONS, '--compat', 'seed']);
    expect(r.exitCode, r.all).toBe(0);
    const line = r.stdout.trim().split('\n')[2];
    expect(line).toBe(
      '{"id":42,"success":false,"fraction":0.8,"passed":4,"total":5,"reasons":{"wrong_value":0,"answer_error":0,"timeout":0,"reference_error":1}}',
    );
  });

  it('a bad record fails the whole file before anything runs, with one line', async () => {
    const bad = path.join(tempStateDir(), 'bad.jsonl');
    writeFileSync(
      bad,
      '{"task": {"problem_description": "p", "ground_truth": "def f(): return 1", "test_cases": {"t": "f()"}}, "answer": "x"}\n{"task": {"problem_description": "p"}, "answer": "x"}\n',
    );
    const r = await cli(['score', '--recipe', 'colbench-code', '--input', bad]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bad\.jsonl line 2: field "task\.ground_truth"/);
  });
});
