// `collab-loop score`: runs a recipe's evaluator over a records file, one JSON line out per record in — so an
// evaluator can be checked on its own, without a model or a server. Each recipe provides its own handler.
import { z } from 'zod';
import { RECIPES } from '../activities/recipes/registry';
import { UserError } from './user-error';

export interface ScoreOptions {
  recipe: string;
  dataset?: string;
  input: string;
  tasks?: string;
  compat: 'fixed' | 'seed';
}

/** The recipes `score` runs: those of the registry that define `score`. */
const scorable = RECIPES.filter((r) => r.score);

/** `score --help`: the recipes it knows, and the datasets of those whose config section names one (`dataset`). */
export const SCORE_HELP = {
  recipe: scorable.map((r) => r.name).join(' | '),
  dataset: scorable
    .flatMap((r) => {
      const field = r.schema.shape.dataset;
      return field instanceof z.ZodEnum ? [`${r.name}: ${field.options.join(' | ')}`] : [];
    })
    .join('; '),
};

export async function scoreFile(o: ScoreOptions): Promise<string[]> {
  const recipe = scorable.find((r) => r.name === o.recipe);
  if (!recipe?.score) throw new UserError(`--recipe: unknown recipe "${o.recipe}" (known: ${scorable.map((r) => r.name).join(', ')})`);
  return recipe.score(o);
}
