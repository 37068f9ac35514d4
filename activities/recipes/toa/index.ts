/**
 * TOA — Tree-search Orchestrated Agents (Ye et al., arXiv 2412.17061; seed repository oceanypt/TOA): K different
 * policy models answer each prompt under a budget of N calls; a reward model scores every response against the
 * original question; Monte Carlo tree search decides which model generates afresh or refines which response next.
 * The best responses train a student. Everything about the recipe lives in this folder:
 *
 *   search.ts             ★ THE SEARCH: root → model nodes → response nodes, UCB with the global play counter, the
 *                         width and refine-until-better rules, copied priors, sigmoid(r/tau) backup — a pure,
 *                         serialisable state machine
 *   baselines.ts          ★ THE BASELINES at the same N: random, PRS, parallel ensemble, sequential refine, MoA;
 *                         `planner(method)` is the one place a method name picks its planner
 *   run-search.ts         one prompt × one method: each play a policy call and a reward call, through the cache
 *   reward.ts             the reward role asked as its endpoint speaks (judge / reward model / scoring service)
 *   flops.ts              FLOPs per call from a model's size and the call's tokens
 *   data.ts               SFT = best response; DPO = best vs the response at rank `dpoRank`
 *   metrics.ts            the student's reward; per method best / top-k reward and FLOPs
 *   evaluation.ts         ★ THE EVALUATION: the student's and each method's best text judged against reference
 *                         outputs (AlpacaEval- and Arena-Hard-style games through the judge role), KIWI for translation;
 *                         win-rates.ts (WR, length-controlled WR: the GLM of arXiv 2404.04475), arena-hard.ts (bootstrap
 *                         interval), judged-metrics.ts, references.ts, evaluation-config.ts, judge-call.ts
 *   settings.ts           the seed's presets (alpacaeval, ultrafeedback, wmt): tau, alpha, temperature
 *   prompts.ts, tasks.ts  generate / refine / aggregate / judge prompts; instruction and translation task files
 *   records.ts, report-view.ts, config.ts, recipe.ts, runtime.ts   records, the report, glue
 *   simulated-policy.ts   SIMULATOR of policies of seeded quality and a reward that reads it, for dry runs
 */
export * from './search';
export * from './baselines';
export * from './flops';
export * from './data';
export * from './metrics';
export * from './tasks';
export * from './prompts';
export { createToaSimulatedPolicy } from './simulated-policy';
