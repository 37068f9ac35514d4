/**
 * CoRal — Collaborative Reasoner (Meta FAIR): two agents converse until they agree; trained on the synthetic
 * conversations. Everything about the recipe lives in this folder:
 *
 *   tasks.ts              task files (MMLU-Pro, GPQA, MATH, ExploreToM, Hi-ToM) → CoralTask
 *   prompts.ts            system prompts, opening message, belief-extraction prompt
 *   conversation.ts       the protocol: turns, extraction, tree sampling (siblings)
 *   agreement.ts          ★ the agreement check that ends a conversation
 *   beliefs.ts            parsing extractor replies; local answer extraction
 *   match.ts              gold matching per dataset; math-equivalence.ts for MATH
 *   metrics.ts            agreement_correctness, final_success_rate, ...
 *   training-data.ts      SFT examples and DPO preference pairs; formats.ts writes fairseq2 / TRL / OpenRLHF
 *   compat.ts             `compat: fixed | seed` — where we differ from the seed's released code, and why
 *   simulated-policy.ts   SIMULATOR of a model for dry runs (demo, tests, bench)
 *   score.ts              `collab-loop score --recipe coral`
 *   runtime.ts            glue to the generic stages
 */
export * from './tasks';
export * from './prompts';
export * from './beliefs';
export * from './match';
export * from './agreement';
export * from './math-equivalence';
export * from './conversation';
export * from './metrics';
export * from './training-data';
export * from './formats';
export * from './simulated-policy';
export * from './score';
export type { Compat } from './compat';
