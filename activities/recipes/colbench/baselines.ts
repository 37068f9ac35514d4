// Trajectory-level data (SWEET-RL paper; github.com/facebookresearch/sweet_rl/issues/2; sweet_rl README, the training pipeline): the paper's baselines and the log-prob critic's training data.
//   multiTurnDpoPairs      MT-DPO: per task, a higher-scoring trajectory (chosen) against a lower one (rejected),
//                          each a whole conversation; OpenRLHF implicit-prompt rows `{chosen: [...], rejected: [...]}`
//                          (TRL's DPO reads the same rows and splits off the shared prefix itself)
//   criticPreferencePairs  the same pairs with the reference in front (a system message the policy never gets):
//                          training data for the seed's DPO-trained critic (critic.ts logProbCritic)
//   rejectionFinetuningExamples   RFT: every agent turn of successful trajectories, as (agent view, raw turn)
// Pair rule, default 'best-vs-rest' (the seed's ground-truth preferences): per task, only when the best sample
// reaches `minChosenScore` (code: 1 = every test passed); chosen = that sample, rejected = each sample scoring
// strictly lower. 'all-pairs' (the seed's frontend variant): every pair whose scores differ by ≥ minGap (0.1).
// In a conversation, earlier agent turns appear as the agent saw them (visible text) and the last one as generated
// (raw), as in the seed's rows (templated input + output).
import type { ChatMessage } from '../../llm/types';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { agentMessages } from './agent-view';
import type { ColbenchTrajectory } from './episode';
import type { ColbenchTask } from './tasks';

export interface TrajectoryPair {
  taskId: string;
  chosenSample: number;
  rejectedSample: number;
  chosenScore: number;
  rejectedScore: number;
  chosen: ChatMessage[];
  rejected: ChatMessage[];
}

export interface TrajectoryPairOptions {
  mode?: 'best-vs-rest' | 'all-pairs';
  /** best-vs-rest: the best sample must score at least this (default 1). */
  minChosenScore?: number;
  /** Smallest score difference of a pair (default: > 0 for best-vs-rest, 0.1 for all-pairs). */
  minGap?: number;
  /** Pairs kept per task after a seeded shuffle (default: all). */
  maxPairsPerTask?: number;
}

/** The whole conversation of a trajectory as one message list. */
export function conversationMessages(r: ColbenchTrajectory): ChatMessage[] {
  const messages = agentMessages(r.system, r.problem, r.dialogue);
  const lastAgent = [...r.dialogue].reverse().find((t) => t.role === 'agent');
  if (lastAgent?.raw !== undefined && messages[messages.length - 1]?.role === 'assistant')
    messages[messages.length - 1] = { role: 'assistant', content: lastAgent.raw };
  return messages;
}

function checkScores(trajectories: readonly ColbenchTrajectory[], scores: readonly number[], who: string) {
  if (scores.length !== trajectories.length) throw new Error(`${who}: ${scores.length} scores for ${trajectories.length} trajectories`);
  scores.forEach((s, i) => {
    if (!Number.isFinite(s)) throw new Error(`${who}: score ${i} (task ${trajectories[i].taskId}) is ${s}, not a number`);
  });
}

const byTask = (trajectories: readonly ColbenchTrajectory[], scores: readonly number[]) => {
  const groups = new Map<string, Array<{ r: ColbenchTrajectory; score: number }>>();
  trajectories.forEach((r, i) => {
    groups.set(r.taskId, [...(groups.get(r.taskId) ?? []), { r, score: scores[i] }]);
  });
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
};

function pairsOf(
  trajectories: readonly ColbenchTrajectory[],
  scores: readonly number[],
  seed: number,
  opts: TrajectoryPairOptions,
  who: string,
  view: (r: ColbenchTrajectory) => ChatMessage[],
): TrajectoryPair[] {
  checkScores(trajectories, scores, who);
  const mode = opts.mode ?? 'best-vs-rest';
  const minGap = opts.minGap ?? (mode === 'all-pairs' ? 0.1 : Number.MIN_VALUE);
  const out: TrajectoryPair[] = [];
  for (const [taskId, group] of byTask(trajectories, scores)) {
    // Highest score first; equal scores by sample index, so the choice does not depend on input order.
    const sorted = [...group].sort((a, b) => b.score - a.score || a.r.sampleIndex - b.r.sampleIndex);
    const found: Array<[(typeof sorted)[number], (typeof sorted)[number]]> = [];
    if (mode === 'best-vs-rest') {
      const best = sorted[0];
      if (best.score >= (opts.minChosenScore ?? 1))
        for (const other of sorted.slice(1)) if (best.score - other.score >= minGap) found.push([best, other]);
    } else {
      for (let i = 0; i < sorted.length; i++)
        for (let j = i + 1; j < sorted.length; j++) if (sorted[i].score - sorted[j].score >= minGap) found.push([sorted[i], sorted[j]]);
    }
    const kept =
      opts.maxPairsPerTask === undefined
        ? found
        : shuffled(found, seededRandom(hashSeed('trajectory-pairs', seed, taskId))).slice(0, opts.maxPairsPerTask);
    for (const [c, r] of kept)
      out.push({
        taskId,
        chosenSample: c.r.sampleIndex,
        rejectedSample: r.r.sampleIndex,
        chosenScore: c.score,
        rejectedScore: r.score,
        chosen: view(c.r),
        rejected: view(r.r),
      });
  }
  return out;
}

/** MT-DPO pairs. `scores[i]` is the final score of `trajectories[i]` (code: test fraction; html: similarity). */
export function multiTurnDpoPairs(
  trajectories: readonly ColbenchTrajectory[],
  scores: readonly number[],
  seed = 0,
  opts: TrajectoryPairOptions = {},
): TrajectoryPair[] {
  return pairsOf(trajectories, scores, seed, opts, 'multiTurnDpoPairs', conversationMessages);
}

export interface OpenRlhfTrajectoryDpoRow {
  chosen: ChatMessage[];
  rejected: ChatMessage[];
}

/** OpenRLHF train_dpo without --prompt_key (the fork's multi-turn mask trains every assistant span). */
export const trajectoryDpoRow = (p: TrajectoryPair): OpenRlhfTrajectoryDpoRow => ({ chosen: p.chosen, rejected: p.rejected });

/** Tells the critic what the hidden reference is; the policy never sees this message. */
export const criticContext = (reference: string) => `The final answer the person needs is:\n${reference}`;

/**
 * Training pairs for the seed's log-prob critic: the MT-DPO pairs with the reference as an extra leading system
 * message (the seed's "in light that the final answer is …" prefix). Train with the assistant-span mask and the mean
 * log-prob option (sweet_rl README, the training pipeline).
 */
export function criticPreferencePairs(
  trajectories: readonly ColbenchTrajectory[],
  scores: readonly number[],
  tasks: readonly ColbenchTask[],
  seed = 0,
  opts: TrajectoryPairOptions = {},
): TrajectoryPair[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const view = (r: ColbenchTrajectory): ChatMessage[] => {
    const task = byId.get(r.taskId);
    if (!task) throw new Error(`criticPreferencePairs: trajectory of task ${r.taskId} has no task in the task file`);
    return [{ role: 'system', content: criticContext(task.reference) }, ...conversationMessages(r)];
  };
  return pairsOf(trajectories, scores, seed, opts, 'criticPreferencePairs', view);
}

export interface RftExample {
  taskId: string;
  sampleIndex: number;
  turn: number;
  /** The agent's view before the turn. Same shape as coral's SftExample, so its formatters apply. */
  messages: ChatMessage[];
  completion: string;
}

/** Rejection fine-tuning: every agent turn of trajectories scoring ≥ minScore (default 1: all tests passed). */
export function rejectionFinetuningExamples(
  trajectories: readonly ColbenchTrajectory[],
  scores: readonly number[],
  opts: { minScore?: number; maxPerTask?: number } = {},
): RftExample[] {
  checkScores(trajectories, scores, 'rejectionFinetuningExamples');
  const minScore = opts.minScore ?? 1;
  const perTask = new Map<string, number>();
  const out: RftExample[] = [];
  const order = trajectories
    .map((r, i) => ({ r, score: scores[i] }))
    .sort((a, b) => (a.r.taskId < b.r.taskId ? -1 : a.r.taskId > b.r.taskId ? 1 : a.r.sampleIndex - b.r.sampleIndex));
  for (const { r, score } of order) {
    if (score < minScore) continue;
    let turn = 0;
    r.dialogue.forEach((t, i) => {
      if (t.role !== 'agent') return;
      turn++;
      if (opts.maxPerTask !== undefined && (perTask.get(r.taskId) ?? 0) >= opts.maxPerTask) return;
      perTask.set(r.taskId, (perTask.get(r.taskId) ?? 0) + 1);
      out.push({
        taskId: r.taskId,
        sampleIndex: r.sampleIndex,
        turn,
        messages: agentMessages(r.system, r.problem, r.dialogue.slice(0, i)),
        completion: t.raw ?? t.content,
      });
    });
  }
  return out;
}
