// Which turns become SFT examples and which candidate pairs become DPO pairs, under `compat: fixed` and the seed's
// rules (collaborative-reasoner finetuning/data_creation/ts_correctness_filtering.py and filtering_utils.py), on
// conversations built by hand.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildPreferencePairs,
  buildSftExamples,
  candidateScores,
  coralDataOptions,
  rewardGapPairs,
  type CoralConversation,
  type CoralTurn,
} from '../../../../../activities/recipes/coral';
import { heldInMemory } from '../../../../../activities/data/held-rows';
import type { CoralRecipeConfig } from '../../../../../activities/recipes/coral/config';
import { coralRuntime } from '../../../../../activities/recipes/coral/runtime';
import { loadConfig } from '../../../../../configs/load';
import { demoConfigError } from '../../../../helpers/config';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

const demo = path.join(PROJECT_ROOT, 'configs', 'demo.yaml');

const gen = (role: 'teacher' | 'student', content: string, correct: boolean, extra: Partial<CoralTurn> = {}): CoralTurn => ({
  role,
  content,
  extracted: correct ? 'C' : 'A',
  valid: true,
  correct,
  ...extra,
});

/** Three generated turns; agreed on the last one, which is correct unless `wrong`. */
const conv = (taskId: string, sampleIndex: number, wrong = false): CoralConversation => ({
  taskId,
  dataset: 'mmlu_pro',
  sampleIndex,
  mode: 'coral',
  system: 'SYS',
  maxTurns: 20,
  agreed: true,
  finalAnswer: wrong ? 'A' : 'C',
  correct: !wrong,
  usage: { promptTokens: 0, completionTokens: 0 },
  calls: 6,
  turns: [
    { role: 'student', content: 'Q' },
    gen('teacher', `${taskId}${sampleIndex}t1`, !wrong),
    gen('student', `${taskId}${sampleIndex}s2`, false),
    gen('teacher', `${taskId}${sampleIndex}t3`, !wrong, { agreement: true }),
  ],
});

const ids = (ex: Array<{ taskId: string; sampleIndex: number; turn: number }>) => ex.map((e) => `${e.taskId}${e.sampleIndex}/${e.turn}`);

describe('SFT selection', () => {
  // Task a: sample 0 agreed on a wrong answer, samples 1-3 correct. Task b: one correct sample. Given out of order.
  const records = [conv('b', 0), conv('a', 3), conv('a', 1), conv('a', 0, true), conv('a', 2)];

  it('correct_agreement caps TURNS per task, from correctly agreed conversations only', () => {
    expect(ids(buildSftExamples(records, { selection: 'correct_agreement', maxPerTask: 4 }))).toEqual([
      'a1/1',
      'a1/2',
      'a1/3',
      'a2/1',
      'b0/1',
      'b0/2',
      'b0/3',
    ]);
  });

  it("all_turns (the seed's) takes every turn of the first N CONVERSATIONS per task, right or wrong", () => {
    expect(ids(buildSftExamples(records, { selection: 'all_turns', maxPerTask: 2 }))).toEqual([
      'a0/1',
      'a0/2',
      'a0/3',
      'a1/1',
      'a1/2',
      'a1/3',
      'b0/1',
      'b0/2',
      'b0/3',
    ]);
  });
});

describe("the seed's reward-gap pair choice", () => {
  const spine = (correct: boolean, siblings: CoralTurn[], extra: Partial<CoralTurn> = {}) =>
    gen('teacher', 'spine', correct, { siblings, ...extra });
  const text = (pairs: Array<{ chosen: CoralTurn | string; rejected: CoralTurn | string }>) =>
    pairs.map((p) => {
      const c = typeof p.chosen === 'string' ? p.chosen : p.chosen.content;
      const r = typeof p.rejected === 'string' ? p.rejected : p.rejected.content;
      return `${c}>${r}`;
    });
  const candidates = (t: CoralTurn) => [t, ...(t.siblings ?? [])];

  it('keeps gaps > 0.5 in enumeration order (stable sort): the spine turn first, the higher score chosen', () => {
    const right = spine(true, [gen('teacher', 'A', false), gen('teacher', 'B', true), gen('teacher', 'D', false)]);
    expect(text(rewardGapPairs(candidates(right), undefined, 'seed'))).toEqual(['spine>A', 'spine>D', 'B>A', 'B>D']);
    const wrong = spine(false, [gen('teacher', 'X', true), gen('teacher', 'Y', false), gen('teacher', 'Z', true)]);
    expect(text(rewardGapPairs(candidates(wrong), undefined, 'seed'))).toEqual(['X>spine', 'Z>spine', 'X>Y', 'Z>Y']);
    expect(rewardGapPairs(candidates(spine(true, [gen('teacher', 'E', true)])), undefined, 'seed')).toEqual([]);
  });

  it('buildPreferencePairs keeps the first maxPairsPerTurn of that order', () => {
    const right = spine(true, [gen('teacher', 'A', false), gen('teacher', 'B', true), gen('teacher', 'D', false)]);
    const record: CoralConversation = { ...conv('q', 0), turns: [{ role: 'student', content: 'Q' }, right] };
    const build = (maxPairsPerTurn: number) =>
      text(buildPreferencePairs([record], { choice: 'reward_gap', maxPairsPerTurn, maxPerTask: 10 })).sort();
    expect(build(1)).toEqual(['spine>A']);
    expect(build(3)).toEqual(['B>A', 'spine>A', 'spine>D']);
    expect(() => buildPreferencePairs([record], { discourage: 'agreement' })).toThrow(/reward_gap/);
  });

  it('discourage agreement: rejecting a wrong candidate that agreed ranks before rejecting one that did not', () => {
    const t = spine(true, [gen('teacher', 'A', false), gen('teacher', 'B', false, { agreement: true })]);
    expect(candidateScores(candidates(t), 'agreement', 'seed')).toEqual([1, 0, -0.1]);
    expect(text(rewardGapPairs(candidates(t), undefined, 'seed'))).toEqual(['spine>A', 'spine>B']);
    expect(text(rewardGapPairs(candidates(t), 'agreement', 'seed'))).toEqual(['spine>B', 'spine>A']);
    // A correct candidate that agreed is not penalised.
    expect(candidateScores([gen('teacher', 'c', true, { agreement: true })], 'agreement', 'fixed')).toEqual([1]);
  });

  it('discourage length: fixed measures the text; the seed reads completion tokens, equal across candidates', () => {
    const usage = { promptTokens: 9, completionTokens: 7 };
    const t = spine(true, [gen('teacher', 'A1', false, { usage }), gen('teacher', 'B'.repeat(20), false, { usage })], {
      content: 'C'.repeat(10),
      usage,
    });
    // lengths 10, 2, 20 → normalised (l - 2) / 19
    expect(candidateScores(candidates(t), 'length', 'fixed')).toEqual([1 - (0.1 * 8) / 19, 0, -(0.1 * 18) / 19]);
    const long = 'B'.repeat(20);
    const spineText = 'C'.repeat(10);
    expect(text(rewardGapPairs(candidates(t), 'length', 'fixed'))).toEqual([`${spineText}>${long}`, `${spineText}>A1`]);
    expect(candidateScores(candidates(t), 'length', 'seed')).toEqual([1, 0, 0]);
    expect(text(rewardGapPairs(candidates(t), 'length', 'seed'))).toEqual([`${spineText}>A1`, `${spineText}>${long}`]);
    // Where token counts do differ, the seed's rule uses them (1 when missing).
    const counted = [gen('teacher', 'x', true, { usage: { promptTokens: 0, completionTokens: 3 } }), gen('teacher', 'y', true)];
    expect(candidateScores(counted, 'length', 'seed')).toEqual([1 - (0.1 * 2) / 3, 1]);
  });
});

describe('recipe.data in the config', () => {
  const recipeOf = (overrides: string[]) => loadConfig(demo, { overrides }).config.recipe as CoralRecipeConfig;
  const options = (overrides: string[]) => {
    const o = coralDataOptions(recipeOf(overrides), 5);
    return { selection: o.sft.selection, choice: o.pairs.choice, discourage: o.pairs.discourage, compat: o.pairs.compat };
  };

  it('defaults follow compat; an explicit field wins', () => {
    expect(options([])).toEqual({ selection: 'correct_agreement', choice: 'shuffled', discourage: undefined, compat: 'fixed' });
    expect(options(['recipe.compat=seed'])).toEqual({
      selection: 'all_turns',
      choice: 'reward_gap',
      discourage: undefined,
      compat: 'seed',
    });
    expect(options(['recipe.compat=seed', 'recipe.data.sftSelection=correct_agreement', 'recipe.data.pairChoice=shuffled'])).toEqual({
      selection: 'correct_agreement',
      choice: 'shuffled',
      discourage: undefined,
      compat: 'seed',
    });
    expect(
      options(['recipe.data.sftSelection=all_turns', 'recipe.data.pairChoice=reward_gap', 'recipe.data.discourageLength=true']),
    ).toEqual({ selection: 'all_turns', choice: 'reward_gap', discourage: 'length', compat: 'fixed' });
    expect(options(['recipe.compat=seed', 'recipe.data.discourageAgreement=true']).discourage).toBe('agreement');
  });

  it('rejects discourage* without reward_gap, both at once, and unknown selections', () => {
    const noGap = demoConfigError(['recipe.data.discourageAgreement=true']);
    expect(noGap.field).toBe('recipe.data.discourageAgreement');
    expect(noGap.message).toMatch(/needs recipe\.data\.pairChoice reward_gap/);
    expect(demoConfigError(['recipe.compat=seed', 'recipe.data.discourageAgreement=true', 'recipe.data.discourageLength=true']).field).toBe(
      'recipe.data.discourageLength',
    );
    expect(demoConfigError(['recipe.data.sftSelection=first_ten']).field).toBe('recipe.data.sftSelection');
  });

  it('the streaming builder writes the rows buildData returns, one task at a time, as records arrive task-major', () => {
    const runtime = coralRuntime(recipeOf(['recipe.compat=seed']), 0, 'trl');
    const records = ['a', 'b', 'c'].flatMap((t) => [conv(t, 0), conv(t, 1, true), conv(t, 2)]);
    const rows: string[] = [];
    let firstRowAt: number | undefined;
    let added = 0;
    const builder = runtime.dataBuilder({
      row: (_role, _dataset, line) => {
        rows.push(line);
        firstRowAt ??= added;
      },
      extra: () => {},
      held: heldInMemory,
    });
    for (const r of records) {
      builder.add(r);
      added++;
    }
    const counts = builder.finish();
    const built = runtime.buildData(records);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.sort()).toEqual([...built.byRole.agent.sft, ...built.byRole.agent.dpo].sort());
    expect(counts).toEqual(built.counts);
    // Task a's rows were written as task b's first record arrived, not at the end.
    expect(firstRowAt).toBe(3);
    // A task whose records come back after another's would get its per-task caps twice: refused.
    const again = runtime.dataBuilder({ row: () => {}, extra: () => {}, held: heldInMemory });
    for (const r of [conv('a', 0), conv('b', 0), conv('a', 1)]) again.add(r);
    expect(() => again.finish()).toThrow(/task a are not together/);
  });

  it('the runtime builds data with the resolved options', () => {
    const records = [conv('a', 0, true), conv('a', 1)];
    const counts = (overrides: string[]) => coralRuntime(recipeOf(overrides), 0, 'trl').buildData(records).counts;
    expect(counts([])).toEqual({ sft_examples: 3, preference_pairs: 0 });
    expect(counts(['recipe.compat=seed'])).toEqual({ sft_examples: 6, preference_pairs: 0 });
  });
});
