// The SWEET-RL critic: scores candidate next agent turns of one state, seeing the training-time reference.
//
// Two interchangeable scorers behind one seam (`CandidateScorer`), chosen by recipe.data.critic:
//  - learned (default; learnedCritic over logProbCritic): the seed's critic (sweet_rl README, "SWEET-RL";
//    scripts/rank_best_of_n.py). A model DPO-trained this iteration on trajectory pairs with the reference in its
//    prompt; a candidate's score is its mean token log-prob under that critic (reference + dialogue + candidate)
//    minus its mean log-prob under the sampling policy without the reference — the implicit advantage, β dropped
//    since it does not change the ranking. The log-probs come from log-prob Chats (activities/llm/logprob-api.ts,
//    or script-logprobs.ts on a local checkpoint), trained and served by the iteration (workflows/stages/build-data.ts).
//  - judge (judgeCritic): an instruction-tuned model reads the task, the reference, the dialogue and all candidates,
//    and gives each a 0–10 score (CRITIC_SYSTEM_PROMPT in prompts.ts). It works from iteration 0 with any
//    OpenAI-compatible endpoint and still uses SWEET-RL's asymmetric information (the critic sees the reference;
//    the policy never does). Its cost: one call per state, scores on a coarse scale (ties are skipped when
//    pairing), and positional bias — mitigated by presenting the candidates in a seeded random order per state.
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { criticContext } from './baselines';
import type { Prompts } from '../prompt-texts';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { criticMessages } from './prompts';
import type { TurnState } from './turn-state';

export interface CandidateScores {
  /** One per candidate, in the order given; null when the critic gave that candidate no usable score. */
  scores: Array<number | null>;
  /** The critic's raw reply (judge), for debugging a ranking. */
  reply?: string;
  usage?: TokenUsage;
}

export type CandidateScorer = (state: TurnState, candidates: readonly string[]) => Promise<CandidateScores>;

export interface JudgeCriticOptions {
  /** The recipe's texts (critic.system, critic.request). */
  prompts: Prompts;
  /** Default: temperature 0, 32 tokens per candidate + 64. */
  decoding?: Partial<Decoding>;
  seed?: number;
}

export function judgeCritic(critic: Chat, opts: JudgeCriticOptions): CandidateScorer {
  return async (state, candidates) => {
    // Shown in a seeded order per state: LLM judges favour early (or late) positions.
    const order = shuffled(
      candidates.map((_, i) => i),
      seededRandom(hashSeed('critic-order', opts.seed ?? 0, state.id)),
    );
    const out = await critic({
      messages: criticMessages(
        opts.prompts,
        state.problem,
        state.reference,
        state.dialogue,
        order.map((i) => candidates[i]),
      ),
      decoding: {
        temperature: 0,
        maxTokens: 64 + 32 * candidates.length,
        ...opts.decoding,
        seed: hashSeed('critic', opts.seed ?? 0, state.id) % 2 ** 31,
      },
      sampleKey: `critic/${state.id}`,
    });
    const reply = out.texts[0] ?? '';
    const shown = parseCriticScores(reply, candidates.length);
    const scores: Array<number | null> = Array(candidates.length).fill(null);
    order.forEach((original, position) => {
      scores[original] = shown[position];
    });
    return { scores, reply, usage: out.usage };
  };
}

/**
 * Reads one score per candidate (1-based labels) from a judge's reply. Accepts "Candidate 2: 7", "**Candidate 2**
 * - 7/10", "candidate #2 = 7.5", a JSON list of n numbers or {"scores": [...]}, and numbered lines "2: 7" / "2. 7".
 * Labels outside 1..n and repeated labels (after the first) are ignored; a candidate without a score gets null,
 * never a made-up number.
 */
export function parseCriticScores(reply: string, n: number): Array<number | null> {
  const scores: Array<number | null> = Array(n).fill(null);
  const put = (label: number, value: number) => {
    if (Number.isInteger(label) && label >= 1 && label <= n && Number.isFinite(value) && scores[label - 1] === null)
      scores[label - 1] = value;
  };
  const text = reply.replace(/[*_`]/g, '');
  const NUM = '(-?\\d+(?:\\.\\d+)?)';
  for (const m of text.matchAll(
    new RegExp(`candidate\\s*#?\\s*(\\d+)\\s*(?:\\)|\\])?\\s*(?:score)?\\s*[:=\\-–—]?\\s*(?:score\\s*[:=]?\\s*)?${NUM}`, 'gi'),
  ))
    put(Number(m[1]), Number(m[2]));
  if (scores.some((s) => s !== null)) return scores;

  const json = /\{[\s\S]*\}|\[[\s\S]*\]/.exec(text);
  if (json) {
    try {
      const v: unknown = JSON.parse(json[0]);
      const list = Array.isArray(v)
        ? v
        : v && typeof v === 'object' && Array.isArray((v as { scores?: unknown }).scores)
          ? (v as { scores: unknown[] }).scores
          : null;
      if (list && list.length === n)
        list.forEach((x, i) => {
          if (typeof x === 'number') put(i + 1, x);
        });
      if (scores.some((s) => s !== null)) return scores;
    } catch {
      // not JSON: try numbered lines
    }
  }
  for (const m of text.matchAll(new RegExp(`^\\s*(\\d+)\\s*[:.)\\-]\\s*${NUM}\\s*(?:/\\s*10)?\\s*$`, 'gm')))
    put(Number(m[1]), Number(m[2]));
  return scores;
}

/** Mean token log-prob of `candidate` as the next assistant turn of `state`. */
export type MeanLogProb = (state: TurnState, candidate: string) => Promise<number>;

export interface LogProbCriticDeps {
  /** Under the DPO-trained critic, prompted with the reference (criticContextMessages) — the seed's GT prefix. */
  critic: MeanLogProb;
  /** Under the policy that sampled the candidates, without the reference (the seed stores it while sampling). */
  policy: MeanLogProb;
}

/** The seed's ranking: critic mean log-prob minus policy mean log-prob, per candidate. */
export function logProbCritic(deps: LogProbCriticDeps): CandidateScorer {
  return async (state, candidates) => ({
    scores: await Promise.all(
      candidates.map(async (c) => {
        const [critic, policy] = await Promise.all([deps.critic(state, c), deps.policy(state, c)]);
        return critic - policy;
      }),
    ),
  });
}

/** A MeanLogProb from a log-prob Chat (activities/llm/logprob-api.ts) and what the model sees before the candidate. */
export function chatMeanLogProb(chat: Chat, who: string, context: (state: TurnState) => ChatMessage[]): MeanLogProb {
  return async (state, candidate) => {
    const out = await chat({
      messages: [...context(state), { role: 'assistant', content: candidate }],
      decoding: { temperature: 0, maxTokens: 1 },
      sampleKey: `logprob/${who}/${state.id}`,
    });
    const v = Number(out.texts[0]);
    if (!Number.isFinite(v)) throw new Error(`${who} log-prob for state ${state.id} is ${JSON.stringify(out.texts[0])}, not a number`);
    return v;
  };
}

/** The seed's critic over log-prob chats: the critic sees the reference first (a system message the policy never
 *  gets, as in its training pairs: baselines.ts criticPreferencePairs); the policy sees what it saw when sampling. */
export const learnedCritic = (logProbs: { critic: Chat; policy: Chat }): CandidateScorer =>
  logProbCritic({
    critic: chatMeanLogProb(logProbs.critic, 'critic', (s) => [{ role: 'system', content: criticContext(s.reference) }, ...s.messages]),
    policy: chatMeanLogProb(logProbs.policy, 'policy', (s) => s.messages),
  });
