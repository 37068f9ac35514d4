// How faithful the debate recipe is to its seed (rendered into docs/fidelity.md by activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const debateFidelity: RecipeFidelity = {
  title: 'Multiagent debate (`debate`)',
  folder: 'debate',
  seed: '`vsubramaniam851/multiagent-ft` (`original_gen.py`, `ft_gen.py`, `ft_generator.py`, `ft_critic.py`, `eval_math.py`)',
  paper: 'Subramaniam et al., "Multiagent Finetuning: Self Improvement with Diverse Reasoning Chains", ICLR 2025, arXiv 2501.05707',
  compat: [
    {
      behaviour: '`accuracy` when no agent answered',
      fixed: 'the problem counts as wrong',
      seed: 'left out of the denominator, as `eval_math.py` (then `answered` says how many were kept)',
      where: 'metrics.ts',
    },
  ],
  kept: [
    "Synchronous rounds: every agent of a round reads only the previous round (the seed's summary path reads earlier agents' same-round answers, so its result depends on agent order) — `debate.ts`.",
    "The vote clusters answers by MATH equivalence (the grader CoRal uses) instead of string identity; a cluster is named by its first-seen answer and ties go to the lexicographically largest name, the seed's sort — `vote.ts`.",
    "MATH answers: the last `\\boxed{}` of a reply, mixed numbers (`1\\frac{1}{2}` = 3/2), scientific notation, exact comparison of large numbers and a symbolic step (sympy, as the seed's `grader.py`; one long-lived helper, `shared/symbolic-equal.ts`) — defects of the seed fixed in both modes. `tests/fixtures/math-grader/seed-verdicts.jsonl` holds 661 answer pairs with the seed grader's verdicts; ours agree on all but thousands-comma forms the seed does not read as numbers.",
    'Sampling seeds per call come from (seed, task, agent, round), not unseeded API calls, so a run can be repeated — `debate.ts`.',
    'Critic data keeps `data.maintainedPerCorrected` (default 0.5) maintained examples per corrected one, drawn with a seeded shuffle; the seed flips a coin per example (about the same ratio) — `data.ts`.',
  ],
  reproduces: [
    'Table 1 of the paper (accuracy ± s.e. on 500 fixed problems, one finetuning iteration): MATH, GSM and arithmetic for GPT-3.5, Phi-3, Mistral-7B and LLaMA-3-8B, e.g. LLaMA-3-8B MATH 46.80 (base) → 51.60 (debate) → 57.40 (finetuned). Use 3 agents, 2 rounds, `summarize: true`, `compat: seed`, the same 500 problems, and one iteration of SFT on each generator and critic.',
    'Figure 1 (MATH over ~5 iterations): `iterations: 5`; the per-iteration values are only in the figure.',
  ],
};
