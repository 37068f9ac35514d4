// ★ THE PROTOCOL (multiagent debate, as in the multiagent-ft seed's original_gen.py / ft_gen.py, with synchronous
// rounds): N agents, each with its own history. Round 0: every agent answers the problem on its own (role
// `generator_<n>`). Round r ≥ 1: every agent sees the OTHER agents' round r−1 answers — listed, or summarised by the
// `summarizer` role in a separate call — and answers again (role `critic_<n>`); as original_gen.py, it is shown
// the others shuffled, at most 5 (`others`; ft_gen.py shows all, in agent order). All agents of a round run at once
// and read only the previous round, so the result does not depend on agent order (the seed's summary path reads
// same-round answers of earlier agents; we do not). The debate's answer is the vote over the last round (vote.ts).
import type { Chat, ChatMessage, TokenUsage } from '../../llm/types';
import { hashSeed, seededRandom, shuffled } from '../../seeded-random';
import { type AnswerCompat, isCorrect, parseAnswer } from './answers';
import type { Prompts } from '../prompt-texts';
import { debateRoundPrompt, firstRoundPrompt, selfCheckPrompt, summarizedRoundPrompt, summaryRequest } from './prompts';
import type { DebateTask } from './tasks';
import { majorityVote, type Vote } from './vote';
import { addUsage } from '../../llm/usage';

export const generatorRole = (n: number) => `generator_${n}`;
export const criticRole = (n: number) => `critic_${n}`;
export const SUMMARIZER_ROLE = 'summarizer';

export interface DebateAgentRecord {
  /** The agent's whole history: user / assistant alternating, one pair per round. */
  messages: ChatMessage[];
  /** The answer each round's reply commits to (undefined: none). */
  answers: Array<string | undefined>;
}

export interface DebateRecord {
  taskId: string;
  sampleIndex: number;
  agents: DebateAgentRecord[];
  /** summaries[r][n]: what agent n was shown in round r (summarised debates only; round 0 is empty). */
  summaries?: string[][];
  /** The vote over each round's answers; the last is the debate's answer. */
  roundVotes: Vote[];
  gold: string;
  /** The last round's vote is the gold answer. */
  correct: boolean;
  /** Per round, the agents' replies' mean pairwise 1 − cosine of their embeddings (diversity.ts), when the config
   *  names an embeddings endpoint. */
  embeddingDissimilarity?: number[];
  usage: TokenUsage;
}

export interface DebateOptions {
  task: DebateTask;
  /** The recipe's texts (prompts.ts DEBATE_PROMPTS, replaced by the config's `prompts:` file). */
  prompts: Prompts;
  sampleIndex: number;
  agents: number;
  rounds: number;
  summarize: boolean;
  /** What a later round shows of the other agents: shuffled (seeded per agent and round) or in agent order, at most `max`. */
  others: { shuffle: boolean; max: number };
  /** Every agent is the one model `generator_0` (the single-model baselines majority_ft and star). */
  oneModel?: boolean;
  /** Role → chat: generator_<n>, critic_<n> and (when summarising) summarizer. */
  chats: Record<string, Chat>;
  decoding: { temperature: number; topP: number; maxTokens: number };
  seed: number;
  /** How answers are voted on and graded (answers.ts). */
  compat: AnswerCompat;
}

const text = (m: ChatMessage) =>
  typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');

export async function runDebate(o: DebateOptions): Promise<DebateRecord> {
  const { task, agents: n, rounds, prompts } = o;
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(rounds) || rounds < 1)
    throw new Error(`debate: agents and rounds must be positive integers, got ${n} × ${rounds}`);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const chat = (role: string) => {
    const c = o.chats[role];
    if (!c) throw new Error(`debate: no chat for role ${role}`);
    return c;
  };
  const ask = async (role: string, messages: ChatMessage[], key: string, maxTokens = o.decoding.maxTokens): Promise<string> => {
    const out = await chat(role)({
      messages,
      // A distinct seed per call: agents sampling the same prompt must not answer identically.
      decoding: { ...o.decoding, maxTokens, seed: hashSeed(o.seed, task.id, key) },
      sampleKey: key,
    });
    addUsage(usage, out.usage);
    return out.texts[0] ?? '';
  };

  const records: DebateAgentRecord[] = Array.from({ length: n }, () => ({ messages: [], answers: [] }));
  const summaries: string[][] = [];
  for (let r = 0; r < rounds; r++) {
    // Everything an agent is shown in round r comes from round r−1: computed before anyone answers.
    const previous = records.map((a) => (r === 0 ? '' : text(a.messages[a.messages.length - 1])));
    const roundSummaries: string[] = [];
    const requests = await Promise.all(
      records.map(async (_, i) => {
        if (r === 0) return firstRoundPrompt(prompts, task.dataset, task.problem);
        const all = previous.filter((_, j) => j !== i);
        if (all.length === 0) return selfCheckPrompt(prompts, task.dataset);
        const others = (
          o.others.shuffle ? shuffled(all, seededRandom(hashSeed(o.seed, task.id, `s${o.sampleIndex}/r${r}/others${i}`))) : all
        ).slice(0, o.others.max);
        if (!o.summarize) return debateRoundPrompt(prompts, task.dataset, task.problem, others);
        const summary = await ask(
          SUMMARIZER_ROLE,
          [{ role: 'user', content: summaryRequest(prompts, others) }],
          `s${o.sampleIndex}/r${r}/summary${i}`,
        );
        roundSummaries[i] = summary;
        return summarizedRoundPrompt(prompts, task.dataset, task.problem, summary);
      }),
    );
    if (o.summarize) summaries.push(r === 0 ? [] : roundSummaries);
    await Promise.all(
      records.map(async (a, i) => {
        a.messages.push({ role: 'user', content: requests[i] });
        const role = o.oneModel ? generatorRole(0) : r === 0 ? generatorRole(i) : criticRole(i);
        const reply = await ask(role, [...a.messages], `s${o.sampleIndex}/r${r}/a${i}`);
        a.messages.push({ role: 'assistant', content: reply });
        a.answers.push(parseAnswer(task.dataset, reply));
      }),
    );
  }
  const roundVotes = Array.from({ length: rounds }, (_, r) =>
    majorityVote(
      task.dataset,
      records.map((a) => a.answers[r]),
      o.compat,
    ),
  );
  return {
    taskId: task.id,
    sampleIndex: o.sampleIndex,
    agents: records,
    ...(o.summarize ? { summaries } : {}),
    roundVotes,
    gold: task.gold,
    correct: isCorrect(task.dataset, roundVotes[rounds - 1].answer, task.gold, o.compat),
    usage,
  };
}
