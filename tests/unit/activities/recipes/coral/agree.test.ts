import { describe, expect, it } from 'vitest';
import { agreementReached, type Belief, type RoleBelief } from '../../../../../activities/recipes/coral';

const b = (answer: string, valid = true, unsure = false): Belief => ({ answer, valid, unsure });
const t = (role: 'teacher' | 'student', belief: Belief): RoleBelief => ({ role, belief });

describe('agreement check', () => {
  it("agrees when both roles' latest beliefs are valid and equal", () => {
    expect(agreementReached('mmlu_pro', [t('teacher', b('C')), t('student', b('C'))], 'fixed')).toBe(true);
    expect(agreementReached('mmlu_pro', [t('teacher', b('A')), t('student', b('C')), t('teacher', b('C'))], 'fixed')).toBe(true);
  });

  it('needs both roles: one turn alone never agrees', () => {
    expect(agreementReached('mmlu_pro', [t('teacher', b('C'))], 'fixed')).toBe(false);
  });

  it("uses each role's LATEST belief, not an older matching one", () => {
    // The teacher said C, then changed to A: the student's C no longer agrees.
    expect(
      agreementReached('mmlu_pro', [t('teacher', b('C')), t('student', b('B')), t('teacher', b('A')), t('student', b('C'))], 'fixed'),
    ).toBe(false);
  });

  it('an unsure or unusable latest belief is never agreement, even if both are "empty"', () => {
    expect(agreementReached('mmlu_pro', [t('teacher', b('C')), t('student', b('', false, true))], 'fixed')).toBe(false);
    expect(agreementReached('mmlu_pro', [t('teacher', b('', false, true)), t('student', b('', false, true))], 'fixed')).toBe(false);
    expect(agreementReached('explore_tom', [t('teacher', b('', false)), t('student', b('', false))], 'fixed')).toBe(false);
  });

  it('compares ToM answers after normalisation (exact), MATH by equivalence', () => {
    expect(agreementReached('hi_tom', [t('teacher', b('green_bucket')), t('student', b('green_bucket'))], 'fixed')).toBe(true);
    expect(agreementReached('hi_tom', [t('teacher', b('green_bucket')), t('student', b('red_box'))], 'fixed')).toBe(false);
    expect(agreementReached('math', [t('teacher', b('2\\sqrt{3}')), t('student', b('\\sqrt{12}'))], 'fixed')).toBe(true);
  });
});
