/**
 * `compat: fixed` (default) corrects flaws of the seed's released code; `compat: seed` reproduces them, so numbers
 * compare with the paper. The differences, what each mode does and where it lives (marked `SEED-COMPAT`), and those
 * kept in both modes: `colbenchFidelity` in fidelity.ts (rendered into docs/fidelity.md).
 */
export type ColbenchCompat = 'fixed' | 'seed';
