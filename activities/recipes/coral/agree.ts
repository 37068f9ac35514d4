// ★ CoRal's agreement check — the stop condition of every conversation (collaborative-reasoner lightning_modules/, the conversation loop).
// After each generated turn: take each role's most recent belief (scanning back from the newest turn, which with
// strict alternation means "the last two turns"); the agents agree when both beliefs are valid and the same
// answer after normalisation. An unsure or failed extraction on either side is never agreement.
import type { Compat } from './compat';
import type { Belief } from './extract';
import { mathAnswersEquivalent } from '../shared/math-equivalence';
import type { CoralDataset } from './tasks';

export function answersAgree(dataset: CoralDataset, a: Belief, b: Belief, compat: Compat): boolean {
  if (!a.valid || !b.valid) return false;
  if (dataset === 'math') {
    // SEED-COMPAT: the seed compares the boxed strings, so \frac12 vs 0.5 (or "8" vs "x=8") never agree and the
    // agents talk on until max turns; fixed mode uses the grader's equivalence.
    return compat === 'seed' ? a.answer === b.answer : mathAnswersEquivalent(a.answer, b.answer);
  }
  return a.answer === b.answer;
}

export interface RoleBelief {
  role: string;
  belief: Belief;
}

/** `turns`: the generated turns so far (turn 0, the question, has no belief), oldest first. */
export function agreementReached(dataset: CoralDataset, turns: readonly RoleBelief[], compat: Compat): boolean {
  const latest = new Map<string, Belief>();
  for (let i = turns.length - 1; i >= 0 && latest.size < 2; i--) {
    if (!latest.has(turns[i].role)) latest.set(turns[i].role, turns[i].belief);
  }
  if (latest.size < 2) return false;
  const [a, b] = [...latest.values()];
  return answersAgree(dataset, a, b, compat);
}
