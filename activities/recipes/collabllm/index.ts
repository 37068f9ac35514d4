/**
 * CollabLLM (Wu et al., "CollabLLM: From Passive Responders to Active Collaborators", arXiv 2502.00640; seed
 * repository Wuyxin/collabllm, and verl's recipe/collabllm): a policy trained on multiturn-aware rewards — each
 * candidate turn is scored by simulated futures of the conversation with a user simulator that holds the hidden
 * goal. Everything about the recipe lives in this folder:
 *
 *   conversation.ts        ★ THE DATA-BUILDING LOOP: candidates, futures, best candidate, next user message; and
 *                          the evaluation conversation
 *   reward.ts              ★ THE MULTITURN-AWARE REWARD: weighted-mean (published) or clamped (verl); missing ≠ 0
 *   user-simulator.ts      the simulator protocol: hidden goal, JSON `response`, re-asks, [[TERMINATE CHAT]]
 *   metrics.ts             per-conversation scorers: accuracy / interactivity judges, token_amount, BLEU,
 *                          pass_rate, extraction of the final artefact
 *   score-conversation.ts  which scorers a conversation gets (extraction first for documents and code)
 *   prompts.ts             simulator, proactive system prompt, judges, extraction (our own wording)
 *   json-reply.ts          lenient JSON reading of model replies
 *   data.ts                SFT, offline DPO pairs and the published collabllm-multiturn rows
 *   iteration-metrics.ts   task success, interactivity, tokens, turns, missing scores of an iteration
 *   tasks.ts               task files: math, document editing, code with unit tests (our fixtures and the seed's rows)
 *   report-view.ts         a conversation in the report's browser
 *   reward-service.ts      online RL: the user turns and rewards verl asks for over HTTP
 *   verl-rollout.ts        online RL: how verl reads the rows (collabllm_to_verl.py), its agent loop and interaction
 *   simulated-policy.ts    SIMULATOR of every role for dry runs — not a result
 *   config.ts, recipe.ts, runtime.ts   its config section, its registry definition, glue to the generic stages
 */
export * from './tasks';
export * from './reward';
export * from './metrics';
export * from './conversation';
export * from './data';
export { createCollabSimulatedPolicy } from './simulated-policy';
