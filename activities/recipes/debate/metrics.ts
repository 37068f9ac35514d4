// Debate's metrics. `accuracy` is the majority vote's (the paper's headline), graded per `compat` (answers.ts); a
// problem no agent answered counts as wrong, or — `compat: seed`, as the seed's eval_math.py — is left out of the
// denominator (then `answered` says how many were kept). `consensus_rate`: the share of agents whose final answer
// is in the winning cluster, averaged over debates — or, `compat: seed`, the seed's "mean consensus": the share of
// all given final answers that are string-identical to the vote.
import { isCorrect } from './answers';
import type { DebateRecord } from './debate';
import type { DebateDataset } from './tasks';
import { meanOf } from '../shared/mean';
import { totalTokens } from '../../llm/usage';
import type { MetricSpec } from '../../report/metric-kinds';

/** What each metric below is, for the report's plots (one line per agent, one per round). */
export const DEBATE_METRIC_KINDS: readonly MetricSpec[] = [
  { match: 'accuracy_se', se: 'accuracy' },
  { match: /^agent_(\d+)_accuracy$/, kind: 'rate', plot: 'accuracy per agent', line: 'agent $1' },
  { match: /^round_(\d+)_accuracy$/, kind: 'rate', plot: 'accuracy per round', line: 'round $1' },
  { match: /^round_(\d+)_embedding_dissimilarity$/, kind: 'value', plot: 'embedding dissimilarity per round', line: 'round $1' },
  { match: /^(accuracy|no_answer_rate|consensus_rate)$/, kind: 'rate' },
  // 1 − cosine: between 0 and 2.
  { match: 'embedding_dissimilarity', kind: 'value' },
  { match: /^(debates|answered|total_tokens|avg_tokens_per_debate)$/, kind: 'count' },
];

const mean = (xs: readonly number[]) => meanOf(xs) ?? 0;

export function debateMetrics(
  records: readonly DebateRecord[],
  o: { dataset: DebateDataset; compat: 'fixed' | 'seed' },
): Record<string, number> {
  const finalVote = (r: DebateRecord) => r.roundVotes[r.roundVotes.length - 1];
  // SEED-COMPAT: problems no agent answered are left out (eval_math.py `continue`s past them).
  const counted = o.compat === 'seed' ? records.filter((r) => finalVote(r).answer !== undefined) : records;
  const correct = counted.map((r) => (r.correct ? 1 : 0));
  const acc = mean(correct);
  const m: Record<string, number> = {
    accuracy: acc,
    // Standard error of the mean, as the paper reports it.
    accuracy_se: counted.length > 1 ? Math.sqrt((acc * (1 - acc)) / counted.length) : 0,
    no_answer_rate: mean(records.map((r) => (finalVote(r).answer === undefined ? 1 : 0))),
    consensus_rate:
      o.compat === 'seed'
        ? // SEED-COMPAT: eval_math.py appends `r == response` for every parsed answer of every kept problem.
          mean(
            counted.flatMap((r) =>
              r.agents.flatMap((a) => (a.answers.at(-1) === undefined ? [] : [a.answers.at(-1) === finalVote(r).answer ? 1 : 0])),
            ),
          )
        : mean(
            records.map((r) => {
              const v = finalVote(r);
              const winner = v.clusters.find((c) => c.answer === v.answer);
              return (winner?.count ?? 0) / r.agents.length;
            }),
          ),
    debates: records.length,
    answered: counted.length,
    total_tokens: records.reduce((a, r) => a + totalTokens(r.usage), 0),
  };
  m.avg_tokens_per_debate = records.length ? m.total_tokens / records.length : 0;
  const agents = Math.max(0, ...records.map((r) => r.agents.length));
  for (let n = 0; n < agents; n++)
    m[`agent_${n}_accuracy`] = mean(counted.map((r) => (isCorrect(o.dataset, r.agents[n]?.answers.at(-1), r.gold, o.compat) ? 1 : 0)));
  const rounds = Math.max(0, ...records.map((r) => r.roundVotes.length));
  if (rounds > 1)
    for (let k = 0; k < rounds; k++)
      m[`round_${k}_accuracy`] = mean(counted.map((r) => (isCorrect(o.dataset, r.roundVotes[k]?.answer, r.gold, o.compat) ? 1 : 0)));
  Object.assign(m, embeddingDissimilarityMetrics(records));
  return m;
}

/** `embedding_dissimilarity` (the last round's) and, for debates of several rounds, `round_<r>_embedding_dissimilarity`:
 *  the mean over the debates that carry it (diversity.ts); absent when none does. */
function embeddingDissimilarityMetrics(records: readonly DebateRecord[]): Record<string, number> {
  const withIt = records.flatMap((r) => (r.embeddingDissimilarity ? [r.embeddingDissimilarity] : []));
  if (!withIt.length) return {};
  const m: Record<string, number> = { embedding_dissimilarity: mean(withIt.map((d) => d[d.length - 1])) };
  const rounds = Math.max(...withIt.map((d) => d.length));
  if (rounds > 1)
    for (let k = 0; k < rounds; k++) m[`round_${k}_embedding_dissimilarity`] = mean(withIt.flatMap((d) => (k < d.length ? [d[k]] : [])));
  return m;
}
