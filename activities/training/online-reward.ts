// The recipe's reward service for online RL (trainer.method grpo, ppo, online_dpo): started by the train stage before the trainer and
// stopped after it, on the same machine (the trainer's plug-ins reach it at 127.0.0.1). Its simulator and judges are
// the config's external roles, called through the durable request cache like every LLM call of the loop.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { StageContext } from '../../contracts/activities';
import { generationServices } from '../generation/services';
import { requestCacheFor } from '../llm/cache';
import { createChat } from '../llm/client';
import { newUsageCounter } from '../llm/usage';
import { externalEndpointRef } from '../../contracts/endpoint';
import { modelRoles } from '../llm/roles';
import type { Chat } from '../llm/types';
import { storeFor } from '../artifacts/store';
import type { LoopRecipe } from '../recipes/types';
import { startJsonService, type RunningJsonService } from '../serving/json-service';
import type { OnlineRlRollout } from './adapters/types';

export interface OnlineReward extends RunningJsonService {
  rollout: OnlineRlRollout;
}

/** `recipe`: the config's recipe (RecipeDefinition.onlineRl serves the reward). */
export async function startOnlineReward(
  input: StageContext & { checkpoint: string },
  recipe: LoopRecipe,
  log: (line: string) => void,
): Promise<OnlineReward> {
  if (!recipe.onlineRl)
    throw ApplicationFailure.nonRetryable(
      `trainer.method ${input.config.trainer?.method}: recipe ${recipe.name} has no online RL reward`,
      'ConfigError',
    );
  const opts = {
    cache: requestCacheFor(input.config),
    llm: input.config.llm,
    usage: newUsageCounter(),
    signal: Context.current().cancellationSignal,
  };
  // Nothing is served while a trainer holds the GPUs: the loader made every untrained role external.
  const chats: Record<string, Chat> = {};
  for (const [role, r] of Object.entries(modelRoles(input.config, recipe.roles(input.config.recipe), input.checkpoint)))
    if (r.kind === 'external') chats[role] = createChat({ ...opts, role, endpoint: externalEndpointRef(r.endpoint) });
  const handlers = await recipe.onlineRl.rewardService(input.config.recipe, {
    chats,
    services: generationServices(storeFor(input.config), {
      rendering: false,
      unitTests: recipe.needs(input.config.recipe).unitTests,
    }),
    seed: input.config.seed + input.iteration,
  });
  const service = await startJsonService({
    routes: { '/user-turn': handlers.userTurn, '/score': handlers.score },
    onError: (route, err) => log(`reward service ${route}: ${err instanceof Error ? err.message : String(err)}`),
  });
  log(`reward service for ${recipe.name} at ${service.url}`);
  return { ...service, rollout: recipe.onlineRl.rollout(input.config.recipe) };
}
