// `collab-loop score --help` names the recipes the registry gives a scorer, and the datasets their config sections
// accept: a recipe that gains or loses `score` shows up there without touching cli/.
import { describe, expect, it } from 'vitest';
import { RECIPES } from '../../../activities/recipes/registry';
import { SCORE_HELP } from '../../../cli/score';
import { cli } from '../../helpers/cli';

describe('collab-loop score --help', () => {
  it('lists every recipe that defines score, and only those', async () => {
    const scorable = RECIPES.filter((r) => r.score).map((r) => r.name);
    expect(SCORE_HELP.recipe.split(' | ')).toEqual(scorable);
    const r = await cli(['score', '--help']);
    expect(r.exitCode).toBe(0);
    for (const name of scorable) expect(r.all).toContain(name);
    expect(SCORE_HELP.dataset).toMatch(/^coral: mmlu_pro \| .*; debate: math \| /);
  });
});
