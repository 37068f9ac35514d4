// What a run's LLM calls spend, per model role: tokens (prompt + completion) and US dollars at the endpoint's
// `price` (contracts/config-fields.ts; per million tokens, input and output apart). A role served by the loop costs nothing;
// a role behind an external endpoint costs what its endpoint's price says, and with `server.kind: external` the
// served roles cost the server endpoint's price. Every call counts, answered from the cache or not: a cached answer
// is a call of this run's work paid by an earlier attempt.
import type { LoopConfig, Spend } from '../../contracts/run';
import type { UsageCounter } from './usage';
import { modelRoles, type DeclaredRoles } from './roles';
import { totalTokens } from './usage';

export type Price = { input: number; output: number };

/** Each role's price, if its endpoint has one. */
export function rolePrices(config: LoopConfig, declared: DeclaredRoles): Record<string, Price | undefined> {
  const server = config.server.kind === 'external' ? config.server.endpoint.price : undefined;
  return Object.fromEntries(
    Object.entries(modelRoles(config, declared, config.baseCheckpoint)).map(([role, r]) => [
      role,
      r.kind === 'external' ? r.endpoint.price : server,
    ]),
  );
}

export function spendOf(usage: Pick<UsageCounter, 'promptTokens' | 'completionTokens'>, price: Price | undefined): Spend {
  const usd = price ? (usage.promptTokens * price.input + usage.completionTokens * price.output) / 1e6 : 0;
  return { tokens: totalTokens(usage), usd };
}

/** Spend per role from one usage counter per role; roles that made no call are left out. */
export function spendByRole(counters: Record<string, UsageCounter>, config: LoopConfig, declared: DeclaredRoles): Record<string, Spend> {
  const prices = rolePrices(config, declared);
  return Object.fromEntries(
    Object.entries(counters)
      .filter(([, u]) => u.calls > 0)
      .map(([role, u]) => [role, spendOf(u, prices[role])]),
  );
}
