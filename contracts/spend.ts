// Adding up LLM spend (tokens and US dollars): the iteration's budget check, the loop's total and `status` agree.
import type { Spend } from './run';

export const NO_SPEND: Spend = { tokens: 0, usd: 0 };

/** Spends added (either may be absent). */
export const addSpend = (a: Spend | undefined, b: Spend | undefined): Spend => ({
  tokens: (a?.tokens ?? 0) + (b?.tokens ?? 0),
  usd: (a?.usd ?? 0) + (b?.usd ?? 0),
});

/** The sum of several spends (absent ones count as nothing). */
export const sumSpend = (spends: ReadonlyArray<Spend | undefined>): Spend => spends.reduce<Spend>((a, s) => addSpend(a, s), NO_SPEND);
