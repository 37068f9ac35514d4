// The run's `budget`: what this iteration spent so far, and the stop before new calls once the run spent it all.
import { ApplicationFailure } from '@temporalio/workflow';
import { addSpend, sumSpend } from '../contracts/spend';
import type { Spend, SpendReport, Stage } from '../contracts/run';
import type { IterationState } from './iteration-state';

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

/** Before issuing new calls: fails the stage as "budget reached" once the run has spent its budget. */
export function checkBudget(s: IterationState): void {
  const b = s.config.budget;
  if (!s.patches.budgets || !b) return;
  const spent = addSpend(s.input.spentBefore, spendReport(s).total);
  const over =
    b.tokens !== undefined && spent.tokens >= b.tokens
      ? `${spent.tokens} tokens of budget.tokens ${b.tokens}`
      : b.usd !== undefined && spent.usd >= b.usd
        ? `$${spent.usd.toFixed(4)} of budget.usd ${b.usd}`
        : undefined;
  if (over)
    throw ApplicationFailure.create({
      type: 'BudgetReached',
      nonRetryable: true,
      message: `budget reached: the run has spent ${over} (${spent.tokens} tokens, $${spent.usd.toFixed(4)}); raise it with \`collab-loop retry ${s.input.runName} --set budget.tokens=N\` (or budget.usd) — nothing done is lost`,
    });
}
