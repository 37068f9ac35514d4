// compat: seed reads and grades extractor replies as the seed's own evaluators do
// (collaborative-reasoner evaluators/extraction_evaluators.py normalize_answer / is_valid_answer, then
// evaluators/match_evaluators.py em_match): tests/fixtures/coral/seed-extraction-verdicts.jsonl holds 311 replies we
// wrote for MATH, MMLU-Pro and ExploreToM, each against several gold answers, with the (valid, correct) verdicts the
// seed's methods gave when run outside this repository. Among them the seed's quirks: a MATH answer is valid only
// as `$\boxed{…}$`, yet a failed extraction is still graded; a failed multiple-choice extraction reads as the
// letter E (from "Error:"); the ToM answer prefix is case-sensitive; an unsure ToM reply matches the gold "no".
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { matchesGold, parseExtractorReply, type CoralTask } from '../../../../../activities/recipes/coral';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

interface Verdict {
  dataset: 'math' | 'mmlu_pro' | 'explore_tom';
  reply: string;
  gold: string;
  valid: boolean;
  correct: boolean;
}
const verdicts: Verdict[] = readFileSync(path.join(PROJECT_ROOT, 'tests/fixtures/coral/seed-extraction-verdicts.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const task = (v: Verdict): CoralTask =>
  v.dataset === 'mmlu_pro'
    ? { id: 'q', dataset: v.dataset, question: 'Q?', options: 'abcdefghij'.split(''), gold: v.gold }
    : { id: 'q', dataset: v.dataset, question: 'Q?', gold: v.gold };
const ours = (v: Verdict, compat: 'seed' | 'fixed') => {
  const belief = parseExtractorReply(v.dataset, v.reply, compat);
  return { valid: belief.valid, correct: matchesGold(task(v), belief, compat) };
};

describe("compat: seed gives the seed evaluators' verdicts on extractor replies", () => {
  it('every reply × gold of the fixture: validity and correctness', () => {
    expect(verdicts.length).toBe(311);
    const differ = verdicts.filter((v) => {
      const o = ours(v, 'seed');
      return o.valid !== v.valid || o.correct !== v.correct;
    });
    expect(differ).toEqual([]);
  });

  it('the quirks it reproduces are what compat: fixed corrects', () => {
    const at = (dataset: Verdict['dataset'], reply: string, gold: string) =>
      verdicts.find((v) => v.dataset === dataset && v.reply === reply && v.gold === gold)!;
    // A failed multiple-choice extraction is the letter E in the seed, nothing in fixed mode.
    expect(at('mmlu_pro', 'no letter here', 'E')).toMatchObject({ valid: false, correct: true });
    expect(ours(at('mmlu_pro', 'no letter here', 'E'), 'fixed')).toEqual({ valid: false, correct: false });
    // A bare \boxed{5} is invalid but graded correct by the seed; fixed mode reads it as a valid 5.
    expect(at('math', '\\boxed{5}', '5')).toMatchObject({ valid: false, correct: true });
    expect(ours(at('math', '\\boxed{5}', '5'), 'fixed')).toEqual({ valid: true, correct: true });
    // "not sure yet" contains "no": correct for the seed, never for fixed mode.
    expect(at('explore_tom', 'not sure yet', 'no')).toMatchObject({ valid: false, correct: true });
    expect(ours(at('explore_tom', 'not sure yet', 'no'), 'fixed').correct).toBe(false);
    // The seed's prefix is case-sensitive: "short answer: the basket" keeps "short answer: " and still contains
    // "basket"; the gold "Basket" is compared raw, so the lower-cased prediction misses it.
    expect(at('explore_tom', 'The Basket.', 'Basket')).toMatchObject({ valid: true, correct: false });
    expect(ours(at('explore_tom', 'The Basket.', 'Basket'), 'fixed').correct).toBe(true);
  });
});
