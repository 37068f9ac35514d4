// Training data without gold labels (the multiagent-ft seed's ft_generator.py and ft_critic.py): the consensus is
// the vote over the debate's last round. Each agent learns only from its own outputs — the specialisation that keeps
// the society diverse:
//   generator_<n>: (the problem → its round-0 answer) when that answer is the consensus;
//   critic_<n>: its whole debate → its final answer when the final answer is the consensus, split into "corrected"
//     (round 0 said otherwise) and "maintained" (round 0 already agreed); all corrected examples are kept, plus
//     `maintainedPerCorrected` maintained ones per corrected one, drawn at random (the seed: one with probability
//     0.5 per corrected example): those with the lowest seeded hash of (agent, task, sample), a draw that does not
//     depend on the order debates arrive in. Only the final reply is the target; the earlier rounds are its
//     context — or, under `compat: seed`, every reply of the debate is a target (one example per round, each with
//     the rounds before it as context), as the seed's trainer (lm_ft/lm_ft.py `preprocess`) masks only the user
//     turns of a conversation.
import type { SftExample } from '../../data/examples';
import { type HeldRows, heldInMemory } from '../../data/held-rows';
import { hashSeed } from '../../seeded-random';
import { byTaskAndSample } from '../shared/task-order';
import { type AnswerCompat, isCorrect, sameAnswer } from './answers';
import { criticRole, generatorRole, type DebateRecord } from './debate';
import type { DebateDataset } from './tasks';

/** Agent n's reply in `round` as a target, the rounds before it (its own view) as context. */
const example = (r: DebateRecord, n: number, round: number): SftExample => ({
  taskId: r.taskId,
  sampleIndex: r.sampleIndex,
  turn: round,
  messages: r.agents[n].messages.slice(0, 2 * round + 1),
  completion: r.agents[n].messages[2 * round + 1].content as string,
});

/** Where a selection puts each example it keeps, as soon as it is decided (a streamed build writes it at once). */
export type EmitExample = (role: string, example: SftExample) => void;

/** A selection over debates as they arrive (any order: the rows depend on the records, not on their order). */
export interface DebateSelection {
  add(r: DebateRecord): void;
  /** The roles the data is for (each, even without examples) and the counts. */
  finish(): { roles: string[]; counts: Record<string, number> };
}

export interface DebateData {
  /** Role → its examples. */
  examples: Record<string, SftExample[]>;
  counts: Record<string, number>;
}

const increment = (xs: number[], i: number, by = 1) => {
  xs[i] = (xs[i] ?? 0) + by;
};

/** The multi-agent data (generators and critics). Generator examples and corrected critic debates are emitted as
 *  their debate arrives; maintained critic debates wait in `held` (out of the heap: a file in a streamed build) until
 *  the end, because how many are kept is a share of ALL corrected ones. What stays in memory is 32 bytes a
 *  maintained debate: its draw, its handle, and where its row is in the held file. */
export function debateSelection(
  o: { dataset: DebateDataset; maintainedPerCorrected: number; seed: number; compat: AnswerCompat },
  emit: EmitExample,
  held: HeldRows,
): DebateSelection {
  // sameAnswer(given, reference): the seed asks grade_answer(round-0 answer, consensus), grade_answer(final answer,
  // consensus) and grade_answer(round-0 answer, final answer) (ft_generator.py, ft_critic.py).
  const same = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && sameAnswer(o.dataset, a, b, o.compat);
  let agents = 0;
  const generated: number[] = [];
  const corrected: number[] = [];
  const correctedRows: number[] = [];
  // Per agent, one entry per maintained debate: its draw, and the handle of its examples (one, or one per round
  // under compat: seed) in `held`.
  const maintained: { draw: number[]; handle: number[] }[] = [];
  return {
    add(r) {
      agents = Math.max(agents, r.agents.length);
      const consensus = r.roundVotes[r.roundVotes.length - 1].answer;
      if (consensus === undefined) return;
      for (const [n, a] of r.agents.entries()) {
        if (same(a.answers[0], consensus)) {
          emit(generatorRole(n), example(r, n, 0));
          increment(generated, n);
        }
        const last = a.answers.length - 1;
        if (last < 1 || !same(a.answers[last], consensus)) continue;
        // SEED-COMPAT: every reply of the debate is a target (lm_ft.py trains on all assistant turns).
        const turns = (o.compat === 'seed' ? Array.from({ length: last + 1 }, (_, t) => t) : [last]).map((t) => example(r, n, t));
        if (same(a.answers[0], a.answers[last])) {
          const m = (maintained[n] ??= { draw: [], handle: [] });
          m.draw.push(hashSeed(o.seed, 'maintained', n, r.taskId, r.sampleIndex));
          m.handle.push(held.put(JSON.stringify(turns)));
        } else {
          for (const e of turns) emit(criticRole(n), e);
          increment(corrected, n);
          increment(correctedRows, n, turns.length);
        }
      }
    },
    finish() {
      const counts: Record<string, number> = {};
      const roles: string[] = [];
      for (let n = 0; n < agents; n++) {
        const { draw, handle } = maintained[n] ?? { draw: [], handle: [] };
        const keep = Math.min(draw.length, Math.round((corrected[n] ?? 0) * o.maintainedPerCorrected));
        // The lowest draws; two equal draws (32 bits) in the order their debates came, the plan's order.
        const chosen = draw
          .map((_, i) => i)
          .sort((a, b) => draw[a] - draw[b] || a - b)
          .slice(0, keep);
        let kept = 0;
        for (const i of chosen)
          for (const e of JSON.parse(held.get(handle[i])) as SftExample[]) {
            emit(criticRole(n), e);
            kept++;
          }
        roles.push(generatorRole(n), criticRole(n));
        counts[`${generatorRole(n)}_examples`] = generated[n] ?? 0;
        counts[`${criticRole(n)}_corrected`] = corrected[n] ?? 0;
        counts[`${criticRole(n)}_maintained`] = keep;
        // Rows written: one per kept debate, or one per round of it under compat: seed.
        counts[`${criticRole(n)}_examples`] = (correctedRows[n] ?? 0) + kept;
      }
      return { roles, counts };
    },
  };
}

/**
 * The single-model baselines' data (the paper's Majority FT and STaR): every round-0 answer of the one model
 * (`generator_0`) that agrees with the vote over its N answers (`keep: vote`, no gold) or that is the gold answer
 * (`keep: gold`, STaR's filter on rationales that reach the right answer).
 */
export function baselineSelection(
  o: { dataset: DebateDataset; keep: 'vote' | 'gold'; compat: AnswerCompat },
  emit: EmitExample,
): DebateSelection {
  let examples = 0;
  return {
    add(r) {
      const vote = r.roundVotes[0].answer;
      for (const [n, a] of r.agents.entries()) {
        const answer = a.answers[0];
        const keep =
          o.keep === 'gold'
            ? isCorrect(o.dataset, answer, r.gold, o.compat)
            : answer !== undefined && vote !== undefined && sameAnswer(o.dataset, answer, vote, o.compat);
        if (!keep) continue;
        emit(generatorRole(0), example(r, n, 0));
        examples++;
      }
    },
    finish: () => ({ roles: [generatorRole(0)], counts: { [`${generatorRole(0)}_examples`]: examples } }),
  };
}

/** A selection's examples over records in memory, in task order. */
export function selectedExamples(
  records: readonly DebateRecord[],
  selection: (emit: EmitExample, held: HeldRows) => DebateSelection,
): DebateData {
  const collected: Record<string, SftExample[]> = {};
  const s = selection((role, e) => (collected[role] ??= []).push(e), heldInMemory());
  for (const r of [...records].sort(byTaskAndSample)) s.add(r);
  const { roles, counts } = s.finish();
  return { examples: Object.fromEntries(roles.map((role) => [role, collected[role] ?? []])), counts };
}

export const debateTrainingData = (records: readonly DebateRecord[], o: Parameters<typeof debateSelection>[0]): DebateData =>
  selectedExamples(records, (emit, held) => debateSelection(o, emit, held));

export const baselineTrainingData = (records: readonly DebateRecord[], o: Parameters<typeof baselineSelection>[0]): DebateData =>
  selectedExamples(records, (emit) => baselineSelection(o, emit));
