// How faithful the CollabLLM recipe is to its seed (rendered into docs/fidelity.md by activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const collabllmFidelity: RecipeFidelity = {
  title: 'CollabLLM (`collabllm`)',
  folder: 'collabllm',
  seed: "`Wuyxin/collabllm` and verl's `recipe/collabllm` (its interaction, reward function and `process_dataset.py`)",
  paper: 'Wu et al., "CollabLLM: From Passive Responders to Active Collaborators", ICML 2025, arXiv 2502.00640',
  compat: [],
  kept: [
    "A judge, extraction or user-simulator reply that cannot be read after its re-asks is missing, never scored 0: the candidate's reward uses the futures that completed and a candidate with none takes part in no pair (`missing_scores` is a metric) — `conversation.ts`, `reward.ts`.",
    "`aggregation: weighted-mean` (default) is the method as published (Σ weight × score per future, mean over futures); `clamped` is what verl's reward manager does (per-metric mean × weight, clamped to [−1, 1], summed) — `reward.ts`.",
    "`bleu` is character-level BLEU-4 with uniform weights, as the seed's metric computes it on strings — `metrics.ts`.",
    "Online RL reaches verl through an HTTP reward service that runs this folder's simulator and metrics, so the reward exists once (`reward-service.ts`); verl itself needs GPUs and is not run by the tests.",
  ],
  reproduces: [
    "The paper's tables on MediumDocEdit-Chat (BLEU), BigCodeBench-Chat (pass rate) and MATH-Chat (accuracy) with interactivity (ITR) and tokens, Llama-3.1-8B-Instruct as the base: the offline DPO and SFT variants with `trainer.method: dpo` / `sft` on the published `collabllm-multiturn-*` rows or the loop's own, the online one with `trainer: {kind: verl, method: grpo}`. The headline is +18.5 % task performance and +46.3 % interactivity on average over the baselines (LLM judges).",
  ],
};
