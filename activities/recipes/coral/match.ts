// Gold matching per dataset (collaborative-reasoner evaluators/ and utils/), local and deterministic: option letters for MMLU-Pro / GPQA, the
// grader's equivalence for MATH (math-equivalence.ts), and the seed's first-rule-that-fires cascade for ToM.
import type { Compat } from './compat';
import { normalizeTomAnswer, type Belief } from './extract';
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

export function matchesGold(task: CoralTask, belief: Belief, compat: Compat): boolean {
  if (!belief.valid) return false;
  if (isMultipleChoice(task.dataset)) return belief.answer === task.gold;
  if (task.dataset === 'math') return gradeMathAnswer(belief.answer, task.gold);
  return tomMatches(belief.answer, tomGold(task.gold, task.dataset, compat));
}
