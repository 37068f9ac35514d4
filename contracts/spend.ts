// Adding up LLM spend (tokens and US dollars): the iteration's budget check, the loop's total and `status` agree.
import { ApplicationFailure } from '@temporalio/common';
import type { LoopConfig, Spend } from './run';

export const NO_SPEND: Spend = { tokens: 0, usd: 0 };

/** Spends added (either may be absent). */
export const addSpend = (a: Spend | undefined, b: Spend | undefined): Spend => ({
  tokens: (a?.tokens ?? 0) + (b?.tokens ?? 0),
  usd: (a?.usd ?? 0) + (b?.usd ?? 0),
});

/** The sum of several spends (absent ones count as nothing). */
export const sumSpend = (spends: ReadonlyArray<Spend | undefined>): Spend => spends.reduce<Spend>((a, s) => addSpend(a, s), NO_SPEND);

export type Budget = NonNullable<LoopConfig['budget']>;

/** The run stops for its budget (the iteration's shard-boundary check and the per-call ledger say it alike): a
 *  non-retryable `BudgetReached` failure, so the stage waits as needs attention until a retry raises the budget.
 *  `limit` names the budget field that is spent; `note` adds what the ledger knows (calls in flight). */
export function budgetReached(run: string, spent: Spend, b: Budget, limit: keyof Budget, note = ''): ApplicationFailure {
  const over =
    limit === 'tokens' ? `${spent.tokens} tokens of budget.tokens ${b.tokens}` : `$${spent.usd.toFixed(4)} of budget.usd ${b.usd}`;
  return ApplicationFailure.create({
    type: 'BudgetReached',
    nonRetryable: true,
    message: `budget reached: the run has spent ${over} (${spent.tokens} tokens, $${spent.usd.toFixed(4)})${note}; raise it with \`collab-loop retry ${run} --set budget.tokens=N\` (or budget.usd) — nothing done is lost`,
  });
}
