// ★ THE VOTE. The debate's answer for a problem is the majority of the agents' answers, where answers that are the
// same (answers.ts: MATH equivalence, or letter equality) count as one: each answer joins the first earlier cluster
// it is the same as, and a cluster is named by its first-seen answer. Ties go to the largest (count, name) pair, so
// the lexicographically largest name among the tied — the seed's rule (multiagent-ft eval_math.py sorts
// (count, answer) and takes the last). No answer from any agent: no vote.
import { sameAnswer } from './answers';
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

export function clusterAnswers(dataset: DebateDataset, answers: ReadonlyArray<string | undefined>): VoteCluster[] {
  const clusters: VoteCluster[] = [];
  answers.forEach((a, agent) => {
    if (a === undefined) return;
    const c = clusters.find((x) => sameAnswer(dataset, x.answer, a));
    if (c) {
      c.count++;
      c.agents.push(agent);
    } else clusters.push({ answer: a, count: 1, agents: [agent] });
  });
  return clusters;
}

export function majorityVote(dataset: DebateDataset, answers: ReadonlyArray<string | undefined>): Vote {
  const clusters = clusterAnswers(dataset, answers);
  let best: VoteCluster | undefined;
  for (const c of clusters) if (!best || c.count > best.count || (c.count === best.count && c.answer > best.answer)) best = c;
  return { answer: best?.answer, clusters };
}
