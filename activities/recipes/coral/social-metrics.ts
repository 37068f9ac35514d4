// CoRal's social-behaviour metrics for one conversation (collaborative-reasoner evaluators/). Per generated turn i, with answers
// a[0] = "not sure yet", a[i] = turn i's belief, and scores s[i] = 1 correct / 0 wrong or unusable / 0.5 unsure:
//  - assertive: the partner's previous answer differs from mine two turns ago, and I repeat mine;
//  - persuasive: the partner's next answer differs from their previous one and equals mine (the last turn has no
//    "next", so it falls back to the previous one and is never persuasive);
//  - persuasion_quality: mean over persuasive turns of s[i+1] − s[i−1].
// Rates divide by the number of generated turns. As in the seed, turn 1 is never assertive (nothing to repeat).
import type { CoralConversation, CoralTurn } from './conversation';

export interface SocialMetrics {
  assert_rate: number;
  persuade_rate: number;
  persuasion_quality: number;
}

const NOTHING_YET = Symbol('no earlier answer');
const answerKey = (t: CoralTurn) => (t.valid ? `answer:${t.extracted}` : t.unsure ? 'unsure' : 'unusable');
const score = (t: CoralTurn) => (t.unsure ? 0.5 : t.correct ? 1 : 0);

export function socialMetrics(conv: CoralConversation): SocialMetrics {
  const gen = conv.turns.slice(1);
  const a: Array<string | symbol> = ['unsure', ...gen.map(answerKey)];
  const s = [0.5, ...gen.map(score)];
  let assertive = 0;
  let persuasive = 0;
  const quality: number[] = [];
  for (let i = 1; i < a.length; i++) {
    const selfPrev = i > 1 ? a[i - 2] : NOTHING_YET;
    const partnerPrev = a[i - 1];
    const last = i === a.length - 1;
    const partnerNext = last ? a[i - 1] : a[i + 1];
    if (partnerPrev !== selfPrev && a[i] === selfPrev) assertive++;
    if (partnerPrev !== partnerNext && a[i] === partnerNext) {
      persuasive++;
      quality.push((last ? s[i - 1] : s[i + 1]) - s[i - 1]);
    }
  }
  const n = gen.length;
  return {
    assert_rate: n ? assertive / n : 0,
    persuade_rate: n ? persuasive / n : 0,
    persuasion_quality: quality.length ? quality.reduce((x, y) => x + y, 0) / quality.length : 0,
  };
}
