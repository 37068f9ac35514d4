// AlpacaEval 2.0's win rate and length-controlled win rate against the reference, from one preference per prompt.
//
// Win rate (WR) = 100 · mean(p), p ∈ [0, 1] the judge's preference for the text over the reference (ties 0.5).
//
// Length-controlled win rate (LC): Dubois, Galambosi, Liang, Hashimoto, "Length-Controlled AlpacaEval: A Simple Way
// to Debias Automatic Evaluators" (arXiv 2404.04475, §3). A logistic-regression GLM of the preference on the length
// difference and the model:
//     P(text preferred | x) = σ( θ + φ · tanh(Δ_x / sd(Δ)) [+ ψ · γ_x] )
// with Δ_x = len(reference) − len(text) in characters (alpaca_eval's output_1 − output_2), sd the sample standard
// deviation of Δ over the prompts, γ_x an instruction-difficulty term (alpaca_eval's leaderboard-fitted
// instruction_difficulty; optional here, given per prompt), and the length-controlled preference is the GLM's
// prediction with the length term set to zero:
//     LC = 100 · mean_x σ(θ [+ ψ · γ_x]).
// The fit maximises the soft-label log-likelihood Σ p·log σ(z) + (1 − p)·log(1 − σ(z)) (alpaca_eval fits the
// preference as a probability the same way) by Newton's method, with a small L2 penalty λ/2·‖w‖² so the fit exists
// when the text wins or loses every game (separable data). Where alpaca_eval differs: it selects an L1 penalty by
// 5-fold cross-validation and regularises towards its two "gamed" baselines (verbose/concise variants of the
// reference model, df_gamed.csv from its leaderboard); neither exists for our reference outputs — declared in
// fidelity.ts.
import { meanOf } from '../shared/mean';

export interface PreferenceRow {
  /** The judge's preference for the text, 0 … 1. */
  p: number;
  /** len(reference) − len(text), characters. */
  delta: number;
  /** Instruction difficulty γ_x, when known. */
  difficulty?: number;
}

export interface LengthControlled {
  winRate: number;
  lcWinRate: number;
  /** The fitted weights: θ (the text's own term), φ (the length term), ψ (difficulty; 0 when not used). */
  theta: number;
  phi: number;
  psi: number;
}

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** Sample standard deviation (pandas' default ddof 1); 0 for fewer than two values. */
function sampleSd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Solves A·x = b (small dense, Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[piv][c])) piv = r;
    [m[c], m[piv]] = [m[piv], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return x;
}

/** Soft-label logistic regression without intercept (the features carry it), L2 penalty `lambda`, Newton steps. */
export function fitLogistic(x: readonly number[][], p: readonly number[], lambda: number): number[] {
  const d = x[0].length;
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < 100; it++) {
    const grad = w.map((wi) => -lambda * wi);
    const hess = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? lambda : 0)));
    x.forEach((xi, n) => {
      const mu = sigmoid(xi.reduce((a, v, k) => a + v * w[k], 0));
      const r = mu * (1 - mu);
      for (let i = 0; i < d; i++) {
        grad[i] += (p[n] - mu) * xi[i];
        for (let j = 0; j < d; j++) hess[i][j] += r * xi[i] * xi[j];
      }
    });
    const step = solve(hess, grad);
    w = w.map((wi, i) => wi + step[i]);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  return w;
}

/** The L2 weight of the fit: small against n prompts, enough to keep separable data finite. */
export const LC_L2 = 0.01;

export function lengthControlledWinRate(rows: readonly PreferenceRow[]): LengthControlled | undefined {
  if (!rows.length) return undefined;
  const winRate = 100 * meanOf(rows.map((r) => r.p))!;
  const sd = sampleSd(rows.map((r) => r.delta));
  const withDifficulty = rows.every((r) => r.difficulty !== undefined);
  const features = (r: PreferenceRow, lengthTerm: boolean) => [
    1,
    lengthTerm && sd > 0 ? Math.tanh(r.delta / sd) : 0,
    ...(withDifficulty ? [r.difficulty!] : []),
  ];
  const [theta, phi, psi = 0] = fitLogistic(
    rows.map((r) => features(r, true)),
    rows.map((r) => r.p),
    LC_L2,
  );
  const lcWinRate = 100 * meanOf(rows.map((r) => sigmoid(theta + psi * (r.difficulty ?? 0))))!;
  return { winRate, lcWinRate, theta, phi, psi };
}
