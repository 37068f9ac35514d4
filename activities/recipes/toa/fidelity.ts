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
    'Rewards from an LLM judge (1–10) are an addition for machines without a reward model; the seed uses ArmoRM or COMET-KIWI (`api: reward` / `api: score`) — `reward.ts`.',
  ],
  reproduces: [
    "The AlpacaEval 2.0 table of the paper (v1; the README's figures): best-of-160 with Llama-3.1-70B-Instruct, Mistral-Large-2407, Qwen2-72B-Instruct, Mixtral-8x22B-Instruct and WizardLM-2-8x22B as policies and ArmoRM as the reward, TOA 71.8 LC / 68.7 WR against the random, PRS, ensemble, sequential and MoA baselines at the same budget (`samples` × 5 = 160, `compare: [random, prs, ensemble, sequential, moa]`).",
    "The WMT'22 translation table (COMET-KIWI as the reward, `api: score`, `task: translation`); its values are in the seed README's figure `table_wmt.png`.",
    'The reward-versus-FLOPs plots: `collab-loop report` draws best and top-10 reward against TFLOPs per method from the same records.',
  ],
};
