// The MATH grader against the seeds' own grader (multiagent-ft grader.py, which CoRal's evaluator and the debate
// seed call): tests/fixtures/math-grader/seed-verdicts.jsonl holds 661 (prediction, gold) pairs we wrote — the
// same values in the forms models write (fractions, mixed numbers, decimals, scientific notation, large integers,
// radicals, polynomials, π, tuples, intervals, units, percent, text) — with the verdict the seed's grade_answer gave
// each when run outside this repository (sympy 1.14.0, pylatexenc). The symbolic step runs in the project's sympy
// helper (activities/recipes/shared/sympy_equal.py); its per-item limit and failure answers are checked here too.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { gradeMathAnswer } from '../../../../../activities/recipes/shared/math-equivalence';
import { equalUnderSympy } from '../../../../../activities/recipes/shared/symbolic-equal';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { venvExecutable } from '../../../../../activities/subprocess/venv';

interface Verdict {
  pred: string;
  gold: string;
  seed: boolean;
}
const verdicts: Verdict[] = readFileSync(path.join(PROJECT_ROOT, 'tests/fixtures/math-grader/seed-verdicts.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

// The one documented deviation: the seed strips thousands commas with one global regex pass, which leaves
// "123,456,789,012" as "123456,789012" (not a number, so never equal to 123456789012); we read it as the number.
const threeCommaGroups = (s: string) => /\d{1,3}(,\d{3}){3,}/.test(s);

describe("the MATH grader gives the seed grader's verdicts", () => {
  it('on every pair of the fixture (but the documented thousands-comma quirk)', () => {
    expect(verdicts.length).toBe(661);
    expect(verdicts.filter((v) => v.seed).length).toBeGreaterThan(300); // both verdicts well represented
    const differ = verdicts.filter((v) => gradeMathAnswer(v.pred, v.gold) !== v.seed);
    expect(differ.filter((v) => !threeCommaGroups(v.pred) && !threeCommaGroups(v.gold))).toEqual([]);
    for (const v of differ) expect(v.seed).toBe(false); // where we differ, we read the number and the seed does not
  });
});

describe('the sympy helper', () => {
  it('answers equal / not equal, and an unparsable difference is "not equal" with its reason', () => {
    expect(equalUnderSympy('x^2+1', '1+x^2')).toEqual({ equal: true });
    expect(equalUnderSympy('123456789013', '123456789012')).toEqual({ equal: false });
    expect(equalUnderSympy('(2', '2')).toEqual({ equal: false, reason: 'error: TokenError' });
  });

  it('interrupts an item that outlasts its time limit and goes on with the next', async () => {
    const r = await execa(
      venvExecutable('python'),
      [path.join(PROJECT_ROOT, 'activities/recipes/shared/sympy_equal.py'), '--item-seconds', '1'],
      {
        input: ['{"a": "factorial(10^9)", "b": "1"}', '{"a": "sqrt(12)", "b": "2sqrt(3)"}', 'not json', ''].join('\n'),
      },
    );
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ ready: true });
    expect(lines.slice(1)).toEqual([
      { equal: false, reason: 'timeout' },
      { equal: true },
      { equal: false, reason: expect.stringMatching(/^bad request/) },
    ]);
  });
});
