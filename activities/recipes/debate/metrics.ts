// Debate's metrics. `accuracy` is the majority vote's (the paper's headline), graded per `compat` (answers.ts); a
// problem no agent answered counts as wrong, or — `compat: seed`, as the seed's eval_math.py — is left out of the
// denominator (then `answered` says how many were kept). `consensus_rate`: the share of agents whose final answer
// is in the winning cluster, averaged over debates — or, `compat: seed`, the seed's "mean consensus": the share of
// all given final answers that are string-identical to the vote.
import { isCorrect } from './answers';
import type { DebateRecord } from './debate';
import type { DebateDataset } from './tasks';
import { foldRecords, type MetricsFold, RunningMean } from '../metrics-fold';
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

/** Sums per index (agent n, round k) that later records may extend: a record without index i adds nothing there. */
class SumsByIndex {
  readonly sums: number[] = [];
  add(i: number, x: number): void {
    this.sums[i] = (this.sums[i] ?? 0) + x;
  }
}

/** The metrics as debates stream past (metrics-fold.ts): sums and counts, so evaluation memory stays flat. */
export function debateMetricsFold(o: { dataset: DebateDataset; compat: 'fixed' | 'seed' }): MetricsFold<DebateRecord> {
  const accuracy = new RunningMean();
  const noAnswer = new RunningMean();
  const consensus = new RunningMean();
  let debates = 0;
  let tokens = 0;
  let agents = 0;
  let rounds = 0;
  const agentCorrect = new SumsByIndex();
  const roundCorrect = new SumsByIndex();
  const dissimilarity = { last: new RunningMean(), byRound: [] as RunningMean[], rounds: 0 };
  return {
    add(r) {
      const vote = r.roundVotes[r.roundVotes.length - 1];
      // SEED-COMPAT: problems no agent answered are left out (eval_math.py `continue`s past them).
      const counted = o.compat !== 'seed' || vote.answer !== undefined;
      debates++;
      tokens += totalTokens(r.usage);
      agents = Math.max(agents, r.agents.length);
      rounds = Math.max(rounds, r.roundVotes.length);
      noAnswer.add(vote.answer === undefined ? 1 : 0);
      if (o.compat === 'seed') {
        // SEED-COMPAT: eval_math.py appends `r == response` for every parsed answer of every kept problem.
        if (counted) for (const a of r.agents) if (a.answers.at(-1) !== undefined) consensus.add(a.answers.at(-1) === vote.answer ? 1 : 0);
      } else consensus.add((vote.clusters.find((c) => c.answer === vote.answer)?.count ?? 0) / r.agents.length);
      if (counted) {
        accuracy.add(r.correct ? 1 : 0);
        for (const [n, a] of r.agents.entries()) agentCorrect.add(n, isCorrect(o.dataset, a.answers.at(-1), r.gold, o.compat) ? 1 : 0);
        for (const [k, v] of r.roundVotes.entries()) roundCorrect.add(k, isCorrect(o.dataset, v.answer, r.gold, o.compat) ? 1 : 0);
      }
      const d = r.embeddingDissimilarity;
      if (d) {
        dissimilarity.last.add(d[d.length - 1]);
        for (const [k, x] of d.entries()) (dissimilarity.byRound[k] ??= new RunningMean()).add(x);
        dissimilarity.rounds = Math.max(dissimilarity.rounds, d.length);
      }
    },
    result() {
      const acc = accuracy.value;
      const answered = accuracy.n;
      const m: Record<string, number> = {
        accuracy: acc,
        // Standard error of the mean, as the paper reports it.
        accuracy_se: answered > 1 ? Math.sqrt((acc * (1 - acc)) / answered) : 0,
        no_answer_rate: noAnswer.value,
        consensus_rate: consensus.value,
        debates,
        answered,
        total_tokens: tokens,
      };
      m.avg_tokens_per_debate = debates ? tokens / debates : 0;
      const perCounted = (sum: number | undefined) => (answered ? (sum ?? 0) / answered : 0);
      for (let n = 0; n < agents; n++) m[`agent_${n}_accuracy`] = perCounted(agentCorrect.sums[n]);
      if (rounds > 1) for (let k = 0; k < rounds; k++) m[`round_${k}_accuracy`] = perCounted(roundCorrect.sums[k]);
      // `embedding_dissimilarity` (the last round's) and, for debates of several rounds, per round: the mean over
      // the debates that carry it (diversity.ts); absent when none does.
      if (dissimilarity.last.n) {
        m.embedding_dissimilarity = dissimilarity.last.value;
        if (dissimilarity.rounds > 1)
          for (let k = 0; k < dissimilarity.rounds; k++) m[`round_${k}_embedding_dissimilarity`] = dissimilarity.byRound[k].value;
      }
      return m;
    },
  };
}

export const debateMetrics = (records: readonly DebateRecord[], o: { dataset: DebateDataset; compat: 'fixed' | 'seed' }) =>
  foldRecords(debateMetricsFold(o), records);
