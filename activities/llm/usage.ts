// Token accounting every recipe keeps per conversation: one way to add a call's usage to a running total, and one
// way to say how many tokens a usage counts (prompt + completion: what endpoints bill and limits admit).
import type { TokenUsage } from './types';

export function addUsage(into: TokenUsage, u: TokenUsage): void {
  into.promptTokens += u.promptTokens;
  into.completionTokens += u.completionTokens;
}

export const totalTokens = (u: TokenUsage): number => u.promptTokens + u.completionTokens;
