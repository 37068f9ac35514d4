// Reading an agent's final answer and deciding when two answers are the same. Every agent is asked to end with its
// answer in \boxed{}; multiple-choice answers are a letter. Equivalence is the MATH grader CoRal's evaluator uses
// (../shared/math-equivalence.ts), for MATH and for GSM8K and arithmetic numbers alike.
import { lastBoxed } from '../shared/boxed';
import { gradeMathAnswer, mathAnswersEquivalent } from '../shared/math-equivalence';
import type { DebateDataset } from './tasks';

/** The answer a reply commits to, or undefined when it gives none (no \boxed{}, or an empty one). */
export function parseAnswer(dataset: DebateDataset, reply: string): string | undefined {
  const boxed = lastBoxed(reply)?.trim();
  if (dataset === 'mmlu') {
    const letter = boxed ? /^\(?([A-Za-z])\)?(?:[.)\s]|$)/.exec(boxed)?.[1] : /answer is \(?([A-Z])\)?/i.exec(reply)?.[1];
    return letter?.toUpperCase();
  }
  if (!boxed) return undefined;
  return dataset === 'gsm8k' || dataset === 'arithmetic'
    ? boxed
        .replace(/^\\\$|^\$|,/g, '')
        .replace(/\\%|%$/g, '')
        .trim() || undefined
    : boxed;
}

/** Two agents' answers are the same answer (symmetric: neither is the gold). */
export function sameAnswer(dataset: DebateDataset, a: string, b: string): boolean {
  if (dataset === 'mmlu') return a === b;
  return a === b || mathAnswersEquivalent(a, b);
}

/** Is an answer the gold one? */
export function isCorrect(dataset: DebateDataset, answer: string | undefined, gold: string): boolean {
  if (answer === undefined) return false;
  return dataset === 'mmlu' ? answer === gold : gradeMathAnswer(answer, gold);
}
