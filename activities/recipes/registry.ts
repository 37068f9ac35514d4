// Every recipe, one line each. A recipe is its folder (activities/recipes/<name>/) plus its line here: the config
// schema, the CLI, the activities and the workflow learn everything else from its RecipeDefinition.
import { z } from 'zod';
import { colbenchCodeRecipe, colbenchHtmlRecipe } from './colbench/recipe';
import { collabllmRecipe } from './collabllm/recipe';
import { coralRecipe } from './coral/recipe';
import { debateRecipe } from './debate/recipe';
import { toaRecipe } from './toa/recipe';
import type { RecipeDefinition } from './types';

export const RECIPES = [coralRecipe, colbenchCodeRecipe, colbenchHtmlRecipe, debateRecipe, collabllmRecipe, toaRecipe] as const;

type Schemas = (typeof RECIPES)[number]['schema'];

/** The config's `recipe:` section: one of the recipes' own sections, told apart by `name`. */
export const recipeSchema = z.discriminatedUnion('name', RECIPES.map((r) => r.schema) as unknown as [Schemas, ...Schemas[]]);

export const RECIPE_NAMES: readonly string[] = RECIPES.map((r) => r.name);

export function recipeDefinition(name: string): RecipeDefinition {
  const r = RECIPES.find((x) => x.name === name);
  if (!r) throw new Error(`unknown recipe "${name}" (known: ${RECIPE_NAMES.join(', ')})`);
  return r as unknown as RecipeDefinition;
}
