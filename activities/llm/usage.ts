// Token accounting every recipe keeps per conversation: one way to add a call's usage to a running total, and one
// way to say how many tokens a usage counts (prompt + completion: what endpoints bill and limits admit).
import type { TokenUsage } from './types';

export function addUsage(into: TokenUsage, u: TokenUsage): void {
  into.promptTokens += u.promptTokens;
  into.completionTokens += u.completionTokens;
}

export const totalTokens = (u: TokenUsage): number => u.promptTokens + u.completionTokens;

/** What a chat (a role, a call) has used and paid, counted as it goes. */
export interface UsageCounter {
  calls: number;
  /** Calls this chat did not send: answered from the cache or by an identical call in flight (`sharedCalls`). */
  cachedCalls: number;
  sharedCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Tokens of calls actually sent (cache hits excluded): what this attempt paid. */
  paidPromptTokens: number;
  paidCompletionTokens: number;
  /** Calls given up (handed to Temporal) and failed requests sent again: the progress model's failed / retried. */
  failedCalls: number;
  retriedRequests: number;
}

export const newUsageCounter = (): UsageCounter => ({
  calls: 0,
  cachedCalls: 0,
  sharedCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  paidPromptTokens: 0,
  paidCompletionTokens: 0,
  failedCalls: 0,
  retriedRequests: 0,
});
