// The recipe a config names, and its runtime: the generic stages call these and never name a recipe.
import type { LoopConfig } from '../../contracts/config';
import { trainingDataFormat } from '../training/data-format';
import { recipeDefinition } from './registry';
import type { LoopRecipe, RecipeRuntime } from './types';
import type { RecipeNeeds } from '../../contracts/activities';

export type * from './types';

/** The definition of the config's recipe, typed loosely: each definition checks its own section's shape. */
export function recipeOf(config: Pick<LoopConfig, 'recipe'>): LoopRecipe {
  return recipeDefinition(config.recipe.name);
}

export function recipeRuntime(config: LoopConfig): Promise<RecipeRuntime> {
  return recipeOf(config).runtime(config.recipe, { seed: config.seed, format: trainingDataFormat(config) });
}

export function recipeNeeds(config: LoopConfig): RecipeNeeds {
  return recipeOf(config).needs(config.recipe);
}
