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

/** The config's `recipe:` section: one of the recipes' own sections, told apart by `name`. zod's discriminatedUnion
 *  takes a non-empty tuple type, which Array.prototype.map does not keep: hence the assertion. */
export const recipeSchema = z.discriminatedUnion('name', RECIPES.map((r) => r.schema) as unknown as [Schemas, ...Schemas[]]);

/** Any recipe's section, as the loop's config holds it. */
export type RecipeSection = z.output<typeof recipeSchema>;

export const RECIPE_NAMES: readonly string[] = RECIPES.map((r) => r.name);

/**
 * The recipe of that name, erased: the one place a recipe's own types (its section, its records) are forgotten. The
 * generic stages pass a config's section back to the definition that parsed it, and records back to the runtime
 * that wrote them, so they need neither type.
 */
export function recipeDefinition(name: string): RecipeDefinition<RecipeSection> {
  const r = RECIPES.find((x) => x.name === name);
  if (!r) throw new Error(`unknown recipe "${name}" (known: ${RECIPE_NAMES.join(', ')})`);
  return r;
}
