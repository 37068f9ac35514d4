// The configuration side of TOA's evaluation and presets: `recipe.evaluation` adds the `judge` role and is refused,
// naming the field, when a reference output is missing or malformed; the seed's presets fill tau, alpha and the
// temperature (oceanypt/TOA bash/exp_nmt: tau 1, alpha 0.05; data_gen_ultrafeedback MCTS: 0.8) unless written.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../../configs/load';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { RECIPES } from '../../../../../activities/recipes/registry';
import { toaRecipeSchema } from '../../../../../activities/recipes/toa/config';
import { parseReferences, referenceFor } from '../../../../../activities/recipes/toa/references';
import { planParams } from '../../../../../activities/recipes/toa/runtime';
import { methodTemperature } from '../../../../../activities/recipes/toa/settings';
import { parseToaTasks } from '../../../../../activities/recipes/toa/tasks';

const toa = path.join(PROJECT_ROOT, 'configs', 'toa.dry-run.yaml');
const dir = mkdtempSync(path.join(os.tmpdir(), 'toa-eval-config-'));
/** The config error a load with `evaluation` set to `references` fails with (field and message). */
const refused = (references: string, field: string, message: RegExp) =>
  expect(() => loadConfig(toa, { overrides: [`recipe.evaluation={references: ${references}}`] })).toThrow(
    expect.objectContaining({ field, message: expect.stringMatching(message) }),
  );
const instructions = parseToaTasks(
  // The dry run's first 6 evaluation prompts (its `limit: 6`).
  readFileSync(path.join(PROJECT_ROOT, 'configs/tasks/toa/instructions.jsonl'), 'utf8'),
  'instructions.jsonl',
  'instruction',
).slice(0, 6);

function referencesFile(name: string, rows: unknown[]) {
  const f = path.join(dir, name);
  writeFileSync(f, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return f;
}

describe('recipe.evaluation in a config', () => {
  it('adds the judge role; every evaluation prompt must have its reference output', () => {
    const all = referencesFile(
      'all.jsonl',
      instructions.map((t) => ({ id: t.id, output: `reference for ${t.id}` })),
    );
    const { config } = loadConfig(toa, { overrides: [`recipe.evaluation={references: ${all}}`] });
    const recipe = RECIPES.find((r) => r.name === 'toa')!;
    expect(Object.keys(recipe.roles(config.recipe as never))).toContain('judge');
    // The dry run evaluates against its references; without recipe.evaluation there is no judge.
    const { evaluation, ...withoutEvaluation } = loadConfig(toa).config.recipe as Record<string, unknown>;
    expect(evaluation).toMatchObject({ references: path.join(PROJECT_ROOT, 'configs/tasks/toa/references.jsonl') });
    expect(Object.keys(recipe.roles(withoutEvaluation as never))).not.toContain('judge');

    const some = referencesFile(
      'some.jsonl',
      instructions.slice(1).map((t) => ({ id: t.id, output: 'x' })),
    );
    refused(some, 'recipe.evaluation.references', new RegExp(`no reference output for evaluation task "${instructions[0].id}"`));

    const bad = referencesFile('bad.jsonl', [
      { id: 'a', output: 'fine' },
      { id: 'b', output: 3 },
    ]);
    refused(bad, 'recipe.evaluation.references', /bad\.jsonl line 2: field "output" must be a non-empty string/);
  });

  it('KIWI alone needs no references and adds the kiwi role; it scores translations only', () => {
    const wmt = path.join(PROJECT_ROOT, 'configs/tasks/toa/translation.jsonl');
    const kiwiOnly = 'recipe.evaluation={kiwi: true, alpacaEval: false, arenaHard: false}';
    const { config } = loadConfig(toa, {
      overrides: ['recipe.task=translation', `recipe.evalTasks=${wmt}`, `recipe.trainTasks=${wmt}`, kiwiOnly],
    });
    const roles = Object.keys(RECIPES.find((r) => r.name === 'toa')!.roles(config.recipe as never));
    expect(roles).toContain('kiwi');
    expect(roles).not.toContain('judge');
    expect(() => loadConfig(toa, { overrides: [kiwiOnly] })).toThrow(expect.objectContaining({ field: 'recipe.evaluation.kiwi' }));
    expect(() => loadConfig(toa, { overrides: ['recipe.evaluation={bootstrap: 10}'] })).toThrow(
      expect.objectContaining({ field: 'recipe.evaluation.references' }),
    );
  });

  it('reads AlpacaEval (array, by instruction), Arena-Hard answers (by question_id) and {id, output} rows', () => {
    const alpaca = parseReferences(
      JSON.stringify([{ instruction: ' Question one? ', output: 'A1', generator: 'gpt4_turbo', instruction_difficulty: -0.4 }]),
      'ref.json',
    );
    expect(referenceFor(alpaca, { id: 'x', kind: 'instruction', instruction: 'Question one?' })).toEqual({
      output: 'A1',
      difficulty: -0.4,
    });
    const arena = parseReferences(
      JSON.stringify({ question_id: 'q7', model_id: 'gpt-4-0314', choices: [{ index: 0, turns: [{ content: 'A7' }] }] }),
      'answers.jsonl',
    );
    expect(referenceFor(arena, { id: 'q7', kind: 'instruction', instruction: 'anything' })).toEqual({ output: 'A7' });
    expect(() => parseReferences('{"id": 1, "output": "x", "instruction_difficulty": "hard"}', 'r.jsonl')).toThrow(
      /line 1: field "instruction_difficulty" must be a number/,
    );
    expect(() => parseReferences('', 'empty.jsonl')).toThrow(/empty\.jsonl: has no reference outputs/);
    expect(() => parseReferences('{"output": "x"}', 'r.jsonl')).toThrow(/line 1: field "instruction"/);
  });
});

describe("the seed's presets", () => {
  const base = { name: 'toa', evalTasks: 'x.jsonl', policies: 2, flops: {} };
  it('a translation task searches with WMT’s tau 1 and alpha 0.05, an instruction task with 0.1 / 0.01', () => {
    const wmt = toaRecipeSchema.parse({ ...base, task: 'translation' });
    expect(planParams(wmt, 'toa', 1)).toMatchObject({ tau: 1, alpha: 0.05 });
    const alpaca = toaRecipeSchema.parse({ ...base, task: 'instruction' });
    expect(planParams(alpaca, 'toa', 1)).toMatchObject({ tau: 0.1, alpha: 0.01 });
    expect(methodTemperature(alpaca, 'toa')).toBe(0.7);
  });

  it("UltraFeedback: 0.8 for TOA's search only; values written in the config win over the preset", () => {
    const uf = toaRecipeSchema.parse({ ...base, task: 'instruction', preset: 'ultrafeedback' });
    expect(methodTemperature(uf, 'toa')).toBe(0.8);
    expect(methodTemperature(uf, 'moa')).toBe(0.7);
    const own = toaRecipeSchema.parse({ ...base, task: 'translation', temperature: 0.3, search: { tau: 0.5 } });
    expect(methodTemperature(own, 'toa')).toBe(0.3);
    expect(planParams(own, 'toa', 1)).toMatchObject({ tau: 0.5, alpha: 0.05 });
  });
});
