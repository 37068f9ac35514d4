// ★ THE VOTE. The debate's answer for a problem is the majority of the agents' answers, where answers that are the
// same (answers.ts `sameAnswer`, per `compat`) count as one: each answer joins the first earlier cluster it is the
// same as (the seed asks `grade_answer(cluster, answer)`), and a cluster is named by its first-seen answer. Ties go
// to the largest (count, name) pair, so the lexicographically largest name among the tied — the seed's rule
// (multiagent-ft eval_math.py sorts (count, answer) and takes the last). No answer from any agent: no vote.
import { type AnswerCompat, sameAnswer, seedTieFirstSeen } from './answers';
import type { DebateDataset } from './tasks';

export interface VoteCluster {
  answer: string;
  count: number;
  /** Which agents (indices) gave an answer in this cluster. */
  agents: number[];
}

export interface Vote {
  /** The winning cluster's name, or undefined when no agent gave an answer. */
  answer?: string;
  clusters: VoteCluster[];
}

export function clusterAnswers(dataset: DebateDataset, answers: ReadonlyArray<string | undefined>, compat: AnswerCompat): VoteCluster[] {
  const clusters: VoteCluster[] = [];
  answers.forEach((a, agent) => {
    if (a === undefined) return;
    const c = clusters.find((x) => sameAnswer(dataset, x.answer, a, compat));
    if (c) {
      c.count++;
      c.agents.push(agent);
    } else clusters.push({ answer: a, count: 1, agents: [agent] });
  });
  return clusters;
}

export function majorityVote(dataset: DebateDataset, answers: ReadonlyArray<string | undefined>, compat: AnswerCompat): Vote {
  const clusters = clusterAnswers(dataset, answers, compat);
  // SEED-COMPAT: GSM8K and arithmetic keep the first-seen of the tied (llm_multiagent_debate `most_frequent`).
  const byName = !seedTieFirstSeen(dataset, compat);
  let best: VoteCluster | undefined;
  for (const c of clusters) if (!best || c.count > best.count || (byName && c.count === best.count && c.answer > best.answer)) best = c;
  return { answer: best?.answer, clusters };
}
