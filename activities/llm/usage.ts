// Token accounting every recipe keeps per conversation: one way to add a call's usage to a running total.
import type { TokenUsage } from './types';

export function addUsage(into: TokenUsage, u: TokenUsage): void {
  into.promptTokens += u.promptTokens;
  into.completionTokens += u.completionTokens;
}
