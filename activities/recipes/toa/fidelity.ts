// How faithful the TOA recipe is to its seed (rendered into docs/fidelity.md by activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const toaFidelity: RecipeFidelity = {
  title: 'TOA (`toa`)',
  folder: 'toa',
  seed: '`oceanypt/TOA` (its MCTS over several policies, the baselines and the reward services)',
  paper:
    'Ye et al., "Multi-Agent Sampling: Scaling Inference Compute for Data Synthesis with Tree Search-Based Agentic Collaboration", arXiv 2412.17061',
  compat: [],
  kept: [
    'A failed play (no text, or a reward that could not be read after its re-asks) is recorded as failed, never as 0 (the seed writes 0.0): it backs up visits only and counts against the arm that made the call, so a dead endpoint stops winning the selection — `search.ts`.',
    'The search is a pure JSON state machine whose every call has a cache key naming (prompt, sample, method, play): a search rerun after a crash replays its paid plays and builds the same tree — `run-search.ts`.',
    "Rewards from an LLM judge (1–10) are an addition for machines without a reward model; the seed uses ArmoRM or COMET-KIWI (`api: reward` / `api: score`) — `reward.ts`. With `api: reward` the reward is the reward head's raw output, which for ArmoRM is its `score` (Σ gating · transformed objectives, the number the seed reads in `code/reward.py`; `tests/integration/activities/recipes/toa/armorm-score.test.ts`).",
    "The seed's per-experiment settings are presets (`preset: alpacaeval | ultrafeedback | wmt`, default by task: translation → wmt): WMT tau 1, alpha 0.05 (`bash/exp_nmt`); UltraFeedback temperature 0.8 for the MCTS run and 0.7 for its baselines (`bash/data_gen_ultrafeedback`); AlpacaEval tau 0.1, alpha 0.01, 0.7. Values written in the config win — `settings.ts`.",
    "The seed's evaluation (AlpacaEval 2.0, Arena-Hard, KIWI-XXL) is run outside its repository; ours (`recipe.evaluation`, `evaluation.ts`) judges the student's answer and each compared method's best text against a reference-outputs file with any `judge` endpoint, in our own prompt wording: AlpacaEval-style preferences are hard (A or B), not the log-prob-weighted preferences of `weighted_alpaca_eval_gpt4_turbo` — `evaluation.ts`.",
    'The length-controlled win rate is the GLM of Dubois et al. (arXiv 2404.04475), σ(θ + φ·tanh(Δlen/sd) [+ ψ·γ]) with LC = mean σ(θ [+ ψ·γ]), fitted by Newton\'s method with a small L2 penalty (0.01); alpaca_eval selects an L1 penalty by 5-fold cross-validation and regularises towards its leaderboard\'s two "gamed" baselines (df_gamed.csv), which do not exist for a reference file of ours. The instruction-difficulty term is used only when every reference row gives `instruction_difficulty` — `win-rates.ts`.',
    'The Arena-Hard score is the Bradley–Terry win probability against the one reference model, which for a single pairing is (wins + ties/2) / battles with clear verdicts weighted 3 (arena-hard-auto v0.1); its interval is 100 seeded bootstrap resamples of the battles (2.5 / 97.5 %) — `arena-hard.ts`. Style control (Arena-Hard v2) is not implemented.',
    'KIWI evaluation of translations (`recipe.evaluation.kiwi` and a `kiwi` role, a COMET-KIWI service behind `api: score`) reports the mean raw score (0–1) per text; the paper prints KIWI-XXL × 100 — `judged-metrics.ts`.',
  ],
  reproduces: [
    "The AlpacaEval 2.0 table's setup (v1; the README's figures): best-of-160 with Llama-3.1-70B-Instruct, Mistral-Large-2407, Qwen2-72B-Instruct, Mixtral-8x22B-Instruct and WizardLM-2-8x22B as policies and ArmoRM as the reward against the random, PRS, ensemble, sequential and MoA baselines at the same budget (`samples` × 5 = 160, `compare: [random, prs, ensemble, sequential, moa]`, `preset: alpacaeval`), the best texts judged with `recipe.evaluation` against AlpacaEval's GPT-4-Turbo reference outputs by a GPT-4-Turbo `judge`. Paper reports TOA 71.8 LC / 68.7 WR; our LC differs in the ways listed above (hard preferences, no gamed-baseline regularisation), so expect close, not equal, figures.",
    "The WMT'22 translation table's setup: COMET-KIWI (`wmt22-cometkiwi-da`) as the reward (`api: score`, `task: translation`, the wmt preset), the best translations scored by KIWI-XXL (`wmt23-cometkiwi-da-xxl`) as the `kiwi` role (`recipe.evaluation: {kiwi: true, alpacaEval: false, arenaHard: false}`). Paper reports TOA 84.05 average KIWI-XXL × 100 over de, cs, is, zh and ru (the seed README's `table_wmt.png`).",
    'The students trained on the synthesised data evaluated the same way (`student/alpaca_lc_win_rate`, `student/arena_win_rate`): paper reports TOA-DPO on Llama-3-8B-Instruct 52.2 LC / 55.8 WR on AlpacaEval 2.0 and 39.2 on Arena-Hard (`preset: ultrafeedback` for the data).',
    'The reward-versus-FLOPs plots: `collab-loop report` draws best and top-10 reward against TFLOPs per method from the same records.',
  ],
};
