/**
 * `compat: fixed` (default) corrects flaws of the seed's released code; `compat: seed` reproduces them, so numbers
 * compare with the paper. Each divergence lives in exactly one place, marked `SEED-COMPAT`:
 *
 * | behaviour                       | fixed                                        | seed                                        | where               |
 * |---------------------------------|----------------------------------------------|---------------------------------------------|---------------------|
 * | MATH agreement                  | grader equivalence (\frac12 = 0.5)           | raw string equality of the boxed answers    | agree.ts            |
 * | ToM "the" removal               | whole word only                              | every substring ("other" → "or")            | extract.ts          |
 * | ToM first line / trailing "."   | first non-empty line, trailing dots stripped | first line, `rstrip('.')` before `strip()`  | extract.ts          |
 * | empty extraction                | invalid: never correct, never agrees         | valid: ToM "" is a substring of every gold  | extract.ts          |
 * | ToM gold answer                 | normalised like the prediction               | compared raw (case-sensitive)               | match.ts            |
 * | ToM answer prefix               | "short answer:" in any case and spacing      | exactly "Short Answer: " / "The final …"    | extract.ts          |
 * | MATH extraction                 | the last \boxed{} of the reply               | valid only as $\boxed{…}$ (with the dollars) | extract.ts          |
 * | failed extraction               | never correct                                | still graded: MC as the capitals of "Error: <reply>" (E), MATH by its last \boxed{} | match.ts |
 * | unsure ToM reply                | never correct                                | graded as "not sure yet" (matches "no")     | match.ts            |
 * | final_success_rate              | the final answer (agreed / last) is correct  | ANY turn was correct                        | metrics.ts          |
 * | per-request sampling seed       | derived from (seed, sample, turn)            | 42 on every request (pinned MATRIX)         | conversation.ts     |
 * | SFT selection (`data.sftSelection` default) | `correct_agreement`: turns of correctly agreed conversations, `maxPerTask` turns per task | `all_turns`: every turn of the first `maxPerTask` conversations per task, no correctness filter | data-options.ts |
 * | DPO pair choice (`data.pairChoice` default) | `shuffled`: (correct, incorrect) pairs, seeded shuffle, first `maxPairsPerTurn` | `reward_gap`: gap > 0.5, stable-sorted by gap, first `maxPairsPerTurn` (spine turn's pairs first) | data-options.ts |
 * | the student's view              | a user preamble (`student_preamble`) before its own turn 0 | opens with its turn 0 as an assistant message, as the seed sends it | conversation.ts |
 * | the extraction request          | the `extractor.<dataset>` text              | that text written over the extractor's system prompt, keeping the prompt's tail where the text is shorter (a StringIO opened with it) | conversation.ts, prompts.ts |
 * | `discourageLength`'s length     | the candidate's text length (characters)     | the request's completion tokens: equal for every candidate, so no effect | pair-choice.ts |
 */
export type Compat = 'fixed' | 'seed';
