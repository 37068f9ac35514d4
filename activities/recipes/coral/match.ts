// Gold matching per dataset (collaborative-reasoner evaluators/ and utils/), local and deterministic: option letters for MMLU-Pro / GPQA, the
// grader's equivalence for MATH (math-equivalence.ts), and the seed's first-rule-that-fires cascade for ToM.
import type { Compat } from './compat';
import { normalizeTomAnswer, UNSURE_PHRASE, type Belief } from './extract';
import { lastBoxed } from '../shared/boxed';
import { gradeMathAnswer } from '../shared/math-equivalence';
import { isMultipleChoice, type CoralDataset, type CoralTask } from './tasks';

/** The ToM matcher: knowledge phrasing, then yes/no heads, then substring either way. */
export function tomMatches(pred: string, gold: string): boolean {
  if (gold.includes('does not know') && pred.includes(' not ')) return true;
  if (gold.startsWith('knows about') && !pred.includes(' not ')) return true;
  if ((gold === 'yes' || gold === 'no') && (pred.split(',')[0] === gold || pred.split('.')[0] === gold)) return true;
  return pred.includes(gold) || gold.includes(pred);
}

/** The gold answer in the form the ToM matcher compares against. */
export function tomGold(gold: string, dataset: CoralDataset, compat: Compat): string {
  // SEED-COMPAT: the seed compares against the raw `expected_answer` (case and all), while predictions are
  // lower-cased and stripped of "the"; fixed mode normalises both sides the same way.
  return compat === 'seed' ? gold : normalizeTomAnswer(gold, dataset, compat);
}

/** The seed's letter reading (evaluators/match_evaluators.py): strip leading characters of "The answer is " (a
 *  character set, not a prefix), then keep every capital letter. */
export function seedLetters(extracted: string): string {
  let i = 0;
  while (i < extracted.length && 'The answrsi '.includes(extracted[i])) i++;
  return [...extracted.slice(i)].filter((c) => /\p{Lu}/u.test(c)).join(''); // Python's str.isupper, letter by letter
}

export function matchesGold(task: CoralTask, belief: Belief, compat: Compat): boolean {
  // SEED-COMPAT: the seed grades a failed extraction too, as the text "Error: <reply>" (extraction_evaluators.py):
  // multiple choice reads its capitals, which start with the E of "Error", so a reply with no other capital letter
  // is the answer "E"; MATH grades its last \boxed{} even without the "$…$" the extraction required. And an unsure
  // ToM belief is graded as the text "not sure yet", which the substring rule finds "no" in.
  if (!belief.valid && compat === 'seed') {
    if (belief.unsure)
      return (
        !isMultipleChoice(task.dataset) && task.dataset !== 'math' && tomMatches(UNSURE_PHRASE, tomGold(task.gold, task.dataset, compat))
      );
    if (belief.failedReply === undefined) return false;
    if (isMultipleChoice(task.dataset)) return seedLetters(`Error: ${belief.failedReply}`) === task.gold;
    const boxed = lastBoxed(belief.failedReply)?.trim();
    return task.dataset === 'math' && !!boxed && gradeMathAnswer(boxed, task.gold, compat);
  }
  if (!belief.valid) return false;
  if (isMultipleChoice(task.dataset)) return belief.answer === task.gold;
  if (task.dataset === 'math') return gradeMathAnswer(belief.answer, task.gold, compat);
  return tomMatches(belief.answer, tomGold(task.gold, task.dataset, compat));
}
