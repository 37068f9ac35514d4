// `collab-loop score --recipe coral` on a multiple-choice `response` (no extractor reply). Under `compat: seed` it is
// graded as the seed grades a turn no extractor has read: collaborative-reasoner evaluators/match_evaluators.py
// MatchEvaluator._eval hands the whole content to MMLUProMatchEvaluator.em_match → extract_letter_answer (lstrip of
// the characters of "The answer is ", then every capital letter), correct iff that is the gold letter alone.
// `fixed` reads the response as a perfect extractor would (local-extractor.ts) and keeps doing so.
//  - The table: verdicts we derived by reading extract_letter_answer.
//  - tests/fixtures/coral/seed-mc-response-verdicts.jsonl: 223 generated responses (lowercase letters, several
//    letters, hedged replies, plain ones) with the verdict of the seed's extract_letter_answer, run outside this
//    repository.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseJsonl } from '../../../../../activities/artifacts/store';
import { describe, expect, it } from 'vitest';
import { scoreRecord } from '../../../../../activities/recipes/coral';
import { FIXTURES } from '../../../../helpers/coral';

const row = (response: string, answer: string) => ({
  question: 'Which option?',
  options: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
  answer,
  response,
});

// [response, gold, seed: letters read and verdict, fixed verdict]
const READ: [string, string, string, boolean, boolean][] = [
  ['The answer is (C).', 'C', 'C', true, true], // lstrip eats "The answer is ", "(C)." keeps one capital
  ['(c)', 'C', '', false, false], // no capital letter
  ['the answer is (c)', 'C', '', false, true], // lowercase "t" is not in the lstrip set; no capital
  ['(A) and (C)', 'C', 'AC', false, false], // several letters
  ['Final answer: (C)', 'C', 'FC', false, true], // the F of "Final"
  ['Probably (C).', 'C', 'PC', false, true], // a hedge's capital
  ['It could be (A) or (C).', 'A', 'IAC', false, false],
  ['C', 'C', 'C', true, false], // fixed wants the letter in parentheses or after "answer is"
];

describe('MMLU-Pro responses under compat: seed read capitals as the seed does; fixed reads the answer', () => {
  it.each(READ)('%s (gold %s) → seed reads %s: %s; fixed: %s', (response, gold, letters, seed, fixed) => {
    expect(scoreRecord('mmlu_pro', row(response, gold), 'seed')).toMatchObject({
      extracted: letters,
      correct: seed,
      valid: letters.length === 1,
    });
    expect(scoreRecord('mmlu_pro', row(response, gold), 'fixed').correct).toBe(fixed);
  });

  it('an extractor reply is still read as the extractor path reads it, in both modes', () => {
    const r = { ...row('Probably (C).', 'C'), extracted: '(C)' };
    expect(scoreRecord('mmlu_pro', r, 'seed').correct).toBe(true);
    expect(scoreRecord('mmlu_pro', r, 'fixed').correct).toBe(true);
  });
});

interface Verdict {
  kind: string;
  response: string;
  gold: string;
  seed: boolean;
}
const generated: Verdict[] = parseJsonl<Verdict>(readFileSync(path.join(FIXTURES, 'seed-mc-response-verdicts.jsonl'), 'utf8'));

describe("generated responses against the seed's extract_letter_answer", () => {
  it('agree on every one under compat: seed; fixed reads lowercase letters, several letters and hedges its way', () => {
    expect(generated.length).toBe(223);
    const differ = (compat: 'seed' | 'fixed') =>
      generated.filter((v) => scoreRecord('mmlu_pro', row(v.response, v.gold), compat).correct !== v.seed);
    const seed = differ('seed');
    console.log(`MMLU-Pro response agreement with the seed, compat seed: ${generated.length - seed.length}/${generated.length}`);
    expect(seed).toEqual([]);
    const fixed = new Set(differ('fixed').map((v) => v.kind));
    for (const kind of ['lowercase', 'several', 'hedged']) expect(fixed).toContain(kind);
  });
});
