// A recipe is its folder plus one registry line: no code outside its folder (and the registry) may branch on a
// recipe's name, or adding a recipe would mean hunting for those branches (and a new recipe would silently take
// another's path).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { RECIPE_NAMES, RECIPES, recipeSchema } from '../../../../activities/recipes/registry';

const SOURCE_DIRS = ['activities', 'workflows', 'cli', 'configs', 'workers', 'scripts', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|js|mjs)$/.test(f) ? [p] : [];
  });
}

const RECIPES_DIR = path.join(PROJECT_ROOT, 'activities', 'recipes');

/** The recipes' own folders (shared/ holds what several recipes use, and names none of them). */
const recipeFolders = () => readdirSync(RECIPES_DIR).filter((d) => statSync(path.join(RECIPES_DIR, d)).isDirectory() && d !== 'shared');

/** Files outside the recipes' folders that may name a recipe, each with why. */
const MAY_NAME_A_RECIPE = [
  // Iterations recorded before recipes declared their needs decided them by the recipe's name; replaying their
  // histories must schedule what they did, so this frozen rule keeps the names it had.
  'workflows/legacy-needs.ts',
  // The bench's section names (`npm run bench -- coral`): the CoRal and debate benches are named after the recipes
  // they run; a list of names to choose from, which no code branches on by recipe.
  'scripts/bench-sections.ts',
];

/**
 * Code that decides by a recipe's name: `x.name === 'coral'`, `'coral' !== recipe`, `case 'colbench-code':`,
 * `.includes('toa')`, and an array literal holding a recipe name (`['coral'].includes(recipe)`). An array that is a
 * property's value is data, not a rule (TOA's `compare: ['toa']` lists its methods in scripts/bench.ts), unless it
 * is tested against on the spot.
 */
function recipeNameBranches(text: string, names: readonly string[]): string[] {
  const lit = `['"\`](?:${names.map((n) => n.replace(/[.-]/g, '\\$&')).join('|')})['"\`]`;
  const patterns = [
    new RegExp(`[!=]==?\\s*${lit}`, 'g'),
    new RegExp(`${lit}\\s*[!=]==?`, 'g'),
    new RegExp(`\\bcase\\s+${lit}\\s*:`, 'g'),
    new RegExp(`\\.includes\\(\\s*${lit}`, 'g'),
  ];
  // `[` that opens an array literal: not an element access (`x['coral']`, `f()[0]`).
  const arrays = new RegExp(`(?<![\\w$)\\]]\\s*)\\[[^\\[\\]]*?${lit}[^\\[\\]]*\\]`, 'g');
  const propertyValue = /[\w$'"]\s*:\s*$/;
  const inArrays = [...text.matchAll(arrays)].filter((m) => {
    const data = propertyValue.test(text.slice(0, m.index));
    const tested = /^\s*\./.test(text.slice(m.index + m[0].length));
    return !data || tested;
  });
  return [...patterns.flatMap((p) => [...text.matchAll(p)]), ...inArrays].map((m) => m[0]);
}

describe('recipes live in their folders', () => {
  it('the check finds the branches it is meant to find', () => {
    expect(recipeNameBranches(`if (config.recipe.name === 'coral') x();`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`const k = r.name !== "colbench-code";`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`switch (n) { case 'colbench-html': }`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`if (recipe === 'toa' || 'debate' == kind) x();`, RECIPE_NAMES)).toHaveLength(2);
    expect(recipeNameBranches(`const yes = names.includes("collabllm");`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`const CPU_ONLY = [\n  'coral',\n  'debate',\n];`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`const o = { cpu: ['coral'].includes(r) };`, RECIPE_NAMES)).toHaveLength(1);
    expect(recipeNameBranches(`const s = recipeOf(config).needs(config.recipe);`, RECIPE_NAMES)).toEqual([]);
    expect(recipeNameBranches(`const roles = ['agent', 'extractor'];`, RECIPE_NAMES)).toEqual([]);
    expect(recipeNameBranches(`recipe: { name: 'toa', compare: ['toa'], search: { tau: 2 } }`, RECIPE_NAMES)).toEqual([]);
  });

  it('the check would have caught the membership rule the workflow once had inline', () => {
    const inline = `function legacyNeeds(recipe: string): RecipeNeeds {
  const cpuOnly = ['coral'].includes(recipe);
  return { sandboxScoring: !cpuOnly, modelsForData: !cpuOnly, rendering: false };
}`;
    expect(recipeNameBranches(inline, RECIPE_NAMES)).toEqual(["['coral']"]);
    // …and the allowed exceptions still need to be: each names a recipe.
    for (const f of MAY_NAME_A_RECIPE)
      expect(recipeNameBranches(readFileSync(path.join(PROJECT_ROOT, f), 'utf8'), RECIPE_NAMES), f).not.toEqual([]);
  });

  it("no file outside a recipe's folder and the registry decides by a recipe's name", () => {
    const own = recipeFolders().map((d) => path.join(RECIPES_DIR, d) + path.sep);
    const registry = path.join(RECIPES_DIR, 'registry.ts');
    const offenders = SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(PROJECT_ROOT, d)))
      .filter((f) => f !== registry && !own.some((dir) => f.startsWith(dir)))
      .filter((f) => !MAY_NAME_A_RECIPE.includes(path.relative(PROJECT_ROOT, f)))
      .flatMap((f) => recipeNameBranches(readFileSync(f, 'utf8'), RECIPE_NAMES).map((m) => `${path.relative(PROJECT_ROOT, f)}: ${m}`));
    expect(offenders).toEqual([]);
  });

  it("no file outside activities/recipes/ imports a recipe's folder: the registry is the way in", () => {
    const recipesDir = RECIPES_DIR + path.sep;
    const folders = recipeFolders();
    expect(folders.length).toBeGreaterThanOrEqual(RECIPES.length - 1); // colbench holds two recipes
    const reach = new RegExp(`from '[./]*(?:activities/)?recipes/(?:${folders.join('|')})[/']`);
    const offenders = SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(PROJECT_ROOT, d)))
      .filter((f) => !f.startsWith(recipesDir))
      .filter((f) => reach.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(PROJECT_ROOT, f));
    expect(offenders).toEqual([]);
  });

  it("only the stages resolve a config's recipe: the domain folders below them are handed it", () => {
    // serving/simulator-main.ts is a process of its own (the dry-run server), started with a recipe's name.
    const entries = ['activities/index.ts', 'activities/serving/simulator-main.ts'];
    const resolves = /(?:from\s*|import\(\s*)'[./]*recipes\/(?:runtime|registry)'/;
    const offenders = sourceFiles(path.join(PROJECT_ROOT, 'activities'))
      .map((f) => path.relative(PROJECT_ROOT, f))
      .filter((f) => !f.startsWith('activities/stages/') && !f.startsWith('activities/recipes/') && !entries.includes(f))
      .filter((f) => resolves.test(readFileSync(path.join(PROJECT_ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the registry is the one list: every recipe is in the config schema, once, under its own name', () => {
    expect(new Set(RECIPE_NAMES).size).toBe(RECIPES.length);
    const inSchema = recipeSchema.options.map((o) => (o.shape.name as { value: string }).value);
    expect(inSchema).toEqual([...RECIPE_NAMES]);
  });
});
