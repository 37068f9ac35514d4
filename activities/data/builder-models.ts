// The models a recipe's data builder calls (RecipeRuntime.buildDataWithModels; SWEET-RL: the served policy samples
// candidates, the critic ranks them). Through the durable cache like every call, so a retried stage pays for
// nothing twice.
import { Context } from '@temporalio/activity';
import type { StageContext } from '../../contracts/activities';
import type { EndpointRef } from '../../contracts/endpoint';
import type { ScorerModel } from '../../contracts/run';
import { requestCacheFor } from '../llm/cache';
import { createChat } from '../llm/client';
import { newUsageCounter, type UsageCounter } from '../llm/usage';
import { countedRoleChats, modelRoles, roleEndpoints, type DeclaredRoles } from '../llm/roles';
import { scriptLogProbChat } from '../llm/script-logprobs';
import type { BudgetSpender } from '../llm/budget-ledger';
import { rolePrices } from '../llm/spend';
import type { Chat } from '../llm/types';
import { AGENT_ROLE } from '../recipes/types';
import { servesLogProbs } from '../serving/log-prob-serving';
import { localCheckpoint } from '../storage/checkpoints';

/** A chat per role the recipe declares, each with its usage counter. */
export function builderChats(
  input: StageContext & { agent: EndpointRef; roles?: Record<string, EndpointRef> },
  declared: DeclaredRoles,
  budget?: BudgetSpender,
): {
  chats: Record<string, Chat>;
  usage: Record<string, UsageCounter>;
} {
  const opts = { cache: requestCacheFor(input.config), llm: input.config.llm, signal: Context.current().cancellationSignal };
  const prices = rolePrices(input.config, declared);
  return countedRoleChats(roleEndpoints(input.config, declared, input.agent, input.roles), (endpoint, usage, role) =>
    createChat({ ...opts, endpoint, usage, role, budget: budget?.forRole(prices[role]) }),
  );
}

/**
 * Per role, a Chat answering mean log-probs (RecipeRuntime.buildDataWithModels): over HTTP from a server that gives
 * prompt log-probs (vLLM, the simulator; scorer roles were served by serveScorers), else from the checkpoint by
 * activities/llm/mean_logprobs.py. The agent's is its served checkpoint; each scorer's, its checkpoint of this
 * iteration.
 */
export async function logProbChats(
  input: StageContext & { checkpoint: string; agent: EndpointRef; scorers: Record<string, ScorerModel> },
  declared: DeclaredRoles,
  usage: Record<string, UsageCounter>,
  budget?: BudgetSpender,
): Promise<Record<string, Chat>> {
  const signal = Context.current().cancellationSignal;
  const opts = { cache: requestCacheFor(input.config), llm: input.config.llm, signal };
  const prices = rolePrices(input.config, declared);
  const agentCheckpoint = modelRoles(input.config, declared, input.checkpoint)[AGENT_ROLE];
  const of = async (m: ScorerModel, role: string) => {
    usage[role] ??= newUsageCounter();
    return m.endpoint
      ? createChat({
          ...opts,
          role,
          usage: usage[role],
          endpoint: { ...m.endpoint, api: 'logprob' },
          budget: budget?.forRole(prices[role]),
        })
      : scriptLogProbChat(await localCheckpoint(input.config, m.checkpoint), { signal });
  };
  return {
    [AGENT_ROLE]: await of(
      {
        checkpoint: 'checkpoint' in agentCheckpoint ? agentCheckpoint.checkpoint : input.checkpoint,
        ...(servesLogProbs(input.config) ? { endpoint: input.agent } : {}),
      },
      AGENT_ROLE,
    ),
    ...Object.fromEntries(await Promise.all(Object.entries(input.scorers).map(async ([role, m]) => [role, await of(m, role)]))),
  };
}
