/**
 * CoRal — Collaborative Reasoner (Meta FAIR): two agents discuss a problem until they agree; the synthetic
 * conversations become SFT and DPO data. Everything about the recipe lives in this folder:
 *
 *   agree.ts              ★ THE AGREEMENT CHECK: stop when both roles' latest beliefs are valid and equal
 *   conversation.ts       the protocol: turn 0, alternation, extraction + match + stop per turn, tree sampling
 *   agent-view.ts         the transcript from one agent's perspective (requests and training prompts)
 *   prompts.ts            system prompts, answer-format lines, opening message, belief-extraction prompt, by key
 *   extract.ts            extractor reply → belief (answer / valid / unsure); ToM normalisation
 *   local-extractor.ts    rule-based reading of a full response (simulator, `collab-loop score`)
 *   match.ts              gold matching per dataset; MATH via ../shared/math-equivalence.ts (shared with debate)
 *   metrics.ts            agreement_correctness, final_success_rate, ...; social-metrics.ts (assert / persuade)
 *   sft.ts, preference-pairs.ts   training examples (rows per trainer: activities/data/formats.ts)
 *   pair-choice.ts        which pairs one tree-sampled turn yields (shuffled, or the seed's reward-gap order)
 *   data-options.ts       `recipe.data` → builder options, compat defaults, invalid combinations
 *   compat.ts             `compat: fixed | seed`
 *   fidelity.ts           every place fixed and seed differ, what is kept in both, the paper numbers (docs/fidelity.md)
 *   tasks.ts              task files (MMLU-Pro, GPQA, MATH, ExploreToM, Hi-ToM) → CoralTask; TaskFileError
 *   score.ts              `collab-loop score --recipe coral`
 *   simulated-policy.ts   SIMULATOR of a model for dry runs (demo, tests, bench) — not a result
 *   runtime.ts            glue to the generic stages (shards, evaluation, data building)
 *   config.ts, recipe.ts  its `recipe:` config section; its definition for the registry (roles, needs, simulator)
 */
export * from './tasks';
export * from './prompts';
export * from './extract';
export * from './local-extractor';
export * from './match';
export * from './agree';
export * from '../shared/boxed';
export { gradeMathAnswer, mathAnswersEquivalent } from '../shared/math-equivalence';
export { hendrycksNormalize, graderNormalize, latexToText } from '../shared/math-normalize';
export * from './agent-view';
export * from './conversation';
export * from './social-metrics';
export * from './metrics';
export * from './sft';
export * from './preference-pairs';
export * from './pair-choice';
export * from './data-options';
export * from './simulated-policy';
export * from './score';
export type { Compat } from './compat';
