// Gold matching per dataset (seed brief A.4): letters for MMLU-Pro/GPQA, grader equivalence for MATH, the seed's
// rule cascade for ExploreToM / Hi-ToM.
import type { Belief } from './beliefs';
import { normalizeTomAnswer } from './beliefs';
import type { Compat } from './compat';
import { mathAnswersEquivalent } from './math-equivalence';
import { isMultipleChoice, type CoralTask } from './tasks';

export function tomMatches(pred: string, gold: string): boolean {
  const p = ` ${pred} `;
  if (gold.includes('does not know') && p.includes(' not ')) return true;
  if (gold.startsWith('knows about') && !p.includes(' not ')) return true;
  if (gold === 'yes' || gold === 'no') {
    const head = pred.split(/[,.]/)[0].trim();
    if (head === gold) return true;
  }
  return pred.includes(gold) || gold.includes(pred);
}

export function matchesGold(task: CoralTask, belief: Belief, compat: Compat): boolean {
  if (!belief.valid) return false;
  if (isMultipleChoice(task.dataset)) return belief.answer === task.gold;
  if (task.dataset === 'math') return mathAnswersEquivalent(belief.answer, task.gold);
  return tomMatches(belief.answer, normalizeTomAnswer(task.gold, task.dataset, compat));
}
