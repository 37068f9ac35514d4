/**
 * Multiagent debate finetuning (Subramaniam et al., "Multiagent Finetuning"; seed repository
 * vsubramaniam851/multiagent-ft): N agents answer, then read each other's answers for R rounds; the vote of the last
 * round is the consensus that, with no gold labels, selects each agent's own training data. Everything about the
 * recipe lives in this folder:
 *
 *   debate.ts             ★ THE PROTOCOL: round 0 independent, later rounds see the others' previous answers
 *                         (listed, or through the summariser), synchronous rounds; roles generator_n / critic_n
 *   vote.ts               ★ THE VOTE: equivalence clusters, first-seen names, the seed's tie rule
 *   answers.ts            reply → answer (\boxed{}; letters for multiple choice); equivalence = ../shared MATH grader
 *   prompts.ts            round-0, debate, summary and self-check requests
 *   metrics.ts            accuracy (vote), per-agent and per-round accuracy, consensus rate, tokens
 *   data.ts               generator and critic SFT examples from the consensus (corrected / maintained mix);
 *                         the single-model baselines' examples (majority_ft, star)
 *   tasks.ts              task files (MATH, GSM8K, arithmetic, MMLU-style multiple choice) → DebateTask
 *   math-set.ts, arithmetic.ts   the paper's task sets as the seeds draw them; build-task-sets.ts writes them
 *   report-view.ts        a debate in the report's conversation browser
 *   simulated-policy.ts   SIMULATOR of debating agents for dry runs — not a result
 *   config.ts, recipe.ts, runtime.ts   its config section, its registry definition, glue to the generic stages
 */
export * from './tasks';
export * from './answers';
export * from './vote';
export * from './prompts';
export * from './debate';
export * from './metrics';
export * from './data';
export { createDebateSimulatedPolicy } from './simulated-policy';
