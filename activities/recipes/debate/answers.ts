// Reading an agent's final answer and deciding when two answers are the same. Every agent is asked to end with its
// answer in \boxed{}; multiple-choice answers are a letter. `fixed`: equivalence is the MATH grader CoRal's evaluator
// uses (../shared/math-equivalence.ts), symmetric, for MATH and for GSM8K and arithmetic numbers alike. `seed`: each
// dataset is judged as its seed script judges it (see `sameAnswer` / `isCorrect`).
import { lastBoxed } from '../shared/boxed';
import { gradeMathAnswer, mathAnswersEquivalent } from '../shared/math-equivalence';
import type { MathCompat } from '../shared/math-normalize';
import type { DebateDataset } from './tasks';

export type AnswerCompat = MathCompat;

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

/** Python's float() of a decimal string; undefined where it raises (hex, words, empty). */
const pyFloat = (s: string): number | undefined => (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(s) ? Number(s) : undefined);
const sameNumber = (a: string, b: string) => {
  const x = pyFloat(a);
  return x !== undefined && x === pyFloat(b);
};
/** The gold number as llm_multiagent_debate gsm/eval_gsm.py `solve_math_problems` reads it: the last run of digits
 *  (with at most one decimal point) — so a gold "1,234" reads as 234. */
const seedGsmGold = (gold: string) => gold.match(/\d+\.?\d*/g)?.at(-1) ?? '';

/** SEED-COMPAT: under `compat: seed`, do tied clusters go to the first-seen one (llm_multiagent_debate's `most_frequent` for GSM
 *  and arithmetic) rather than the lexicographically largest name (multiagent-ft eval_math.py)? */
export const seedTieFirstSeen = (dataset: DebateDataset, compat: AnswerCompat) =>
  compat === 'seed' && (dataset === 'gsm8k' || dataset === 'arithmetic');

/**
 * Does the answer `given` agree with `reference` (an earlier cluster's name, the consensus, a later answer)?
 * `fixed`: symmetric equivalence. SEED-COMPAT: as the seeds judge it — MATH: `grade_answer(given, reference)`,
 * one direction (multiagent-ft eval_math.py `most_frequent`, ft_generator.py, ft_critic.py); GSM8K: string
 * identity of the parsed numbers (llm_multiagent_debate gsm/eval_gsm.py `most_frequent` counts with `list.count`);
 * arithmetic: equal as floats (math/gen_math.py parses each answer with float()); MMLU: the same letter.
 */
export function sameAnswer(dataset: DebateDataset, given: string, reference: string, compat: AnswerCompat): boolean {
  if (dataset === 'mmlu') return given === reference;
  if (compat === 'seed') {
    if (dataset === 'gsm8k') return given === reference;
    if (dataset === 'arithmetic') return sameNumber(given, reference);
    return gradeMathAnswer(given, reference, 'seed');
  }
  return given === reference || mathAnswersEquivalent(given, reference);
}

/** Is an answer the gold one? SEED-COMPAT: MATH through the seed's `grade_answer`; GSM8K and arithmetic as floats
 *  (eval_gsm.py `float(answers) == float(pred_answer)`, gen_math.py `text_answer == answer`). */
export function isCorrect(dataset: DebateDataset, answer: string | undefined, gold: string, compat: AnswerCompat): boolean {
  if (answer === undefined) return false;
  if (dataset === 'mmlu') return answer === gold;
  if (compat === 'seed') {
    if (dataset === 'gsm8k') return sameNumber(answer, seedGsmGold(gold));
    if (dataset === 'arithmetic') return sameNumber(answer, gold);
  }
  return gradeMathAnswer(answer, gold, compat);
}
