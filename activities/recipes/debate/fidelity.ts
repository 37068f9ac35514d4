// How faithful the debate recipe is to its seed (rendered into docs/fidelity.md by activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const debateFidelity: RecipeFidelity = {
  title: 'Multiagent debate (`debate`)',
  folder: 'debate',
  seed: '`vsubramaniam851/multiagent-ft` (`original_gen.py`, `ft_gen.py`, `ft_generator.py`, `ft_critic.py`, `eval_math.py`, `lm_ft/lm_ft.py`); the arithmetic task from `composable-models/llm_multiagent_debate` (`math/gen_math.py`)',
  paper: 'Subramaniam et al., "Multiagent Finetuning: Self Improvement with Diverse Reasoning Chains", ICLR 2025, arXiv 2501.05707',
  compat: [
    {
      behaviour: '`accuracy` when no agent answered',
      fixed: 'the problem counts as wrong',
      seed: 'left out of the denominator, as `eval_math.py` (then `answered` says how many were kept)',
      where: 'metrics.ts',
    },
    {
      behaviour: 'MATH: which answers are one in the vote, and which are right',
      fixed: "the project's MATH grader (`shared/math-equivalence.ts`), symmetric between two agents' answers",
      seed: "the seed's `grade_answer` (the grader's seed mode), asked one way as the seed asks it: `grade_answer(cluster, answer)` in the vote (`eval_math.py` `most_frequent`), `grade_answer(answer, consensus)` for the training data (`ft_generator.py`, `ft_critic.py`)",
      where: 'answers.ts, vote.ts, data.ts',
    },
    {
      behaviour: 'GSM8K and arithmetic: the vote and grading',
      fixed: 'the MATH grader on the numbers; ties go to the largest name',
      seed: "as `llm_multiagent_debate`: GSM8K answers are one only when string-identical, arithmetic answers when equal as floats, ties go to the first-seen (`most_frequent`); right when equal as floats to the gold — for GSM8K the gold's last number (`eval_gsm.py` `solve_math_problems`, so a gold `1,234` reads as 234)",
      where: 'answers.ts, vote.ts',
    },
    {
      behaviour: '`consensus_rate`',
      fixed: 'per debate, the share of agents in the winning cluster, averaged over debates',
      seed: '`eval_math.py`\'s "mean consensus": the share of all given final answers string-identical to the vote',
      where: 'metrics.ts',
    },
    {
      behaviour: 'critic SFT targets',
      fixed: "the debate's final reply, the earlier rounds as context",
      seed: "every reply of the debate, as `lm_ft.py` masks only the user turns: one example per round, each with the rounds before it as context (the same token loss as one multi-turn row for trainers that mask by turn; verl's rows have no mask and so count the earlier replies again)",
      where: 'data.ts',
    },
  ],
  kept: [
    "Synchronous rounds: every agent of a round reads only the previous round (the seed's summary path reads earlier agents' same-round answers, so its result depends on agent order) — `debate.ts`.",
    "The vote: a cluster is named by its first-seen answer; MATH ties go to the lexicographically largest name, the seed's sort, in both modes — `vote.ts`. GSM8K answers are read from the last `\\boxed{}` (commas and `$` dropped); `eval_gsm.py` reads the last `{…}` of digits, `.`, `,` and `$`, falls back to the reply's last number, and scores a problem with no answer at all as right — `answers.ts`.",
    "MATH answers: the last `\\boxed{}` of a reply, mixed numbers (`1\\frac{1}{2}` = 3/2), scientific notation, exact comparison of large numbers and a symbolic step (sympy, as the seed's `grader.py`; one long-lived helper, `shared/symbolic-equal.ts`) — defects of the seed fixed in both modes. `tests/fixtures/math-grader/seed-verdicts.jsonl` holds 661 answer pairs with the seed grader's verdicts; ours agree on all but thousands-comma forms the seed does not read as numbers.",
    "Later rounds show the other agents' answers shuffled and at most 5 (`others`, as `original_gen.py`), in every iteration; `ft_gen.py` (the finetuned iterations) shows all in agent order — `others: {shuffle: false}`. Our shuffle is seeded per (seed, task, sample, round, agent), not Python's global random — `debate.ts`.",
    "The later-round requests are templates (`debate_round`, `summarized_round` with `{problem}`; one item template per listed answer, `debate_round.answer`, `summary_request.answer`), so a prompts file of the seed's texts rebuilds its requests byte for byte; the project ships its own texts, not the seed's — `prompts.ts`.",
    "Task sets: `build-task-sets.ts math` draws `original_gen.py`'s MATH Levels 1–3 500 (Python's `random.seed(0)` shuffles reproduced exactly, `shared/mersenne-twister.ts`); a selected problem whose solution has no `\\boxed{}` is refused (the seed would grade every answer to it wrong); the gold is the last complete `\\boxed{…}` (brace counting, a space before the brace allowed), where the seed's `parse_answer` reads none for `\\boxed {…}` or an unclosed last box — `math-set.ts`. `build-task-sets.ts arithmetic` draws `gen_math.py`'s problems (NumPy's legacy `seed(0)`, `randint(0, 30)`); the seed draws 100, the paper evaluates 500 (ours: the seed's 100 first). Our agents box their arithmetic answers (`gen_math.py` reads the last number of a reply) — `arithmetic.ts`.",
    "`ft_critic.py`'s open-model path writes maintained examples under a misspelt key that `lm_ft.py` cannot read (a KeyError when one is drawn); we train on them, as the paper describes — `data.ts`.",
    "The single-model baselines (`mode: majority_ft`, `mode: star`) follow the paper's description; the seed has no code for them. `star` keeps answers that reach the gold and has no rationalisation step (STaR's hint with the answer) — `data.ts`.",
    "The paper's diversity measures: embedding dissimilarity (mean over agent pairs of 1 − cosine of their replies' embeddings, per round: `embedding_dissimilarity`, `round_<r>_embedding_dissimilarity`) is computed when `diversity.embeddings` names an OpenAI-compatible `/v1/embeddings` endpoint, with whatever encoder it serves (the paper embeds with T5-3B; the seed repository has no code for it), on evaluation debates only; the dry run's simulator answers that route with hashed word counts, not a model. Not implemented: the likelihood and KL measures, which need a scoring model's token probabilities of the other agents' replies — `diversity.ts`.",
    'Sampling seeds per call come from (seed, task, agent, round), not unseeded API calls, so a run can be repeated — `debate.ts`.',
    'Critic data keeps `data.maintainedPerCorrected` (default 0.5) maintained examples per corrected one, those with the lowest seeded hash of (agent, task, sample); the seed flips a coin per example (about the same ratio) — `data.ts`.',
  ],
  reproduces: [
    'Table 1 of the paper (accuracy ± s.e. on 500 fixed problems, one finetuning iteration); the paper reports e.g. LLaMA-3-8B MATH 46.80 (base) → 51.60 (debate) → 57.40 (finetuned). For MATH: the task file from `activities/recipes/debate/build-task-sets.ts math <MATH dir>`, 3 agents, 2 rounds, `summarize: true`, `compat: seed`, one iteration of SFT on each generator and critic; `mode: single` / `majority` for Base and Majority. Arithmetic: the same with `activities/recipes/debate/build-task-sets.ts arithmetic`. GSM: no seed code fixes its 500 problems.',
    'Figure 1 (MATH over ~5 iterations): `iterations: 5`; the per-iteration values are only in the figure.',
  ],
};
