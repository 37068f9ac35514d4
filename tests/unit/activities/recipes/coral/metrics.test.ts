import { describe, expect, it } from 'vitest';
import { coralMetrics, socialMetrics, type CoralConversation, type CoralTurn } from '../../../../../activities/recipes/coral';

const turn = (role: 'teacher' | 'student', answer: string | null, correct: boolean, agreement = false): CoralTurn => ({
  role,
  content: `${role} says ${answer}`,
  extracted: answer ?? '',
  valid: answer !== null,
  unsure: answer === null,
  correct,
  ...(agreement ? { agreement } : {}),
});
const conv = (taskId: string, turns: CoralTurn[], o: Partial<CoralConversation>): CoralConversation => ({
  taskId,
  dataset: 'mmlu_pro',
  sampleIndex: 0,
  mode: 'coral',
  system: 's',
  maxTurns: 20,
  agreed: false,
  finalAnswer: null,
  correct: false,
  usage: { promptTokens: 100, completionTokens: 20 },
  calls: 2 * turns.length,
  turns: [{ role: 'student', content: 'Q' }, ...turns],
  ...o,
});

// Gold is C in all three.
const agreedRight = conv('a', [turn('teacher', 'C', true), turn('student', 'C', true, true)], {
  agreed: true,
  finalAnswer: 'C',
  correct: true,
});
const neverAgreed = conv(
  'b',
  [turn('teacher', 'A', false), turn('student', null, false), turn('teacher', 'B', false), turn('student', 'C', true)],
  { maxTurns: 4, finalAnswer: 'C', correct: true, usage: { promptTokens: 300, completionTokens: 60 } },
);
const agreedWrong = conv('c', [turn('teacher', 'A', false), turn('student', 'A', false, true)], {
  agreed: true,
  finalAnswer: 'A',
  correct: false,
});

describe('CoRal metrics', () => {
  it('average per-conversation values under the seed names', () => {
    const m = coralMetrics([agreedRight, neverAgreed, agreedWrong], 'fixed');
    expect(m.agreement_correctness).toBeCloseTo(1 / 3);
    expect(m.final_success_rate).toBeCloseTo(2 / 3);
    expect(m.agreement_rate).toBeCloseTo(2 / 3);
    expect(m.valid_answer_rate).toBeCloseTo((1 + 0.75 + 1) / 3);
    expect(m.avg_turns).toBeCloseTo(8 / 3);
    // First correct turn: 1; 4; none → the conversation's max turns (20).
    expect(m.n_turns_to_success).toBeCloseTo((1 + 4 + 20) / 3);
    expect(m.total_tokens).toBe(120 + 360 + 120);
    expect(m.avg_tokens_per_conversation).toBe(200);
    expect(m.conversations).toBe(3);
  });

  it('social metrics: persuasion that helps or hurts, assertion of an earlier stance', () => {
    // Turn 1's answer is adopted by the partner at turn 2: persuasive; quality = s[2] − s[0] (0.5 for "nothing yet").
    expect(socialMetrics(agreedRight)).toEqual({ assert_rate: 0, persuade_rate: 0.5, persuasion_quality: 0.5 });
    expect(socialMetrics(agreedWrong)).toEqual({ assert_rate: 0, persuade_rate: 0.5, persuasion_quality: -0.5 });
    // The student's "not sure yet" at turn 2 repeats its turn-0 stance against the teacher's A: assertive.
    expect(socialMetrics(neverAgreed)).toEqual({ assert_rate: 0.25, persuade_rate: 0, persuasion_quality: 0 });
    const m = coralMetrics([agreedRight, neverAgreed, agreedWrong], 'fixed');
    expect(m.assert_rate).toBeCloseTo(0.25 / 3);
    expect(m.persuade_rate).toBeCloseTo(1 / 3);
    expect(m.persuasion_quality).toBeCloseTo(0);
  });

  it('siblings do not count; no conversations give zeros, not NaN', () => {
    const withSiblings: CoralConversation = {
      ...agreedWrong,
      turns: agreedWrong.turns.map((t, i) => (i === 1 ? { ...t, siblings: [turn('teacher', 'C', true)] } : t)),
    };
    expect(coralMetrics([withSiblings], 'fixed')).toMatchObject({
      agreement_correctness: 0,
      final_success_rate: 0,
      n_turns_to_success: 20,
    });
    const empty = coralMetrics([], 'seed');
    expect(Object.values(empty).every((v) => v === 0)).toBe(true);
  });
});
