// How faithful CoRal is to its seed: the `compat: fixed` / `compat: seed` differences (each lives in the file it
// names, marked SEED-COMPAT) and the published numbers. Rendered into docs/fidelity.md (activities/recipes/fidelity.ts).
import type { RecipeFidelity } from '../fidelity';

export const coralFidelity: RecipeFidelity = {
  title: 'CoRal — Collaborative Reasoner (`coral`)',
  folder: 'coral',
  seed: '`facebookresearch/collaborative-reasoner` (`evaluators/`, `utils/`, `lightning_modules/`, `finetuning/`) with the MATRIX commit it pins',
  paper:
    'Ni et al., "Collaborative Reasoner: Self-Improving Social Agents with Synthetic Conversations", NeurIPS 2025 (OpenReview dye9w8IOV0)',
  compat: [
    {
      behaviour: 'MATH agreement',
      fixed: 'grader equivalence (\\frac12 = 0.5)',
      seed: 'raw string equality of the boxed answers',
      where: 'agree.ts',
    },
    { behaviour: 'ToM "the" removal', fixed: 'whole word only', seed: 'every substring ("other" → "or")', where: 'extract.ts' },
    {
      behaviour: 'ToM first line / trailing "."',
      fixed: 'first non-empty line, trailing dots stripped',
      seed: "first line, `rstrip('.')` before `strip()`",
      where: 'extract.ts',
    },
    {
      behaviour: 'empty extraction',
      fixed: 'invalid: never correct, never agrees',
      seed: 'valid: ToM "" is a substring of every gold',
      where: 'extract.ts',
    },
    { behaviour: 'ToM gold answer', fixed: 'normalised like the prediction', seed: 'compared raw (case-sensitive)', where: 'match.ts' },
    {
      behaviour: 'ToM answer prefix',
      fixed: '"short answer:" in any case and spacing',
      seed: 'exactly "Short Answer: " / "The final …"',
      where: 'extract.ts',
    },
    {
      behaviour: 'MATH extraction',
      fixed: 'the last \\boxed{} of the reply',
      seed: 'valid only as $\\boxed{…}$ (with the dollars)',
      where: 'extract.ts',
    },
    {
      behaviour: 'failed extraction',
      fixed: 'never correct',
      seed: 'still graded: multiple choice as the capitals of "Error: <reply>" (E), MATH by its last \\boxed{}',
      where: 'match.ts',
    },
    { behaviour: 'unsure ToM reply', fixed: 'never correct', seed: 'graded as "not sure yet" (matches "no")', where: 'match.ts' },
    {
      behaviour: 'final_success_rate',
      fixed: 'the final answer (agreed / last) is correct',
      seed: 'ANY turn was correct',
      where: 'metrics.ts',
    },
    {
      behaviour: 'per-request sampling seed',
      fixed: 'derived from (seed, sample, turn)',
      seed: '42 on every request (pinned MATRIX)',
      where: 'conversation.ts',
    },
    {
      behaviour: 'sampling (defaults of evalTemperature, trainTemperature, topP)',
      fixed: 'evaluation greedy (0), training trees 0.8, top-p 0.9',
      seed: "0.2 for every turn, evaluation and training alike, top-p 1 (the seed's `sampling_temp`, no top_p)",
      where: 'decoding.ts',
    },
    {
      behaviour: 'SFT selection (`data.sftSelection` default)',
      fixed: '`correct_agreement`: turns of correctly agreed conversations, `maxPerTask` turns per task',
      seed: '`all_turns`: every turn of the first `maxPerTask` conversations per task, no correctness filter',
      where: 'data-options.ts',
    },
    {
      behaviour: 'DPO pair choice (`data.pairChoice` default)',
      fixed: '`shuffled`: (correct, incorrect) pairs, seeded shuffle, first `maxPairsPerTurn`',
      seed: "`reward_gap`: gap > 0.5, stable-sorted by gap, first `maxPairsPerTurn` (the spine turn's pairs first)",
      where: 'data-options.ts',
    },
    {
      behaviour: "the student's view",
      fixed: 'a user preamble (`student_preamble`) before its own turn 0',
      seed: 'opens with its turn 0 as an assistant message, as the seed sends it',
      where: 'conversation.ts',
    },
    {
      behaviour: 'the extraction request',
      fixed: 'the `extractor.<dataset>` text',
      seed: "that text written over the extractor's system prompt, keeping the prompt's tail where the text is shorter (a StringIO opened with it)",
      where: 'conversation.ts, prompts.ts',
    },
    {
      behaviour: "`discourageLength`'s length",
      fixed: "the candidate's text length (characters)",
      seed: "the request's completion tokens: equal for every candidate, so no effect",
      where: 'pair-choice.ts',
    },
    {
      behaviour: 'MATH grading: reading LaTeX',
      fixed: 'as written: \\frac{a+b}{c} is (a+b)/c, \\mbox{x} is x, pmatrix and bmatrix differ, "" is never an answer',
      seed: 'as the seed grader\'s pylatexenc 2.11: \\frac{a+b}{c} is a+b/c (so \\frac{1}{2+3} ≠ \\frac15 and reordered terms in a fraction differ), \\mbox{…} is dropped, pmatrix = bmatrix, \\sqrt[n]{x} is sqrt(x), two answers that both read as "" are equal; its `_is_frac` pattern',
      where: 'match.ts, activities/recipes/shared/math-normalize.ts, activities/recipes/shared/math-equivalence.ts',
    },
    {
      behaviour: 'multiple-choice `response` in `collab-loop score`',
      fixed: 'read as a perfect extractor would ("answer is (c)", one "(X)")',
      seed: 'the seed\'s no-extractor path: every capital of the response must be the gold letter alone ("Probably (C)" reads PC; "(c)" reads nothing)',
      where: 'score.ts',
    },
  ],
  kept: [
    "MATH answers in both modes: mixed numbers (`1\\frac{1}{2}` = 3/2), scientific notation, exact comparison of large numbers and a symbolic step (sympy, as the seeds' graders; one long-lived helper, `activities/recipes/shared/symbolic-equal.ts`). `tests/fixtures/math-grader/seed-verdicts.jsonl` holds 661 answer pairs with the seed grader's verdicts: ours agree on all but thousands-comma forms the seed does not read as numbers. Under `compat: seed` the grader also agrees with the seed's on all 1,119 generated pairs of the LaTeX kinds above (`tests/fixtures/math-grader/seed-kinds-verdicts.jsonl`; `fixed` on 37 %), and the MMLU-Pro response path on all 223 generated responses (`tests/fixtures/coral/seed-mc-response-verdicts.jsonl`).",
    "Answer extraction under `compat: seed` reproduces the seed's on `tests/fixtures/coral/seed-extraction-verdicts.jsonl` (311 replies with the seed evaluator's verdicts, all reproduced).",
    'Every model call goes through the durable request cache: a repeated run pays for nothing, where the seed re-samples.',
  ],
  reproduces: [
    "The paper's agreement-correctness and accuracy of Coral conversations, and the gains of Coral-trained models over finetuned chain-of-thought of the same base on its datasets (MATH, MMLU-Pro, GPQA, ExploreToM, HiToM among them; Llama-3.1 8B/70B, Ministral-8B, Qwen-2.5-7B). Paper reports gains of up to 16.7 % absolute over six tasks (its abstract). Setup (`configs/coral.external.yaml`): `compat: seed`, the seed's prompt texts (`recipe.prompts`), its sampling settings and one DPO iteration.",
    'An untrained reference point, Llama-3.1-8B-Instruct on MMLU-Pro: paper reports Coral agreement_correctness 0.456 (as the MATRIX paper, arXiv 2511.21686, quotes the CoRal paper), and 0.4732 when MATRIX re-ran the official code.',
  ],
};
