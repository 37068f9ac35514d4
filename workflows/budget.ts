// The run's `budget`: what this iteration spent so far, the stop before new shards once the run spent it all, and
// the ledger the LLM-calling activities check every call against (activities/llm/budget-ledger.ts).
import { addSpend, budgetReached, sumSpend } from '../contracts/spend';
import type { BudgetLedgerInput, Spend, SpendReport, Stage } from '../contracts/run';
import type { IterationState } from './iteration-state';
import { reportBudget } from './run-metrics';

/** This iteration's spend so far, from the finished shards and the data build (never double-counted on retries). */
export function spendReport(s: IterationState): SpendReport {
  const byStage: SpendReport['byStage'] = {};
  const byRole: Record<string, Spend> = {};
  const add = (stage: Stage, perRole: Record<string, Spend> | undefined) => {
    for (const [role, x] of Object.entries(perRole ?? {})) {
      byRole[role] = addSpend(byRole[role], x);
      byStage[stage] = addSpend(byStage[stage], x);
    }
  };
  for (const r of s.shardResults.values()) add('generate', r.spend);
  add('build-data', s.data?.spend);
  return { total: sumSpend(Object.values(byStage)), byStage, byRole };
}

/** What the run has spent so far: the earlier iterations' and this one's. */
export const runSpent = (s: IterationState): Spend => addSpend(s.input.spentBefore, spendReport(s).total);

/** Before issuing new calls: fails the stage as "budget reached" once the run has spent its budget. */
export function checkBudget(s: IterationState): void {
  const spent = runSpent(s);
  reportBudget(s, spent); // at each shard boundary: the budget gauges follow the shards as they finish
  const b = s.config.budget;
  if (!s.patches.budgets || !b) return;
  const limit =
    b.tokens !== undefined && spent.tokens >= b.tokens ? 'tokens' : b.usd !== undefined && spent.usd >= b.usd ? 'usd' : undefined;
  if (limit) throw budgetReached(s.input.runName, spent, b, limit);
}

/** The activity input that has `spender` check each call against the budget (iterations with exact budgets). */
export function ledgerInput(s: IterationState, spender: string): { ledger?: BudgetLedgerInput } {
  if (!s.patches.exactBudgets) return {};
  const finished = sumSpend([...s.shardResults.values()].flatMap((r) => Object.values(r.spend ?? {})));
  return {
    ledger: { run: s.input.runName, spender, epoch: s.budgetEpoch, before: addSpend(s.input.spentBefore, undefined), finished },
  };
}
