// How faithful ColBench and SWEET-RL are to their seed: the `compat: fixed` / `compat: seed` differences and the
// published numbers. Rendered into docs/fidelity.md (activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const colbenchFidelity: RecipeFidelity = {
  title: 'ColBench + SWEET-RL (`colbench-code`, `colbench-html`)',
  folder: 'colbench',
  seed: '`facebookresearch/sweet_rl` (`sweet_rl/environments/`, `sweet_rl/utils/code_utils.py`, `scripts/evaluate_code.py`, `scripts/evaluate_html.py`, `scripts/rank_best_of_n.py`)',
  paper: 'Zhou et al., "SWEET-RL: Training Multi-Turn LLM Agents on Collaborative Reasoning Tasks", arXiv 2503.15478',
  compat: [
    {
      behaviour: 'html episode with no render',
      fixed: 'similarity 0 (nothing to compare)',
      seed: 'a black 224×224 image vs the reference',
      where: 'scoring.ts',
    },
    {
      behaviour: 'code tests (passed to the sandbox)',
      fixed: 'sandboxed, limits, exec semantics pinned',
      seed: "the released evaluator's exact rules",
      where: 'activities/sandbox/code-tests.ts',
    },
    {
      behaviour: 'code: answer extraction',
      fixed: 'the first ```python / ```py / bare fence',
      seed: 'split on "```python", then on "```", over the answer as written (a "py" / "Python" tag line stays code)',
      where: 'scoring.ts, activities/sandbox/code-tests.ts',
    },
    {
      behaviour: 'code: blocklist',
      fixed: 'none (the sandbox contains it)',
      seed: 'over the whole answer, prose included',
      where: 'activities/sandbox/code-tests.ts',
    },
    {
      behaviour: 'code: namespace',
      fixed: 'one module namespace',
      seed: 'exec inside a function: top-level imports and helpers are NameError',
      where: 'activities/sandbox/runners/evaluate_calls.py',
    },
    {
      behaviour: 'code: a test the reference fails',
      fixed: 'reported (`reference_error`), left out of `total`',
      seed: 'counted as failed (the seed divides by every test)',
      where: 'activities/sandbox/code-tests.ts',
    },
    {
      behaviour: 'code: Decimal, Fraction, date results',
      fixed: 'equal only to a value of the same type',
      seed: "Python's == across types: Fraction(1, 2) == 0.5, Decimal(1) / Decimal(5) ≠ 0.2",
      where: 'activities/sandbox/runners/compare_results.py',
    },
    {
      behaviour: 'code: a result with its own __eq__',
      fixed: 'compared by its builtin value (an object is not plain data): never passes by its __eq__',
      seed: "compared in the answer's own process with the expected value, which it then sees: a rigged __eq__ passes, as in the seed",
      where: 'activities/sandbox/code-tests.ts, activities/sandbox/runners/evaluate_calls.py',
    },
    {
      behaviour: 'code: limits of the comparison',
      fixed: 'reference call 5 s, value 256 KB pickled, nesting 200',
      seed: "reference call 60 s (the seed: none), value 16 MB, nesting 990 (what the seed's == reaches)",
      where: 'activities/sandbox/code-tests.ts',
    },
    {
      behaviour: 'code: numpy arrays',
      fixed: 'equal iff same shape and elements',
      seed: '`==` raises ValueError unless one element decides: not passed',
      where: 'activities/sandbox/runners/compare_results.py',
    },
    {
      behaviour: "html agent's system prompt",
      fixed: 'names the Tailwind link the references use',
      seed: 'the seed\'s: "Tailwind CSS", no link',
      where: 'prompts.ts',
    },
    {
      behaviour: 'evaluation temperature (default)',
      fixed: '0: one evaluation of a checkpoint repeats',
      seed: "1, the seed's evaluation runs",
      where: 'decoding.ts',
    },
    {
      behaviour: "human's max tokens (default)",
      fixed: '512 (its reply is cut to 400 / 1000 characters)',
      seed: '4096',
      where: 'decoding.ts',
    },
    {
      behaviour: "code human's {dialogue_history}",
      fixed: 'our transcript ("[agent]" / "[human]")',
      seed: 'the seed\'s: problem first, `role:text` and four newlines, "agent:" last',
      where: 'prompts.ts',
    },
    {
      behaviour: "html human's request",
      fixed: 'system prompt + one user message ending in a question',
      seed: "no system message: the instructions open the user message, the draft's intro only with a draft, no question",
      where: 'prompts.ts',
    },
  ],
  kept: [
    'Per-request sampling seeds come from (seed, task, sample, turn), not the wall clock — `episode.ts`.',
    'Only a rejected human request (HTTP 400/413/422) becomes "No response."; rate limits, server errors and configuration errors go to the retry machinery instead — `episode.ts`.',
    "The agent's system prompt has no unfilled `{dialogue_history}` placeholder: a prompts file's `agent.system` may name it, as the seed's prompt file does, and it is left empty — `prompts.ts`.",
    'Pages render offline: the Tailwind 2.2.19 build and the picsum.photos pictures the pages use are served from memory, the pictures as flat placeholders of the asked size (the seed renders with the network on) — `activities/render/page-renderer.ts`.',
    "The screenshot score is weight-free by default; `similarity: {kind: clip, model: DIR}` is the seed's CLIP cosine from a local checkpoint, clamped to [0, 1] (the seed keeps the raw cosine) — `activities/render/clip-similarity.ts`.",
    "SWEET-RL's critic is the seed's learned one by default (`recipe.data.critic: learned`, `critic.ts`), trained with the run's DPO trainer rather than the seed's OpenRLHF fork with `--mean_log_prob`; its mean log-prob covers the action and the end-of-turn marker (the seed's also the assistant header). `judge` is ours.",
    "Code scoring under `compat: seed` agrees with the seed's `check_correctness` on all 116 generated cases of the kinds above (`tests/fixtures/colbench/seed-code-verdicts.json`; `fixed` on 40 %). A value nested deeper than the seed's == reaches crashes the seed's whole evaluation (RecursionError); here that test fails alone.",
    "The sandbox has the packages the seed's evaluation environment imports (numpy, pandas; `activities/sandbox/requirements.txt`); a reference needing others fails as `reference_error`, never as a wrong answer.",
  ],
  reproduces: [
    "Backend programming (`colbench-code`, 1,000 test tasks, a Llama-3.1-70B-Instruct human): success rate and share of tests passed. Paper reports (the seed's README): a success rate around 40 % for SWEET-RL on Llama-3.1-8B-Instruct, +6 % absolute success and win rate over other multi-turn RL methods, matching GPT-4o. Setup: `configs/colbench-code.external.yaml` (`compat: seed`, `data: {method: sweet-rl, fraction: 0.1, candidates: 16, pairsPerTurn: 4}`) with its `critic: judge` changed to the seed's `learned`, which needs the loop to serve each checkpoint (`server: {kind: vllm}`), DPO at β 0.1, the seed's prompt texts in `recipe.prompts`.",
    "Frontend design (`colbench-html`, 500 test tasks for the paper, a Qwen2-VL-72B-Instruct human): the mean CLIP cosine of the final page to the reference (`similarity: {kind: clip, …}`); the paper's win rate against GPT-4o has no code in the seed and is not computed here. The baselines of the paper's table are `data.method: mt-dpo` and `rft`.",
  ],
};
