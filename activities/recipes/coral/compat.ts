/**
 * `compat: fixed` (default) corrects flaws of the seed's released code; `compat: seed` reproduces them, so numbers
 * compare with the paper. Each divergence lives in exactly one place, marked `SEED-COMPAT`; the list of them, with
 * what each mode does, is `coralFidelity` in fidelity.ts (rendered into docs/fidelity.md).
 */
export type Compat = 'fixed' | 'seed';
