// SWEET-RL policy data from offline trajectories (SWEET-RL paper; github.com/facebookresearch/sweet_rl/issues/2; sweet_rl README, the training pipeline), in our own design:
//   turnStates        every agent turn of the first `fraction` of the trajectories becomes a state: the dialogue
//                     before that turn exactly as the agent saw it, plus the task's reference (training-time
//                     information for the critic only, kept in its own field — never in `messages`)
//   sampleCandidates  n candidate next turns from the policy, in ONE request (n), one sampleKey per state
//   rankCandidates    a critic scores every candidate (critic.ts: a judge by default, or the seed's log-prob
//                     advantage); unscored candidates are left out, not given a made-up score
//   pairsFromRanking  per state, `pairsPerTurn` draws of (one candidate from the top half, one from the bottom
//                     half) of the ranking; the higher score is chosen, ties (and identical texts) are skipped;
//                     the rows are single-turn DPO conditioned on the state: OpenRLHF `{prompt, chosen, rejected}`
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { agentMessages } from './agent-view';
import { judgeCritic, type CandidateScorer, type JudgeCriticOptions } from './critic';
import type { ColbenchTrajectory } from './episode';
import type { ColbenchTask } from './tasks';
import type { PreferencePair } from '../../data/examples';
import type { TurnState } from './turn-state';

export type { TurnState };

export interface TurnStateOptions {
  /** Share of the trajectories used, taken in (sampleIndex, taskId) order — the seed's file order, where sample
   *  0 of every task comes first — and rounded up, so any fraction > 0 keeps at least one. Default 1. The seed
   *  used 0.1 to keep turn-level DPO from overfitting. */
  fraction?: number;
}

const byFileOrder = (a: ColbenchTrajectory, b: ColbenchTrajectory) =>
  a.sampleIndex - b.sampleIndex || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);

export function turnStates(
  trajectories: readonly ColbenchTrajectory[],
  tasks: readonly ColbenchTask[],
  opts: TurnStateOptions = {},
): TurnState[] {
  const fraction = opts.fraction ?? 1;
  if (!(fraction > 0 && fraction <= 1)) throw new Error(`turnStates: fraction must be in (0, 1], got ${fraction}`);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const used = [...trajectories].sort(byFileOrder).slice(0, Math.ceil(trajectories.length * fraction));
  const states: TurnState[] = [];
  for (const r of used) {
    const task = byId.get(r.taskId);
    if (!task) throw new Error(`turnStates: trajectory of task ${r.taskId} (sample ${r.sampleIndex}) has no task in the task file`);
    let turn = 0;
    r.dialogue.forEach((t, i) => {
      if (t.role !== 'agent') return;
      turn++;
      const before = r.dialogue.slice(0, i).map(({ role, content }) => ({ role, content }));
      states.push({
        id: `${r.taskId}/s${r.sampleIndex}/t${turn}`,
        taskId: r.taskId,
        sampleIndex: r.sampleIndex,
        turn,
        kind: r.kind,
        problem: r.problem,
        dialogue: before,
        messages: agentMessages(r.system, r.problem, before),
        reference: task.reference,
        original: t.raw ?? t.content,
      });
    });
  }
  return states;
}

export interface Candidates {
  stateId: string;
  texts: string[];
  usage: TokenUsage;
}

/** One request with n completions. The decoding seed is the caller's, else derived from the state id. */
export async function sampleCandidates(state: TurnState, agent: Chat, n: number, decoding: Decoding): Promise<Candidates> {
  if (!Number.isInteger(n) || n < 2) throw new Error(`sampleCandidates: n must be an integer ≥ 2 (pairs need two candidates), got ${n}`);
  const out = await agent({
    messages: state.messages,
    decoding: { ...decoding, seed: decoding.seed ?? hashSeed('sweet-candidates', state.id) % 2 ** 31 },
    n,
    sampleKey: `bon/${state.id}`,
  });
  if (out.texts.length !== n) throw new Error(`sampleCandidates: asked for ${n} candidates for state ${state.id}, got ${out.texts.length}`);
  return { stateId: state.id, texts: out.texts, usage: out.usage };
}

export interface RankedCandidate {
  text: string;
  score: number;
  index: number;
}

export interface RankedState {
  state: TurnState;
  /** Scored candidates, best first (ties keep the sampling order). */
  ranked: RankedCandidate[];
  /** Candidates the critic gave no usable score. */
  unscored: number;
  criticReply?: string;
  usage?: TokenUsage;
}

export interface RankOptions extends Partial<JudgeCriticOptions> {
  /** Use this scorer instead of a judge over `critic` (e.g. logProbCritic). */
  scorer?: CandidateScorer;
}

/**
 * Ranks the candidates of one state. `critic` is the judge model, asked with `opts.prompts` (both ignored when
 * `opts.scorer` is given). The task's reference and problem travel in the state, so no task argument is needed.
 */
export async function rankCandidates(
  state: TurnState,
  candidates: readonly string[],
  critic: Chat | undefined,
  opts: RankOptions = {},
): Promise<RankedState> {
  const { prompts } = opts;
  const scorer = opts.scorer ?? (critic && prompts ? judgeCritic(critic, { ...opts, prompts }) : undefined);
  if (!scorer) throw new Error('rankCandidates: give a critic Chat and opts.prompts, or opts.scorer');
  const { scores, reply, usage } = await scorer(state, candidates);
  if (scores.length !== candidates.length)
    throw new Error(`rankCandidates: the scorer returned ${scores.length} scores for ${candidates.length} candidates`);
  const ranked = candidates
    .map((text, index) => ({ text, index, score: scores[index] }))
    .filter((c): c is RankedCandidate => c.score !== null)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const result: RankedState = { state, ranked, unscored: candidates.length - ranked.length };
  if (reply !== undefined) result.criticReply = reply;
  if (usage) result.usage = usage;
  return result;
}

/** A CoRal PreferencePair (messages = the state as the agent saw it), so the trainers' formatters apply as they are. */
export interface StepPair extends PreferencePair {
  stateId: string;
  chosenScore: number;
  rejectedScore: number;
}

/**
 * Per state, `pairsPerTurn` draws (the seed: 4), each one candidate uniformly from the top half of the ranking and
 * one from the bottom half (with an odd count the middle one is in the bottom half); draws with equal scores or
 * equal texts are skipped, so a state may give fewer pairs. All pairs are then shuffled. Seeded by (seed, state id):
 * the result does not depend on the order of `ranked`.
 */
export function pairsFromRanking(ranked: readonly RankedState[], pairsPerTurn = 4, seed = 0): StepPair[] {
  const pairs: StepPair[] = [];
  for (const r of [...ranked].sort((a, b) => (a.state.id < b.state.id ? -1 : a.state.id > b.state.id ? 1 : 0))) {
    const n = r.ranked.length;
    if (n < 2) continue;
    const top = r.ranked.slice(0, Math.floor(n / 2));
    const bottom = r.ranked.slice(Math.floor(n / 2));
    const rand = seededRandom(hashSeed('sweet-pairs', seed, r.state.id));
    for (let p = 0; p < pairsPerTurn; p++) {
      const a = top[Math.floor(rand() * top.length)];
      const b = bottom[Math.floor(rand() * bottom.length)];
      if (a.score === b.score || a.text === b.text) continue;
      const [chosen, rejected] = a.score > b.score ? [a, b] : [b, a];
      pairs.push({
        stateId: r.state.id,
        taskId: r.state.taskId,
        sampleIndex: r.state.sampleIndex,
        turn: r.state.turn,
        messages: r.state.messages,
        chosen: chosen.text,
        rejected: rejected.text,
        chosenScore: chosen.score,
        rejectedScore: rejected.score,
      });
    }
  }
  return shuffled(pairs, seededRandom(hashSeed('sweet-pairs-order', seed)));
}

export interface OpenRlhfStepDpoRow {
  prompt: ChatMessage[];
  chosen: Array<{ role: 'assistant'; content: string }>;
  rejected: Array<{ role: 'assistant'; content: string }>;
}

/** OpenRLHF train_dpo with `--apply_chat_template --prompt_key prompt --chosen_key chosen --rejected_key rejected`. */
export const stepDpoRow = (p: StepPair): OpenRlhfStepDpoRow => ({
  prompt: p.messages,
  chosen: [{ role: 'assistant', content: p.chosen }],
  rejected: [{ role: 'assistant', content: p.rejected }],
});
