/**
 * ColBench + SWEET-RL (Meta FAIR / Berkeley): an agent asks a simulated human, who alone sees the hidden reference,
 * then answers — a Python function judged by hidden unit tests (`colbench-code`) or a web page judged by rendered
 * similarity (`colbench-html`). SWEET-RL turns offline episodes into step-level DPO pairs ranked by a critic that
 * sees the reference. Everything about the recipe lives in this folder:
 *
 *   episode.ts            ★ THE PROTOCOL: agent turns until the marker or 10 turns, human replies (truncated),
 *                         "No response." on a rejected human request, html renders as the current answer
 *   agent-view.ts         the dialogue as the agent sees it (requests, SWEET-RL states, training prompts)
 *   agent-reply.ts        one completion → visible text (`OUTPUT:`), marker, answer; html extraction; code fences
 *   prompts.ts            agent / human-simulator / critic prompts by key (a `prompts:` file replaces them); markers
 *   decoding.ts           how the agent and the human are sampled; evaluation temperature by `compat`
 *   services.ts           injected side effects: runCodeTests (sandbox), renderHtml, imageSimilarity, saveImage
 *   scoring.ts            one episode → CodeScore (tests) / HtmlScore (similarity); png.ts: the seed's black image
 *   metrics.ts            success_rate, tests_passed_fraction, mean_similarity, answered_rate, … ; best-of-k
 *   sweet-rl.ts           turn states → n candidates → critic ranking → top-half/bottom-half step DPO pairs
 *   critic.ts             the critic seam: judge (default; prompt in prompts.ts) or the seed's log-prob advantage
 *   baselines.ts          MT-DPO trajectory pairs, the log-prob critic's training pairs, rejection fine-tuning
 *   compat.ts             `compat: fixed | seed`
 *   fidelity.ts           where fixed and seed differ, what is kept in both, the paper numbers (docs/fidelity.md)
 *   tasks.ts              task files (backend / frontend JSONL) → ColbenchTask; TaskFileError
 *   score.ts              `collab-loop score --recipe colbench-code`
 *   simulated-policy.ts   SIMULATOR of the agent, human and critic for dry runs (demo, tests, bench) — not a result
 */
export * from './tasks';
export * from './prompts';
export * from './services';
export * from './agent-view';
export * from './agent-reply';
export * from './episode';
export * from './scoring';
export { blackPng } from './png';
export * from './metrics';
export * from './critic';
export * from './sweet-rl';
export * from './baselines';
export * from './score';
export * from './simulated-policy';
