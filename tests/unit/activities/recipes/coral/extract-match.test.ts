import { describe, expect, it } from 'vitest';
import {
  gradeMathAnswer,
  lastBoxed,
  localExtractorReply,
  matchesGold,
  parseExtractorReply,
  type CoralTask,
} from '../../../../../activities/recipes/coral';

const mc: CoralTask = { id: 'q', dataset: 'mmlu_pro', question: 'Q?', options: ['a', 'b', 'c', 'd'], gold: 'C' };
const math = (gold: string): CoralTask => ({ id: 'm', dataset: 'math', question: 'P', gold });
const tom = (gold: string, dataset: 'explore_tom' | 'hi_tom' = 'explore_tom'): CoralTask => ({
  id: 't',
  dataset,
  story: 'S',
  question: 'Q',
  gold,
});
const belief = (dataset: CoralTask['dataset'], reply: string) => parseExtractorReply(dataset, reply, 'fixed');
const correct = (task: CoralTask, reply: string) => matchesGold(task, belief(task.dataset, reply), 'fixed');

describe('belief extraction from extractor replies', () => {
  it('multiple choice: the first "(X)"; "not sure yet" anywhere wins; no letter is invalid', () => {
    expect(belief('mmlu_pro', 'The answer is (C).')).toEqual({ answer: 'C', valid: true, unsure: false });
    expect(belief('gpqa', '(B) — though (D) was considered')).toMatchObject({ answer: 'B', valid: true });
    expect(belief('mmlu_pro', 'Not sure yet (A)')).toEqual({ answer: '', valid: false, unsure: true });
    expect(belief('mmlu_pro', 'option c')).toEqual({ answer: '', valid: false, unsure: false });
  });

  it("MATH: the last \\boxed{} (as the seeds' parse_answer), with nested braces", () => {
    expect(belief('math', '$\\boxed{\\frac{1}{2}}$')).toMatchObject({ answer: '\\frac{1}{2}', valid: true });
    expect(belief('math', 'The answer is 7.')).toMatchObject({ valid: false, unsure: false });
    expect(belief('math', 'First \\boxed{3}; corrected: \\boxed{\\frac{3}{2}}')).toMatchObject({ answer: '\\frac{3}{2}', valid: true });
    expect(lastBoxed('\\boxed{a} then \\boxed{\\text{(B)}}')).toBe('\\text{(B)}');
    expect(lastBoxed('\\boxed{unclosed')).toBeUndefined();
  });

  it('ToM: prefix stripped, first line, lower-cased, "the" removed, trailing dot gone; Hi-ToM joins words with _', () => {
    expect(belief('explore_tom', 'Short Answer: The Basket.\nbecause...')).toMatchObject({ answer: 'basket', valid: true });
    expect(belief('explore_tom', 'The final answer is Yes, he does.')).toMatchObject({ answer: 'yes, he does' });
    expect(belief('hi_tom', 'green bucket')).toMatchObject({ answer: 'green_bucket' });
  });
});

describe('gold matching', () => {
  it('multiple choice compares letters', () => {
    expect(correct(mc, '(C)')).toBe(true);
    expect(correct(mc, '(D)')).toBe(false);
    expect(correct(mc, 'not sure yet')).toBe(false);
  });

  it.each([
    ['0.5', '\\frac{1}{2}'],
    ['\\frac12', '0.5'],
    ['\\dfrac{1}{2}', '\\frac{1}{2}'],
    ['\\sqrt{12}', '2\\sqrt{3}'],
    ['2\\sqrt3', '2\\sqrt{3}'],
    ['\\text{(A)}', '(A)'],
    ['\\text{(A)}', '\\text{(A)}'],
    ['x = 8', '8'],
    ['1,000', '1000'],
    ['5 \\text{ cm}', '5'],
    ['10\\%', '10'],
    ['\\left(4, 6\\right)', '(4,6)'],
    ['(3, 0.5)', '\\left(3,\\frac{1}{2}\\right)'],
    ['[0, \\infty)', '[0,\\infty)'],
    ['9\\pi', '9\\pi'],
    ['-\\frac{1}{2}', '-0.5'],
    ['\\frac{\\sqrt{3}}{2}', '\\frac{\\sqrt3}{2}'],
    ['3.0', '3'],
    // The symbolic step (sympy, as the seeds' grader): equal but not string-identical.
    ['1+x^2', 'x^2+1'],
    ['\\frac{1}{2}\\sqrt{3}', '\\frac{\\sqrt{3}}{2}'],
    ['3+2y', '2y+3'],
    // A mixed number is its sum; scientific notation is a number.
    ['1\\frac{1}{2}', '\\frac{3}{2}'],
    ['1e-3', '0.001'],
  ])('MATH: %s equals gold %s', (pred, gold) => {
    expect(gradeMathAnswer(pred, gold)).toBe(true);
    expect(correct(math(gold), `$\\boxed{${pred}}$`)).toBe(true);
  });

  it.each([
    ['7', '8'],
    ['2/4', '\\frac{1}{2}'],
    ['\\sqrt{36}', '6'],
    ['0.333', '\\frac{1}{3}'],
    ['28.27', '9\\pi'],
    ['(6,4)', '(4,6)'],
    ['[4,6]', '(4,6)'],
    ['(4,6,1)', '(4,6)'],
    ['3\\sqrt{3}', '2\\sqrt{3}'],
    ['', '5'],
    ['x+1', 'x+2'],
    // Exact, as the seeds' grader: no relative tolerance for large numbers.
    ['123456789013', '123456789012'],
    ['3.14159265358979', '\\pi'],
    ['1\\frac{1}{2}', '\\frac{11}{2}'],
  ])('MATH: %s does not equal gold %s', (pred, gold) => {
    expect(gradeMathAnswer(pred, gold)).toBe(false);
  });

  it('MATH: a boxed option letter such as \\boxed{\\text{(A)}} matches its gold', () => {
    expect(correct(math('\\text{(A)}'), 'The answer is $\\boxed{\\text{(A)}}$')).toBe(true);
    expect(correct(math('\\text{(A)}'), '$\\boxed{\\text{(B)}}$')).toBe(false);
  });

  it('ToM: knowledge phrasing, yes/no heads, then substring either way', () => {
    expect(correct(tom('does not know about it'), 'She does not know')).toBe(true);
    expect(correct(tom('knows about it'), 'He knows')).toBe(true);
    expect(correct(tom('knows about it'), 'he does not know')).toBe(false);
    expect(correct(tom('yes'), 'Yes, he saw it.')).toBe(true);
    expect(correct(tom('no'), 'Yes.')).toBe(false);
    expect(correct(tom('basket'), 'the basket')).toBe(true);
    expect(correct(tom('basket'), 'box')).toBe(false);
    expect(correct(tom('green_bucket', 'hi_tom'), 'green bucket')).toBe(true);
    expect(correct(tom('green_bucket', 'hi_tom'), 'red_box')).toBe(false);
  });
});

describe('local reading of a full response (simulator, score)', () => {
  it('prefers an explicit final statement and refuses to guess between letters', () => {
    expect(localExtractorReply('mmlu_pro', '(A) is wrong, (B) too.\nFinal answer: (D)')).toBe('(D)');
    expect(localExtractorReply('mmlu_pro', 'Either (A) or (B).')).toBe('not sure yet');
    expect(localExtractorReply('gpqa', 'Only (B) survives the check.')).toBe('(B)');
    expect(localExtractorReply('math', 'First $\\boxed{1}$, finally $\\boxed{\\frac{1}{2}}$')).toBe('$\\boxed{\\frac{1}{2}}$');
    expect(localExtractorReply('explore_tom', 'Reasoning...\nShort Answer: the box')).toBe('the box');
    expect(localExtractorReply('hi_tom', 'I cannot tell.')).toBe('not sure yet');
  });
});
