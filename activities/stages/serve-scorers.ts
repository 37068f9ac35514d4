// The serve-scorers stage: between training the recipe's scorer roles and building the data that ranks with them.
import type { StageContext } from '../../contracts/activities';
import type { ScorerModel } from '../../contracts/run';
import { serveCheckpoint, serverKey } from '../serving/checkpoint-servers';
import { servesLogProbs } from '../serving/log-prob-serving';
import { servedRecipe } from './served-recipe';

/**
 * Serves the scorer roles' checkpoints trained this iteration (RecipeNeeds.scorers) beside the deployed ones, when
 * the serving kind answers prompt log-probs (log-prob-serving.ts); otherwise the data builder reads the checkpoints
 * itself and nothing is served. Undeploy stops them with the iteration's other servers.
 */
export async function serveScorers(input: StageContext & { checkpoints: Record<string, string> }): Promise<Record<string, ScorerModel>> {
  const serve = servesLogProbs(input.config) && input.config.server.kind !== 'external';
  const recipe = servedRecipe(input.config);
  const out: Record<string, ScorerModel> = {};
  for (const [role, checkpoint] of Object.entries(input.checkpoints))
    out[role] = serve
      ? { checkpoint, endpoint: (await serveCheckpoint(input, checkpoint, `-${role}${serverKey(checkpoint)}`, recipe)).endpoint }
      : { checkpoint };
  return out;
}
