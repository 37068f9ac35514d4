// What a recipe needed besides generation in iterations recorded before recipes declared it (RecipeNeeds): those
// decided by the recipe's name, and replaying their histories must schedule the same activities on the same queues.
import type { RecipeNeeds } from '../contracts/activities';

/** Frozen: how iterations recorded before the recipe-needs-v1 patch chose their queues (every recipe then known
 *  but CoRal ran agent code or rendered pages, and built its data with models). Never extended. */
export function legacyNeeds(recipe: string): RecipeNeeds {
  const cpuOnly = ['coral'].includes(recipe);
  return { sandboxScoring: !cpuOnly, modelsForData: !cpuOnly, rendering: false };
}
