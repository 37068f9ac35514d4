/**
 * `compat: fixed` (default) corrects flaws of the seed's released code; `compat: seed` reproduces them, so numbers
 * compare with the paper. Where the two differ:
 *
 * | behaviour                         | fixed                                          | seed                                         | where          |
 * |-----------------------------------|------------------------------------------------|----------------------------------------------|----------------|
 * | html episode with no render       | similarity 0 (nothing to compare)              | a black 224×224 image vs the reference       | scoring.ts     |
 * | code tests (passed to the sandbox)| sandboxed, limits, exec semantics pinned       | the released evaluator's exact rules         | runCodeTests   |
 * | code: answer extraction           | the first ```python / ```py / bare fence       | split on "```python", then on "```" (a "py" tag line stays code) | sandbox/code-tests.ts |
 * | code: blocklist                   | none (the sandbox contains it)                 | over the whole answer, prose included        | sandbox/code-tests.ts |
 * | code: namespace                   | one module namespace                           | exec inside a function: top-level imports and helpers are NameError | runners/evaluate_calls.py |
 * | code: a test the reference fails  | reported (reference_error), left out of `total`| counted as failed (the seed divides by every test) | sandbox/code-tests.ts |
 * | code: numpy arrays                | equal iff same shape and elements              | `==` raises ValueError unless one element decides: not passed | runners/compare_results.py |
 * | html agent's system prompt        | names the Tailwind link the references use     | the seed's: "Tailwind CSS", no link          | prompts.ts     |
 * | evaluation temperature (default)  | 0: one evaluation of a checkpoint repeats      | 1, the seed's evaluation runs                | decoding.ts    |
 * | human's max tokens (default)      | 512 (its reply is cut to 400 / 1000 characters) | 4096                                        | decoding.ts    |
 * | code human's {dialogue_history}   | our transcript ("[agent]" / "[human]")         | the seed's: problem first, `role:text` and four newlines, "agent:" last | prompts.ts |
 * | html human's request              | system prompt + one user message ending in a question | no system message: the instructions open the user message, the draft's intro only with a draft, no question | prompts.ts |
 *
 * Differences kept in both modes (the seed's behaviour is a defect nobody needs to reproduce):
 * - per-request sampling seeds come from (seed, task, sample, turn), not the wall clock (episode.ts);
 * - only a REJECTED human request (HTTP 400/413/422) becomes "No response."; rate limits, server errors and
 *   configuration errors propagate to the retry machinery instead (episode.ts);
 * - the agent's system prompt has no unfilled `{dialogue_history}` placeholder: a prompts file's `agent.system` may
 *   name it, as the seed's prompt file does, and it is left empty (prompts.ts);
 * - pages render offline: the Tailwind build and picsum.photos pictures pages use are served from memory, the
 *   pictures as flat placeholders of the asked size (the seed renders with the network on; render/page-renderer.ts);
 * - SWEET-RL's critic is the seed's learned one by default (recipe.data.critic: learned; critic.ts), trained with the
 *   run's DPO trainer rather than the seed's OpenRLHF fork with `--mean_log_prob`; `judge` is ours.
 */
export type ColbenchCompat = 'fixed' | 'seed';
