// MATH grading under `compat: seed` on the kinds where a LaTeX reader decides the verdict: fractions with an
// unevaluated sum or reordered terms, \mbox{}, pmatrix against bmatrix, unbalanced braces. The seed's grader
// (vsubramaniam851/multiagent-ft multiagent-ft/grader.py, called by collaborative-reasoner
// evaluators/match_evaluators.py MATHMatchEvaluator.em_match) renders LaTeX with pylatexenc 2.11, which writes
// \frac{a+b}{c} as "a+b/c", drops \mbox{…}, and writes pmatrix / bmatrix alike as "[ a b; c d ]".
//  - The table below: verdicts we derived by reading that code (grade_answer → _normalize → _parse_latex).
//  - tests/fixtures/math-grader/seed-kinds-verdicts.jsonl: 1,119 generated pairs of these kinds (numbers drawn at
//    random into each form) with the verdict the seed's grade_answer gave when run outside this repository
//    (sympy 1.14.0, pylatexenc 2.11); the test prints the agreement of each mode.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseJsonl } from '../../../../../activities/artifacts/store';
import { gradeMathAnswer } from '../../../../../activities/recipes/shared/math-equivalence';
import { graderNormalize } from '../../../../../activities/recipes/shared/math-normalize';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

// [prediction, gold, seed verdict, fixed verdict, why (grader.py function)]
const READ: [string, string, boolean, boolean, string][] = [
  ['\\frac{1}{5}', '\\frac{1}{2+3}', false, true, '_parse_latex: "1/2+3" is 3.5'],
  ['\\frac{1}{2+3}', '\\frac{1}{5}', false, true, '_parse_latex: "1/2+3" is 3.5'],
  ['\\frac{b+a}{2}', '\\frac{a+b}{2}', false, true, '_parse_latex: b+a/2 − (a+b/2) ≠ 0'],
  ['\\frac{1}{x+1}', '\\frac{1}{1+x}', false, true, '_parse_latex: 1/x+1 − (1/1+x) ≠ 0'],
  ['\\frac{3}{4}', '\\frac{3}{4}', true, true, 'math_normalize.normalize_answer: the same string'],
  ['\\mbox{5}', '5', false, true, '_parse_latex drops \\mbox{}: "" is no answer (len(given_normalized) == 0)'],
  ['\\mbox{5}', '\\mbox{7}', true, false, '_normalize: both "" and equal'],
  ['5\\mbox{ cm}', '5', true, true, '_parse_latex drops the \\mbox unit'],
  ['\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '\\begin{bmatrix} 1 \\\\ 2 \\end{bmatrix}', true, false, '_parse_latex: both "[ 1; 2 ]"'],
  [
    '\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}',
    '\\begin{bmatrix} 2 \\\\ 1 \\end{bmatrix}',
    false,
    false,
    '"[1;2]" vs "[2;1]", sympy cannot parse ";"',
  ],
  ['\\frac{1}{2', '\\frac{1}{2}', true, true, '_parse_latex reads an unclosed group to the end: both "1/2"'],
  ['\\sqrt{3}}', '\\sqrt{3}', true, true, '_normalize drops stray braces'],
  ['\\sqrt[3]{2}', '\\sqrt{2}', true, false, '_parse_latex drops the root index'],
  ['', '', true, false, 'grade_answer: no emptiness check, equal normal forms'],
];

describe('MATH grading reproduces the seed grader under compat: seed (verdicts read from its code)', () => {
  it.each(READ)('%s vs gold %s → seed %s, fixed %s (%s)', (pred, gold, seed, fixed) => {
    expect(gradeMathAnswer(pred, gold, 'seed')).toBe(seed);
    expect(gradeMathAnswer(pred, gold, 'fixed')).toBe(fixed);
    expect(gradeMathAnswer(pred, gold)).toBe(fixed); // fixed is the default
  });

  it('renders LaTeX as pylatexenc does for the seed, and as written for fixed', () => {
    expect(graderNormalize('\\frac{a+b}{2}', 'seed')).toBe('a+b/2');
    expect(graderNormalize('\\frac{a+b}{2}')).toBe('(a+b)/2');
    expect(graderNormalize('\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}', 'seed')).toBe('[1+2;3+4]');
    expect(graderNormalize('\\mbox{yes}', 'seed')).toBe('');
    expect(graderNormalize('\\mbox{yes}')).toBe('yes');
  });
});

interface Verdict {
  kind: string;
  pred: string;
  gold: string;
  seed: boolean;
}
const generated: Verdict[] = parseJsonl<Verdict>(
  readFileSync(path.join(PROJECT_ROOT, 'tests/fixtures/math-grader/seed-kinds-verdicts.jsonl'), 'utf8'),
);

describe("generated cases of those kinds against the seed grader's own verdicts", () => {
  it('agree on at least 99 % under compat: seed (fixed keeps reading the LaTeX as written)', () => {
    expect(generated.length).toBe(1119);
    const agreement = (compat: 'seed' | 'fixed') => {
      const byKind = new Map<string, [number, number]>();
      for (const v of generated) {
        const [ok, n] = byKind.get(v.kind) ?? [0, 0];
        byKind.set(v.kind, [ok + (gradeMathAnswer(v.pred, v.gold, compat) === v.seed ? 1 : 0), n + 1]);
      }
      const all = [...byKind.values()].reduce(([a, b], [c, d]) => [a + c, b + d], [0, 0]);
      const pct = (ok: number, n: number) => `${((100 * ok) / n).toFixed(1)} %`;
      console.log(
        `MATH agreement with the seed grader, compat ${compat}: ${pct(...all)} of ${all[1]} (${[...byKind]
          .map(([k, [ok, n]]) => `${k} ${pct(ok, n)}`)
          .join(', ')})`,
      );
      return all[0] / all[1];
    };
    expect(agreement('seed')).toBeGreaterThanOrEqual(0.99);
    expect(agreement('fixed')).toBeLessThan(0.5); // these are the kinds where the two modes differ
  });
});
