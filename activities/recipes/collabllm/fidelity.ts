// How faithful the CollabLLM recipe is to its seed (rendered into docs/fidelity.md by activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const collabllmFidelity: RecipeFidelity = {
  title: 'CollabLLM (`collabllm`)',
  folder: 'collabllm',
  seed: "`microsoft/CollabLLM` 09e5b25 (formerly `Wuyxin/collabllm`) and verl-recipe's `collabllm` (its interaction, metrics, `train_rl_collabllm.sh` and `process_dataset.py`)",
  paper: 'Wu et al., "CollabLLM: From Passive Responders to Active Collaborators", ICML 2025, arXiv 2502.00640',
  compat: [
    {
      behaviour: 'user simulator re-asks after an unreadable reply',
      fixed: '3 (`user.parseRetries`)',
      seed: '9: 10 attempts, as `collabllm/modules/user_simulator.py` (verl-recipe: 3 attempts)',
      where: 'seed-settings.ts',
    },
    {
      behaviour: "proactive candidate's re-asks",
      fixed: '3 (`proact.parseRetries`)',
      seed: '9: 10 attempts, as `collabllm/modules/llm_collaborator.py`',
      where: 'seed-settings.ts',
    },
    {
      behaviour: 'accuracy and interactivity judges: re-asks after an unreadable reply',
      fixed: '3 (`judge.parseRetries`)',
      seed: '49: 50 attempts, as `examples/metrics/accuracy.py` and `interactivity.py`',
      where: 'seed-settings.ts',
    },
    {
      behaviour: "extractor's re-asks",
      fixed: '3 (`judge.extractRetries`)',
      seed: '0: one attempt (`collabllm/metric.py` raises on an unreadable extraction; here the metric is missing)',
      where: 'seed-settings.ts',
    },
    {
      behaviour: "judges' and extractor's reply length",
      fixed: '512 tokens (`judge.maxTokens`)',
      seed: "2048, verl-recipe's `llm_judge_kwargs.max_tokens` (the original sets none: the provider's default)",
      where: 'seed-settings.ts',
    },
    {
      behaviour: '`token_amount`: which messages count',
      fixed: "the assistant's messages from the candidate on, reasoning blocks left out (the prefix is not the candidate's doing)",
      seed: 'every assistant message of the conversation, prompt prefix and reasoning included, joined with spaces (`examples/metrics/efficiency.py`)',
      where: 'metrics.ts',
    },
  ],
  kept: [
    "The simulator's goal is the single-turn prompt alone for every task kind, as both seeds build it; `user.goalHint` (off by default) appends the ground truth as `(Hint: …)`, which the seed does only in its `compute_mr_api` notebook — `conversation.ts`.",
    "The first ⌊candidates × `proact.ratio`⌋ (0.5) candidates of a state are asked through the proactive instruction, as the seed's `proact_prompt_ratio`; the seed samples its candidates from an API model (GPT-4o), we from the policy being trained — `conversation.ts`.",
    "`token_amount` counts cl100k_base tokens as the seed's tiktoken does, through `js-tiktoken` (the same BPE ranks, bundled, offline) — `tokens.ts`.",
    "A judge, extraction, proactive candidate or user-simulator reply that cannot be read after its re-asks is missing, never scored 0 (the seed raises and drops the conversation; verl-recipe scores 0): the candidate's reward uses the futures that completed and a candidate with none takes part in no pair (`missing_scores` is a metric) — `conversation.ts`, `reward.ts`.",
    'Judges are re-asked with their unreadable reply and a notice (the seeds repeat the identical request; at temperature 0 it would most likely return the same reply) — `metrics.ts`.',
    "`aggregation: weighted-mean` (default) is the method as published (Σ weight × score per future, mean over futures); `clamped` is what verl's reward manager does (per-metric mean × weight, clamped to [−1, 1], summed) — `reward.ts`.",
    "`bleu` is character-level BLEU-4 with uniform weights, as the seed's metric computes it on strings — `metrics.ts`.",
    "Abg-CoQA (`task: abg-coqa`) reads the dataset's story entries with a prompt in our words (story and target question, earlier turns left out as the seed's `add_history` default does); rows exported with the seed's adaptor keep its prompt. The seed ships no weights for it: math-hard's are the default — `tasks.ts`, `config.ts`.",
    "Online RL reaches its trainer through an HTTP reward service that runs this folder's simulator and metrics, so the reward exists once (`reward-service.ts`); verl itself needs GPUs and is not run by the tests (its config composition and loaders are).",
    "The seed's PPO (`scripts/train/ppo.py`, marked in progress: TRL 0.x PPOTrainer, a value head on the LoRA policy) is `trainer: {kind: verl, method: ppo}`: verl's GAE with a separate critic model started from the checkpoint, lr 5e-6 as the script's example, full fine-tuning — `verl-grpo.ts`.",
    "The seed's online DPO (`scripts/train/online_dpo.py`: a pairwise judge picks the higher multiturn-aware reward of 2 completions, 3 futures each, β 0.1, lr 5e-6, top-k 50) is `trainer: {kind: trl, method: online_dpo}`: TRL 1.x has no `judge=`, so the reward is a reward function and TRL picks the higher (the first on a tie, as the seed's argmax); a future follows verl's caps (default user, assistant, user) where the seed plays up to 4 new turns; a completion none of whose futures was scored counts as 0 (the seed's judge raises); no cosine schedule, warm-up or LoRA unless given through `extraArgs` — `trl_online_dpo.py`.",
  ],
  reproduces: [
    "The paper's tables on MediumDocEdit-Chat (BLEU), BigCodeBench-Chat (pass rate) and MATH-Chat (accuracy) with interactivity (ITR) and tokens, Llama-3.1-8B-Instruct as the base: the offline DPO and SFT variants with `trainer.method: dpo` / `sft` on the published `collabllm-multiturn-*` rows or the loop's own, the online ones with `trainer: {kind: verl, method: grpo | ppo}` and `trainer: {kind: trl, method: online_dpo}`; Abg-CoQA as the generalisation set with `task: abg-coqa`. The paper reports +18.5 % task performance and +46.3 % interactivity on average over the baselines (LLM judges).",
  ],
};
