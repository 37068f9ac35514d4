// An activity's LLM calls in the progress model's terms (contracts/progress.ts): calls by outcome, tokens, and US
// dollars where an endpoint has a `price` (activities/llm/spend.ts: cached answers count, as in the budget).
import type { CallCounts } from '../../contracts/progress';
import type { UsageCounter } from '../llm/usage';
import { totalUsage } from '../llm/roles';
import { type Price, spendOf } from '../llm/spend';

export interface LlmCounts {
  calls: CallCounts;
  tokens: { prompt: number; completion: number };
  usd?: number;
}

export function llmCounts(byRole: Record<string, UsageCounter>, prices: Record<string, Price | undefined>): LlmCounts {
  const u = totalUsage(Object.values(byRole));
  const priced = Object.entries(byRole).filter(([role]) => prices[role]);
  return {
    calls: {
      ok: u.calls - u.cachedCalls,
      cached: u.cachedCalls - u.sharedCalls,
      shared: u.sharedCalls,
      failed: u.failedCalls,
      retried: u.retriedRequests,
    },
    tokens: { prompt: u.promptTokens, completion: u.completionTokens },
    ...(priced.length ? { usd: priced.reduce((a, [role, c]) => a + spendOf(c, prices[role]).usd, 0) } : {}),
  };
}
