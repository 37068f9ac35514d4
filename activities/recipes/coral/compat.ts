/**
 * `fixed` (default): our corrections of flaws in the seed's released code. `seed`: the seed's behaviour, for
 * numbers that compare with the paper. Every divergence is one `compat === 'seed'` branch, marked SEED-COMPAT:
 *
 * | behaviour                      | fixed                                   | seed                                     |
 * |--------------------------------|-----------------------------------------|------------------------------------------|
 * | MATH agreement                 | grader equivalence (\frac12 = 0.5)      | raw string equality of the boxed answers |
 * | ToM normalisation of "the"     | deletes the whole word only             | deletes every "the" substring ("other"→"or") |
 * | empty ToM extraction           | invalid: never correct, never agrees    | valid: a substring of every gold answer  |
 * | final_success_rate             | the conversation's final answer correct | any turn's answer correct                |
 * | per-request sampling seed      | derived from (seed, sample, turn)       | 42 on every request                      |
 */
export type Compat = 'fixed' | 'seed';
