// `compat: seed` debate votes and grades as the seeds do: MATH with multiagent-ft's grade_answer (eval_math.py
// `most_frequent` clusters with grade_answer(cluster, answer) and grades the vote with it), GSM8K and arithmetic as
// llm_multiagent_debate's eval_gsm.py / gen_math.py (string-identical or float-equal answers, the first-seen of the
// tied, float comparison with the gold). `fixed` keeps the project's grader. The MATH pairs are rows of
// tests/fixtures/math-grader/seed-kinds-verdicts.jsonl, whose verdicts the seed's own grade_answer gave.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonl } from '../../../../../activities/artifacts/store';
import {
  DEFAULT_DEBATE_PROMPTS,
  debateMetrics,
  debateTrainingData,
  isCorrect,
  majorityVote,
  runDebate,
  type DebateRecord,
} from '../../../../../activities/recipes/debate';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import { scripted } from '../../../../helpers/debate';

type Verdict = { kind: string; pred: string; gold: string; seed: boolean };
const VERDICTS = parseJsonl<Verdict>(readFileSync(path.join(PROJECT_ROOT, 'tests/fixtures/math-grader/seed-kinds-verdicts.jsonl'), 'utf8'));
const row = (pred: string, gold: string) => {
  const r = VERDICTS.find((v) => v.pred === pred && v.gold === gold);
  if (!r) throw new Error(`no fixture row ${pred} / ${gold}`);
  return r;
};
// The seed's grader and ours disagree on both: it reads pmatrix and bmatrix alike, and \frac{1}{x+1} as 1/x+1.
const MATRIX = row('\\begin{pmatrix} -1 \\\\ 2 \\end{pmatrix}', '\\begin{bmatrix} -1 \\\\ 2 \\end{bmatrix}');
const REORDERED = row('\\frac{1}{x+1}', '\\frac{1}{1+x}');

/** One round of four scripted agents answering `answers` to a MATH problem whose gold is `gold`. */
async function debate(answers: string[], gold: string, compat: 'fixed' | 'seed'): Promise<DebateRecord> {
  const script = Object.fromEntries(answers.map((a, i) => [`generator_${i}`, [a]]));
  return runDebate({
    task: { id: 't', dataset: 'math', problem: 'p', gold },
    prompts: DEFAULT_DEBATE_PROMPTS,
    sampleIndex: 0,
    agents: answers.length,
    rounds: 1,
    summarize: false,
    others: { shuffle: false, max: 5 },
    chats: scripted(script, []),
    decoding: { temperature: 1, topP: 0.9, maxTokens: 64 },
    seed: 1,
    compat,
  });
}

describe("compat: seed — MATH votes and accuracy through the seed's grade_answer", () => {
  it.each([
    ['pmatrix ≡ bmatrix for the seed only', MATRIX],
    ['\\frac{1}{x+1} ≡ \\frac{1}{1+x} for ours only', REORDERED],
  ])('%s: the grader decides the vote and the accuracy', async (_, v) => {
    expect(v.kind === 'matrix' ? v.seed : !v.seed).toBe(true);
    // Two agents give the pair, two give 7: if the pair is one answer the vote is a 2–2 tie, which the pair's
    // name wins (a backslash sorts after "7"); if not, 7 wins 2–1–1.
    const answers = [v.pred, v.gold, '7', '7'];
    for (const compat of ['seed', 'fixed'] as const) {
      const equivalent = compat === 'seed' ? v.seed : !v.seed;
      const r = await debate(answers, v.gold, compat);
      expect(r.roundVotes[0].answer, compat).toBe(equivalent ? v.pred : '7');
      expect(
        r.roundVotes[0].clusters.map((c) => c.count),
        compat,
      ).toEqual(equivalent ? [2, 2] : [1, 1, 2]);
      expect(r.correct, compat).toBe(equivalent);
      const m = debateMetrics([r], { dataset: 'math', compat });
      expect(m.accuracy, compat).toBe(equivalent ? 1 : 0);
      // Agent 0's own answer graded against the gold the same way.
      expect(m.agent_0_accuracy, compat).toBe(equivalent ? 1 : 0);
    }
  });

  it('consensus under seed is the share of given answers string-identical to the vote (eval_math.py)', async () => {
    const r = await debate([MATRIX.pred, MATRIX.gold, '7', '7'], MATRIX.gold, 'seed');
    // Vote = the pmatrix cluster (2 answers), but only the pmatrix string itself is identical to it.
    expect(debateMetrics([r], { dataset: 'math', compat: 'seed' }).consensus_rate).toBe(1 / 4);
    const f = await debate([REORDERED.pred, REORDERED.gold, '7', '7'], REORDERED.gold, 'fixed');
    expect(debateMetrics([f], { dataset: 'math', compat: 'fixed' }).consensus_rate).toBe(2 / 4);
  });

  it("the generators' consensus data follows the grader too (ft_generator.py: grade_answer(answer, consensus))", async () => {
    const answers = [MATRIX.pred, MATRIX.gold, '7', '7'];
    for (const compat of ['seed', 'fixed'] as const) {
      const r = await debate(answers, MATRIX.gold, compat);
      const d = debateTrainingData([r], { dataset: 'math', maintainedPerCorrected: 0.5, seed: 1, compat });
      // seed: the vote is the matrix, agents 0 and 1 agree with it; fixed: the vote is 7, agents 2 and 3 do.
      const kept = [0, 1, 2, 3].filter((n) => d.counts[`generator_${n}_examples`] === 1);
      expect(kept, compat).toEqual(compat === 'seed' ? [0, 1] : [2, 3]);
    }
  });
});

describe('compat: seed — GSM8K and arithmetic as llm_multiagent_debate judges them', () => {
  it('GSM8K clusters string-identical numbers and keeps the first-seen of the tied (eval_gsm.py most_frequent)', () => {
    const answers = ['12', '9', '9.0'];
    expect(majorityVote('gsm8k', answers, 'fixed')).toMatchObject({ answer: '9' }); // 9 ≡ 9.0
    expect(majorityVote('gsm8k', answers, 'seed')).toMatchObject({ answer: '12' }); // three 1s; not the largest name 9.0
    expect(majorityVote('gsm8k', answers, 'seed').clusters).toHaveLength(3);
  });

  it('GSM8K grades as floats against the last number of the gold (eval_gsm.py solve_math_problems)', () => {
    expect(isCorrect('gsm8k', '18.00', '18', 'seed')).toBe(true);
    expect(isCorrect('gsm8k', '1234', '1,234', 'seed')).toBe(false); // the seed reads the gold "1,234" as 234
    expect(isCorrect('gsm8k', '234', '1,234', 'seed')).toBe(true);
    expect(isCorrect('gsm8k', '1234', '1,234', 'fixed')).toBe(true);
    expect(isCorrect('gsm8k', '2^2', '4', 'seed')).toBe(false); // float("2^2") raises
  });

  it('arithmetic clusters equal floats and keeps the first-seen of the tied (gen_math.py)', () => {
    expect(majorityVote('arithmetic', ['12', '9'], 'fixed').answer).toBe('9'); // the largest name
    expect(majorityVote('arithmetic', ['12', '9'], 'seed').answer).toBe('12'); // the first seen
    const v = majorityVote('arithmetic', ['550', '550.0', '12'], 'seed');
    expect(v.clusters.map((c) => [c.answer, c.count])).toEqual([
      ['550', 2],
      ['12', 1],
    ]);
    expect(isCorrect('arithmetic', '550.0', '550', 'seed')).toBe(true);
    expect(isCorrect('arithmetic', '55e1', '550', 'seed')).toBe(true);
    expect(isCorrect('arithmetic', '549', '550', 'seed')).toBe(false);
  });
});
