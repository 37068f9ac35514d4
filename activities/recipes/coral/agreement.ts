// CoRal's agreement check — the stop condition of a conversation. Scanning back from the newest turn, take each
// role's most recent belief; the agents agree when both beliefs are valid and the same answer.
import type { Belief } from './beliefs';
import type { Compat } from './compat';
import { mathAnswersEquivalent } from './math-equivalence';
import type { CoralDataset } from './tasks';

export function sameAnswer(dataset: CoralDataset, a: Belief, b: Belief, compat: Compat): boolean {
  if (!a.valid || !b.valid) return false;
  // SEED-COMPAT: the seed compares MATH answers as raw strings, so \frac12 and 0.5 never agree.
  if (dataset === 'math' && compat !== 'seed') return mathAnswersEquivalent(a.answer, b.answer);
  return a.answer === b.answer;
}

export interface RoleBelief { role: string; belief?: Belief }

export function agreementReached(dataset: CoralDataset, turns: RoleBelief[], compat: Compat): boolean {
  const latest = new Map<string, Belief>();
  for (let i = turns.length - 1; i >= 0 && latest.size < 2; i--) {
    const t = turns[i];
    if (t.belief && !latest.has(t.role)) latest.set(t.role, t.belief);
  }
  if (latest.size < 2) return false;
  const [a, b] = [...latest.values()];
  return sameAnswer(dataset, a, b, compat);
}
