// The arithmetic task set as llm_multiagent_debate's math/gen_math.py draws it (the multiagent-ft paper's
// "Arithmetic"): NumPy's legacy generator seeded 0, six integers in [0, 30) per problem, the expression
// a+b*c+d-e*f and its value. The seed draws 100; the paper evaluates 500 — the first 100 of ours are the seed's.
import { MersenneTwister, numpyRandint } from '../shared/mersenne-twister';

export interface ArithmeticRow {
  id: string;
  question: string;
  answer: number;
}

export function arithmeticTasks(count = 500, seed = 0): ArithmeticRow[] {
  const g = MersenneTwister.numpyLegacy(seed);
  return Array.from({ length: count }, (_, i) => {
    const [a, b, c, d, e, f] = Array.from({ length: 6 }, () => numpyRandint(g, 0, 30));
    return { id: `arithmetic-${i}`, question: `What is the result of ${a}+${b}*${c}+${d}-${e}*${f}?`, answer: a + b * c + d - e * f };
  });
}
