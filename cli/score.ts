// `collab-loop score`: runs a recipe's evaluator over a records file, one JSON line out per record in — so an
// evaluator can be checked on its own, without a model or a server. Each recipe provides its own handler.
import { RECIPES } from '../activities/recipes/registry';
import { UserError } from './user-error';

export interface ScoreOptions {
  recipe: string;
  dataset?: string;
  input: string;
  tasks?: string;
  compat: 'fixed' | 'seed';
}

export async function scoreFile(o: ScoreOptions): Promise<string[]> {
  const scorable = RECIPES.filter((r) => r.score);
  const recipe = scorable.find((r) => r.name === o.recipe);
  if (!recipe?.score) throw new UserError(`--recipe: unknown recipe "${o.recipe}" (known: ${scorable.map((r) => r.name).join(', ')})`);
  return recipe.score(o);
}
