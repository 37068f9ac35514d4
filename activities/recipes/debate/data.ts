// Training data without gold labels (the multiagent-ft seed's ft_generator.py and ft_critic.py): the consensus is
// the vote over the debate's last round. Each agent learns only from its own outputs — the specialisation that keeps
// the society diverse:
//   generator_<n>: (the problem → its round-0 answer) when that answer is the consensus;
//   critic_<n>: its whole debate → its final answer when the final answer is the consensus, split into "corrected"
//     (round 0 said otherwise) and "maintained" (round 0 already agreed); all corrected examples are kept, plus
//     `maintainedPerCorrected` maintained ones per corrected one, drawn at random (the seed: one with probability
//     0.5 per corrected example). Only the final reply is the target; the earlier rounds are its context.
import type { SftExample } from '../../data/examples';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { sameAnswer } from './answers';
import { criticRole, generatorRole, type DebateRecord } from './debate';
import type { DebateDataset } from './tasks';

const byTaskAndSample = (a: DebateRecord, b: DebateRecord) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.sampleIndex - b.sampleIndex;
const reply = (r: DebateRecord, n: number, round: number) => r.agents[n].messages[2 * round + 1].content as string;

export interface DebateData {
  /** Role → its examples. */
  examples: Record<string, SftExample[]>;
  counts: Record<string, number>;
}

export function debateTrainingData(
  records: readonly DebateRecord[],
  o: { dataset: DebateDataset; maintainedPerCorrected: number; seed: number },
): DebateData {
  const examples: Record<string, SftExample[]> = {};
  const counts: Record<string, number> = {};
  const sorted = [...records].sort(byTaskAndSample);
  const agents = Math.max(0, ...sorted.map((r) => r.agents.length));
  const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && sameAnswer(o.dataset, a, b);
  for (let n = 0; n < agents; n++) {
    const generator: SftExample[] = [];
    const corrected: SftExample[] = [];
    const maintained: SftExample[] = [];
    for (const r of sorted) {
      const a = r.agents[n];
      const consensus = r.roundVotes[r.roundVotes.length - 1].answer;
      if (!a || consensus === undefined) continue;
      if (same(a.answers[0], consensus))
        generator.push({
          taskId: r.taskId,
          sampleIndex: r.sampleIndex,
          turn: 0,
          messages: a.messages.slice(0, 1),
          completion: reply(r, n, 0),
        });
      const last = a.answers.length - 1;
      if (last >= 1 && same(a.answers[last], consensus)) {
        const ex = {
          taskId: r.taskId,
          sampleIndex: r.sampleIndex,
          turn: last,
          messages: a.messages.slice(0, 2 * last + 1),
          completion: reply(r, n, last),
        };
        (same(a.answers[0], a.answers[last]) ? maintained : corrected).push(ex);
      }
    }
    const keep = Math.min(maintained.length, Math.round(corrected.length * o.maintainedPerCorrected));
    const critic = [...corrected, ...shuffled(maintained, seededRandom(hashSeed(o.seed, 'maintained', n))).slice(0, keep)];
    examples[generatorRole(n)] = generator;
    examples[criticRole(n)] = critic;
    counts[`${generatorRole(n)}_examples`] = generator.length;
    counts[`${criticRole(n)}_corrected`] = corrected.length;
    counts[`${criticRole(n)}_maintained`] = keep;
  }
  return { examples, counts };
}
