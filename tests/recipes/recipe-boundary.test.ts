// A recipe is its folder plus one registry line: no code outside activities/recipes/ may branch on a recipe's name,
// or adding a recipe would mean hunting for those branches (and a new recipe would silently take another's path).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { RECIPE_NAMES, RECIPES, recipeSchema } from '../../activities/recipes/registry';

const SOURCE_DIRS = ['activities', 'workflows', 'cli', 'configs', 'workers', 'scripts', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|js|mjs)$/.test(f) ? [p] : [];
  });
}

/** `x.name === 'coral'`, `'coral' !== recipe.name`, `case 'colbench-code':` and the like. */
function recipeNameBranches(text: string, names: readonly string[]): string[] {
  const lit = `['"\`](?:${names.map((n) => n.replace(/[.-]/g, '\\$&')).join('|')})['"\`]`;
  const patterns = [
    new RegExp(`\\.name\\s*[!=]==?\\s*${lit}`, 'g'),
    new RegExp(`${lit}\\s*[!=]==?\\s*[\\w.]*\\.name\\b`, 'g'),
    new RegExp(`\\bcase\\s+${lit}\\s*:`, 'g'),
  ];
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => m[0]));
}

describe('recipes live in their folders', () => {
  it('the check finds the branches it is meant to find', () => {
    expect(recipeNameBranches(`if (config.recipe.name === 'coral') x();`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`const k = r.name !== "colbench-code";`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`switch (n) { case 'colbench-html': }`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`const s = recipeOf(config).needs(config.recipe);`, RECIPE_NAMES)).toEqual([]);
  });

  it('no file outside activities/recipes/ compares a recipe name to a literal', () => {
    const recipesDir = path.join(PROJECT_ROOT, 'activities', 'recipes') + path.sep;
    const offenders = SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(PROJECT_ROOT, d)))
      .filter((f) => !f.startsWith(recipesDir))
      .flatMap((f) => recipeNameBranches(readFileSync(f, 'utf8'), RECIPE_NAMES).map((m) => `${path.relative(PROJECT_ROOT, f)}: ${m}`));
    expect(offenders).toEqual([]);
  });

  it("no file outside activities/recipes/ imports a recipe's folder: the registry is the way in", () => {
    const recipesDir = path.join(PROJECT_ROOT, 'activities', 'recipes') + path.sep;
    const folders = readdirSync(recipesDir).filter((d) => statSync(path.join(recipesDir, d)).isDirectory() && d !== 'shared');
    expect(folders.length).toBeGreaterThanOrEqual(RECIPES.length - 1); // colbench holds two recipes
    const reach = new RegExp(`from '[./]*(?:activities/)?recipes/(?:${folders.join('|')})[/']`);
    const offenders = SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(PROJECT_ROOT, d)))
      .filter((f) => !f.startsWith(recipesDir))
      .filter((f) => reach.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(PROJECT_ROOT, f));
    expect(offenders).toEqual([]);
  });

  it('the registry is the one list: every recipe is in the config schema, once, under its own name', () => {
    expect(new Set(RECIPE_NAMES).size).toBe(RECIPES.length);
    const inSchema = recipeSchema.options.map((o) => (o.shape.name as { value: string }).value);
    expect(inSchema).toEqual([...RECIPE_NAMES]);
  });
});
