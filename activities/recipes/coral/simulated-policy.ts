// SIMULATOR — a stand-in for a real model on machines without a GPU or weights. The project's dry-run
// OpenAI-compatible server answers CoRal requests with it (demo, tests, benchmarks); it is never a result.
//  - Extraction requests (system prompt = EXTRACTOR_SYSTEM_PROMPT) are answered perfectly by the local parser.
//  - Agent requests: the task is found from the opening message; the reply reasons briefly and ends in the
//    dataset's answer format — correct with probability `skill`, otherwise a plausible wrong answer; when the
//    partner's latest message states an answer, the agent adopts it with probability `agreeability` (more readily
//    when it is right, less when it is wrong). Now and then (more often at low skill) it commits to nothing.
//  - All randomness is seeded by the request itself (model, messages, seed, candidate index): the same request
//    always gets the same reply — the request-cache and durability tests rely on that — while n candidates differ.
// It knows the project's own prompt texts only (DEFAULT_CORAL_PROMPTS), so a config with a `prompts:` file cannot use
// it (configs/load.ts says so). No timers, no I/O.
import { parseExtractorReply, UNSURE_PHRASE } from './extract';
import { localExtractorReply } from './local-extractor';
import { gradeMathAnswer } from '../shared/math-equivalence';
import { matchesGold, tomMatches, tomGold } from './match';
import {
  DEFAULT_CORAL_PROMPTS,
  EXTRACTOR_RESPONSE_MARKER,
  EXTRACTOR_SYSTEM_PROMPT,
  extractorTaskBlock,
  openingMessage,
  STUDENT_VIEW_PREAMBLE,
} from './prompts';
import { hashSeed, seededRandom } from '../../seeded-random';
import { checkOdds, type SimulatedReply, type SimulatedRequest } from '../shared/simulated-policy';
import { isMultipleChoice, optionLetter, type CoralDataset, type CoralTask } from './tasks';

export type { SimulatedReply, SimulatedRequest };
export type CoralSimulatedPolicy = (req: SimulatedRequest) => SimulatedReply;

export interface CoralSimulatedPolicyOptions {
  tasks: readonly CoralTask[];
  /** Probability that a reply reasons its way to the gold answer, 0..1. */
  skill: number;
  /** Base probability of adopting the partner's stated answer, 0..1 (default 0.6). */
  agreeability?: number;
}

const textOf = (c: unknown): string =>
  typeof c === 'string'
    ? c
    : Array.isArray(c)
      ? c.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('')
      : '';
const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

const OPENERS = [
  'Let me work through this step by step.',
  'Here is how I see it.',
  'Going through the problem carefully:',
  'Let me reason about it from the start.',
  'I will check each part in turn.',
  'Thinking about this one piece at a time:',
];

function statement(task: CoralTask, answer: string): string {
  if (isMultipleChoice(task.dataset)) return `Final answer: (${answer})`;
  if (task.dataset === 'math') return `Final answer: $\\boxed{${answer}}$`;
  return `Short Answer: ${answer}`;
}

function reasoning(task: CoralTask, answer: string): string {
  if (isMultipleChoice(task.dataset))
    return `Option (${answer}), "${task.options?.[answer.charCodeAt(0) - 65] ?? ''}", is the one that fits.`;
  if (task.dataset === 'math') return `Carrying the computation through gives ${answer}.`;
  return `Following who saw what in the story, the answer is ${answer}.`;
}

function wrongMath(gold: string, rand: () => number): string {
  const g = gold.trim();
  const bump = 1 + Math.floor(rand() * 3);
  let m: RegExpExecArray | null;
  let wrong: string;
  if (/^-?\d+$/.test(g)) wrong = String(Number(g) + (rand() < 0.5 ? bump : -bump));
  else if ((m = /^\\[dt]?frac\{(-?\d+)\}\{(\d+)\}$/.exec(g))) wrong = `\\frac{${Number(m[1]) + bump}}{${m[2]}}`;
  else if ((m = /^(\d*)\\sqrt\{(\d+)\}$/.exec(g))) wrong = `${Number(m[1] || 1) + bump}\\sqrt{${m[2]}}`;
  else if ((m = /^(\d*)\\pi$/.exec(g))) wrong = `${Number(m[1] || 1) + bump}\\pi`;
  else if (/^-?\d*\.\d+$/.test(g)) wrong = String(Number(g) + bump);
  else wrong = `${g}+${bump}`;
  return gradeMathAnswer(wrong, gold) ? `${g}+${bump}` : wrong;
}

function wrongTom(task: CoralTask, rand: () => number): string {
  const gold = task.gold.trim().toLowerCase();
  if (gold === 'yes') return 'no';
  if (gold === 'no') return 'yes';
  if (gold.startsWith('knows about')) return gold.replace('knows about', 'does not know about');
  if (gold.includes('does not know')) return gold.replace('does not know', 'knows');
  const story = task.story ?? '';
  const mentioned =
    task.dataset === 'hi_tom'
      ? story.match(/\b[a-z]+_[a-z]+\b/g)
      : [...story.matchAll(/\bthe ((?:other )?[a-z]+)/gi)].map((m) => m[1].toLowerCase());
  const target = tomGold(task.gold, task.dataset, 'fixed');
  const others = [...new Set(mentioned ?? [])].filter((w) => !tomMatches(w, target));
  return others.length ? others[Math.floor(rand() * others.length)] : 'somewhere else';
}

function wrongAnswer(task: CoralTask, rand: () => number): string {
  if (isMultipleChoice(task.dataset)) {
    const n = task.options?.length ?? 4;
    const goldIndex = task.gold.charCodeAt(0) - 65;
    return optionLetter((goldIndex + 1 + Math.floor(rand() * (n - 1))) % n);
  }
  return task.dataset === 'math' ? wrongMath(task.gold, rand) : wrongTom(task, rand);
}

/** The answer a message states, if any (read with the same local parser as `collab-loop score`). */
function statedAnswer(task: CoralTask, message: string): { answer: string; correct: boolean } | undefined {
  const belief = parseExtractorReply(task.dataset, localExtractorReply(task.dataset, message), 'fixed');
  return belief.valid ? { answer: belief.answer, correct: matchesGold(task, belief, 'fixed') } : undefined;
}

function datasetFromDemand(prompt: string): CoralDataset {
  if (prompt.includes('"(X)"')) return 'mmlu_pro';
  if (prompt.includes('\\boxed')) return 'math';
  return 'explore_tom';
}

export function createCoralSimulatedPolicy(o: CoralSimulatedPolicyOptions): CoralSimulatedPolicy {
  const agreeability = o.agreeability ?? 0.6;
  checkOdds({ skill: o.skill, agreeability });
  // Exact prompt texts → task: O(1) lookups, and ToM tasks that share a question but not a story stay apart.
  const byOpening = new Map(o.tasks.map((t) => [openingMessage(DEFAULT_CORAL_PROMPTS, t), t]));
  const byExtractorBlock = new Map(o.tasks.map((t) => [extractorTaskBlock(t), t]));

  const extract = (prompt: string): string => {
    const at = prompt.indexOf(`\n\n${EXTRACTOR_RESPONSE_MARKER}\n`);
    const task = at === -1 ? undefined : byExtractorBlock.get(prompt.slice(0, at));
    const start = at + EXTRACTOR_RESPONSE_MARKER.length + 3;
    const response = at === -1 ? '' : prompt.slice(start, prompt.lastIndexOf('\n### End of reply'));
    return localExtractorReply(task?.dataset ?? datasetFromDemand(prompt), response);
  };

  const reply = (task: CoralTask, msgs: Array<{ role: string; content: string }>, rand: () => number, opener: string): string => {
    const opening = openingMessage(DEFAULT_CORAL_PROMPTS, task);
    const said = (role: string) => msgs.filter((m) => m.role === role && m.content !== opening && m.content !== STUDENT_VIEW_PREAMBLE);
    const partner = said('user').pop();
    const mine = said('assistant').pop();
    const partnerAnswer = partner && msgs[msgs.length - 1] === partner ? statedAnswer(task, partner.content) : undefined;
    const myAnswer = mine ? statedAnswer(task, mine.content) : undefined;
    const knows = rand() < o.skill;

    if (rand() < 0.08 * (1 - o.skill)) return `${opener} I am ${UNSURE_PHRASE} how to settle this; which step do you find most convincing?`;
    if (partnerAnswer) {
      const adopt = partnerAnswer.correct ? agreeability + (1 - agreeability) * o.skill : agreeability * (1 - o.skill);
      if (rand() < adopt)
        return `${opener} I went over your reasoning and it holds up. ${reasoning(task, partnerAnswer.answer)}\n${statement(task, partnerAnswer.answer)}`;
    }
    const answer = knows ? task.gold : (myAnswer?.answer ?? wrongAnswer(task, rand));
    const stance =
      partnerAnswer && partnerAnswer.answer !== answer ? 'I do not think your conclusion is right; one step does not hold. ' : '';
    return `${opener} ${stance}${reasoning(task, answer)}\n${statement(task, answer)}`;
  };

  return (req) => {
    const msgs = req.messages.map((m) => ({ role: m.role, content: textOf(m.content) }));
    const promptTokens = msgs.reduce((a, m) => a + wordCount(m.content), 0);
    const n = Math.max(1, req.n);
    let texts: string[];
    if (msgs[0]?.role === 'system' && msgs[0].content === EXTRACTOR_SYSTEM_PROMPT) {
      texts = Array(n).fill(extract(msgs[msgs.length - 1]?.content ?? ''));
    } else {
      const task = msgs.map((m) => byOpening.get(m.content)).find((t) => t !== undefined);
      // Greedy decoding ignores the seed, as a real server does.
      const base = hashSeed(req.model, JSON.stringify(msgs), req.temperature === 0 ? 'greedy' : String(req.seed ?? 'unseeded'));
      texts = Array.from({ length: n }, (_, i) => {
        if (!task) return `I am ${UNSURE_PHRASE} what problem we are working on; could you state it again?`;
        const rand = seededRandom(hashSeed(base, i));
        return reply(task, msgs, rand, OPENERS[(base + i) % OPENERS.length]);
      });
    }
    return { texts, promptTokens, completionTokens: texts.map(wordCount) };
  };
}
