// Training data without gold labels (the multiagent-ft seed's ft_generator.py and ft_critic.py): the consensus is
// the vote over the debate's last round. Each agent learns only from its own outputs — the specialisation that keeps
// the society diverse:
//   generator_<n>: (the problem → its round-0 answer) when that answer is the consensus;
//   critic_<n>: its whole debate → its final answer when the final answer is the consensus, split into "corrected"
//     (round 0 said otherwise) and "maintained" (round 0 already agreed); all corrected examples are kept, plus
//     `maintainedPerCorrected` maintained ones per corrected one, drawn at random (the seed: one with probability
//     0.5 per corrected example). Only the final reply is the target; the earlier rounds are its context — or, under
//     `compat: seed`, every reply of the debate is a target (one example per round, each with the rounds before it
//     as context), as the seed's trainer (lm_ft/lm_ft.py `preprocess`) masks only the user turns of a conversation.
import type { SftExample } from '../../data/examples';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { type AnswerCompat, isCorrect, sameAnswer } from './answers';
import { criticRole, generatorRole, type DebateRecord } from './debate';
import type { DebateDataset } from './tasks';

const byTaskAndSample = (a: DebateRecord, b: DebateRecord) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.sampleIndex - b.sampleIndex;
/** Agent n's reply in `round` as a target, the rounds before it (its own view) as context. */
const example = (r: DebateRecord, n: number, round: number): SftExample => ({
  taskId: r.taskId,
  sampleIndex: r.sampleIndex,
  turn: round,
  messages: r.agents[n].messages.slice(0, 2 * round + 1),
  completion: r.agents[n].messages[2 * round + 1].content as string,
});

export interface DebateData {
  /** Role → its examples. */
  examples: Record<string, SftExample[]>;
  counts: Record<string, number>;
}

export function debateTrainingData(
  records: readonly DebateRecord[],
  o: { dataset: DebateDataset; maintainedPerCorrected: number; seed: number; compat: AnswerCompat },
): DebateData {
  const examples: Record<string, SftExample[]> = {};
  const counts: Record<string, number> = {};
  const sorted = [...records].sort(byTaskAndSample);
  const agents = Math.max(0, ...sorted.map((r) => r.agents.length));
  // sameAnswer(given, reference): the seed asks grade_answer(round-0 answer, consensus), grade_answer(final answer,
  // consensus) and grade_answer(round-0 answer, final answer) (ft_generator.py, ft_critic.py).
  const same = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && sameAnswer(o.dataset, a, b, o.compat);
  for (let n = 0; n < agents; n++) {
    const generator: SftExample[] = [];
    // One entry per debate: its examples (one, or one per round under compat: seed).
    const corrected: SftExample[][] = [];
    const maintained: SftExample[][] = [];
    for (const r of sorted) {
      const a = r.agents[n];
      const consensus = r.roundVotes[r.roundVotes.length - 1].answer;
      if (!a || consensus === undefined) continue;
      if (same(a.answers[0], consensus)) generator.push(example(r, n, 0));
      const last = a.answers.length - 1;
      if (last >= 1 && same(a.answers[last], consensus)) {
        // SEED-COMPAT: every reply of the debate is a target (lm_ft.py trains on all assistant turns).
        const turns = o.compat === 'seed' ? Array.from({ length: last + 1 }, (_, t) => t) : [last];
        (same(a.answers[0], a.answers[last]) ? maintained : corrected).push(turns.map((t) => example(r, n, t)));
      }
    }
    const keep = Math.min(maintained.length, Math.round(corrected.length * o.maintainedPerCorrected));
    const critic = [...corrected, ...shuffled(maintained, seededRandom(hashSeed(o.seed, 'maintained', n))).slice(0, keep)].flat();
    examples[generatorRole(n)] = generator;
    examples[criticRole(n)] = critic;
    counts[`${generatorRole(n)}_examples`] = generator.length;
    counts[`${criticRole(n)}_corrected`] = corrected.length;
    counts[`${criticRole(n)}_maintained`] = keep;
    // Rows written: one per kept debate, or one per round of it under compat: seed.
    counts[`${criticRole(n)}_examples`] = critic.length;
  }
  return { examples, counts };
}

/**
 * The single-model baselines' data (the paper's Majority FT and STaR): every round-0 answer of the one model
 * (`generator_0`) that agrees with the vote over its N answers (`keep: vote`, no gold) or that is the gold answer
 * (`keep: gold`, STaR's filter on rationales that reach the right answer).
 */
export function baselineTrainingData(
  records: readonly DebateRecord[],
  o: { dataset: DebateDataset; keep: 'vote' | 'gold'; compat: AnswerCompat },
): DebateData {
  const examples: SftExample[] = [];
  for (const r of [...records].sort(byTaskAndSample)) {
    const vote = r.roundVotes[0].answer;
    for (const [n, a] of r.agents.entries()) {
      const answer = a.answers[0];
      const keep =
        o.keep === 'gold'
          ? isCorrect(o.dataset, answer, r.gold, o.compat)
          : answer !== undefined && vote !== undefined && sameAnswer(o.dataset, answer, vote, o.compat);
      if (keep) examples.push(example(r, n, 0));
    }
  }
  return { examples: { [generatorRole(0)]: examples }, counts: { [`${generatorRole(0)}_examples`]: examples.length } };
}
