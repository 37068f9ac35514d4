import type { RecipeNeeds } from '../contracts/activities';

/** Frozen: how iterations recorded before the recipe-needs-v1 patch chose their queues (every recipe then known
 *  but CoRal ran agent code or rendered pages, and built its data with models). Never extended. */
export function legacyNeeds(recipe: string): RecipeNeeds {
  const cpuOnly = ['coral'].includes(recipe);
  return { sandboxScoring: !cpuOnly, modelsForData: !cpuOnly, rendering: false };
}
