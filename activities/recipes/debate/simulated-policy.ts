// SIMULATOR of a debating model for dry runs (demo, tests, bench) — not a result. Seeded by the request, so a
// cached or repeated call gets the same reply. An agent answers correctly with probability `skill`; otherwise, in a
// later round, it goes with the other agents' most common answer with probability `agreeability` (conformity),
// else keeps its own (or, in round 0, gives a wrong one). The summariser restates the listed answers. Training
// raises `skill` (activities/serving/simulated-skill.ts), so trained agents answer — and correct — better.
// It knows the project's own prompt texts only, so a config with a `prompts:` file cannot use it (configs/load.ts).
import { checkOdds, type SimulatedReply, type SimulatedRequest } from '../shared/simulated-policy';
import { hashSeed, seededRandom } from '../../seeded-random';
import { parseAnswer } from './answers';
import { DEFAULT_DEBATE_PROMPTS, PROMPT_MARKERS, firstRoundPrompt, listedReplies } from './prompts';
import { optionLetter, type DebateTask } from './tasks';
import { majorityVote } from './vote';

export interface DebateSimulatedPolicyOptions {
  tasks: readonly DebateTask[];
  skill: number;
  agreeability?: number;
}

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (p as { text?: string }).text ?? '').join('') : '';
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

function wrongAnswer(task: DebateTask, rand: () => number): string {
  const k = 1 + Math.floor(rand() * 3);
  if (task.dataset === 'mmlu') {
    const options = (task.problem.match(/^\([A-Z]\) /gm) ?? []).length || 4;
    const gold = task.gold.charCodeAt(0) - 65;
    return optionLetter((gold + k) % options);
  }
  const n = Number(task.gold);
  return Number.isFinite(n) ? String(n + k) : `${task.gold}+${k}`;
}

const solution = (answer: string) =>
  `- I restate what is asked and the quantities involved.\n- I work through it step by step.\n- So the answer is \\boxed{${answer}}.`;

/** The answers a summary states ("… reaches X."), as the summariser below writes them. */
const NO_ANSWER = 'no answer';
const summaryAnswers = (summary: string) => [...summary.matchAll(/reaches (.+?)\.$/gm)].map((m) => m[1]).filter((a) => a !== NO_ANSWER);

export function createDebateSimulatedPolicy(o: DebateSimulatedPolicyOptions): (req: SimulatedRequest) => SimulatedReply {
  const agreeability = o.agreeability ?? 0.6;
  checkOdds({ skill: o.skill, agreeability });
  const byFirstPrompt = new Map(o.tasks.map((t) => [firstRoundPrompt(DEFAULT_DEBATE_PROMPTS, t.dataset, t.problem), t]));

  const answerFor = (task: DebateTask, msgs: Array<{ role: string; content: string }>, rand: () => number): string => {
    if (rand() < o.skill) return task.gold;
    const mine = msgs
      .filter((m) => m.role === 'assistant')
      .map((m) => parseAnswer(task.dataset, m.content))
      .pop();
    const last = msgs[msgs.length - 1].content;
    const others = last.includes(PROMPT_MARKERS.summarized)
      ? summaryAnswers(last)
      : last.includes(PROMPT_MARKERS.debate)
        ? listedReplies(last).map((a) => parseAnswer(task.dataset, a))
        : [];
    // The simulated agent's own judgement of which answers agree, not the evaluation: always the fixed grader.
    const popular = majorityVote(task.dataset, others, 'fixed').answer;
    if (popular !== undefined && rand() < agreeability) return popular;
    return mine ?? wrongAnswer(task, rand);
  };

  return (req) => {
    const msgs = req.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
    const promptTokens = msgs.reduce((a, m) => a + words(m.content), 0);
    const base = hashSeed(req.model, JSON.stringify(msgs), req.temperature === 0 ? 'greedy' : String(req.seed ?? 'unseeded'));
    const texts = Array.from({ length: Math.max(1, req.n) }, (_, i) => {
      const rand = seededRandom(hashSeed(base, i));
      const last = msgs[msgs.length - 1]?.content ?? '';
      if (last.includes(PROMPT_MARKERS.summary)) {
        return listedReplies(last)
          .map((s, k) => `Solution ${k + 1} works through the problem step by step and reaches ${parseAnswer('math', s) ?? NO_ANSWER}.`)
          .join('\n');
      }
      const task = byFirstPrompt.get(msgs[0]?.content ?? '');
      if (!task) return 'I cannot tell which problem this is.';
      return solution(answerFor(task, msgs, rand));
    });
    return { texts, promptTokens, completionTokens: texts.map(words) };
  };
}
