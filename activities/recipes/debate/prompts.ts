// What the agents and the summariser are asked (our wording; the protocol follows the multiagent-ft seed's
// original_gen.py: bullet-point reasoning, the final answer boxed at the end), as keyed templates a `prompts:` file
// may replace (activities/recipes/prompt-texts.ts). `answer_format.<dataset>` fills every {answer_format}.
import { defaultPrompts, type PromptCatalog, type Prompts } from '../prompt-texts';
import { DEBATE_DATASETS, type DebateDataset } from './tasks';

const ANSWER_FORMAT: Record<DebateDataset, string> = {
  math: 'your final answer as \\boxed{{answer}}',
  gsm8k: 'your final answer as \\boxed{{answer}}',
  arithmetic: 'your final answer as \\boxed{{answer}}',
  mmlu: 'the letter of the option you choose, as \\boxed{{X}}',
};

const FENCE = '"""';
const ANOTHER_AGENT = 'Answer of another agent';
const SOLUTION = 'Solution';
const FORMAT = { answer_format: "how to end with the final answer (the dataset's answer_format.<dataset>)" };

/** Every debate text a `prompts:` file may replace. */
export const DEBATE_PROMPTS: PromptCatalog = {
  ...Object.fromEntries(
    DEBATE_DATASETS.map((d) => [
      `answer_format.${d}`,
      { about: `how a ${d} agent ends its reply, for {answer_format}`, text: ANSWER_FORMAT[d] },
    ]),
  ),
  first_round: {
    about: "round 0: every agent's request",
    placeholders: { problem: 'the problem (multiple choice: with its lettered options)', ...FORMAT },
    required: ['problem'],
    text: 'Solve this problem:\n\n{problem}\n\nReason step by step in a few short bullet points, then end with {answer_format}.',
  },
  debate_round: {
    about: "later rounds: an agent's request with the other agents' previous answers",
    placeholders: {
      other_answers: "the other agents' answers, each a `debate_round.answer`, joined by a blank line",
      problem: 'the problem, as in round 0',
      ...FORMAT,
    },
    required: ['other_answers'],
    text: '{other_answers}\n\nOther agents answered the same problem as above. Weigh their reasoning against yours and check every step; they may be wrong, and so may you. Give your updated solution in bullet points and end with {answer_format}.',
  },
  'debate_round.answer': {
    about: "one other agent's answer in a later round's request",
    placeholders: { answer: "the agent's reply, as it wrote it", number: 'its place in the list, from 1' },
    required: ['answer'],
    text: `${ANOTHER_AGENT} ({number}):\n${FENCE}\n{answer}\n${FENCE}`,
  },
  summary_request: {
    about: "the summariser's request (summarize: true)",
    placeholders: { solutions: "the other agents' answers, each a `summary_request.answer`, joined by a blank line" },
    required: ['solutions'],
    text: '{solutions}\n\nThese are several solutions to one problem. For each, summarise in two or three sentences how it reasons and which answer it reaches. Do not solve the problem yourself.',
  },
  'summary_request.answer': {
    about: "one other agent's answer in the summariser's request",
    placeholders: { answer: "the agent's reply, as it wrote it", number: 'its place in the list, from 1' },
    required: ['answer'],
    text: `${SOLUTION} {number}:\n${FENCE}\n{answer}\n${FENCE}`,
  },
  summarized_round: {
    about: "later rounds with summarize: true: an agent's request with the summary",
    placeholders: { summary: "the summariser's account of the other agents' answers", problem: 'the problem, as in round 0', ...FORMAT },
    required: ['summary'],
    text: 'A summary of how other agents solved the same problem:\n"""\n{summary}\n"""\n\nUse it as advice, not as authority: check it against your own solution. Give your updated solution in bullet points and end with {answer_format}.',
  },
  self_check: {
    about: 'later rounds with a single agent: it double-checks itself',
    placeholders: FORMAT,
    text: 'Check your solution above step by step. If you find a mistake, correct it. Give your final solution in bullet points and end with {answer_format}.',
  },
};

/** The project's own texts (the simulator's, and tests'). */
export const DEFAULT_DEBATE_PROMPTS = defaultPrompts(DEBATE_PROMPTS);

const answerFormat = (p: Prompts, d: DebateDataset) => p.render(`answer_format.${d}`);

/** Round 0: every agent gets the same request. */
export const firstRoundPrompt = (p: Prompts, d: DebateDataset, problem: string): string =>
  p.render('first_round', { problem, answer_format: answerFormat(p, d) });

// The other agents' answers, each through its item template, joined by a blank line: with an item that opens with a
// space and a request that puts a blank line before the list, a prompts file rebuilds the seed's requests, which
// append "\n\n <item>" per agent (multiagent-ft original_gen.py construct_message and summarize_message).
const listAnswers = (p: Prompts, itemKey: string, others: readonly string[]) =>
  others.map((answer, i) => p.render(itemKey, { answer, number: i + 1 })).join('\n\n');

/** Later rounds, direct: the other agents' previous answers as advice. */
export const debateRoundPrompt = (p: Prompts, d: DebateDataset, problem: string, others: readonly string[]): string =>
  p.render('debate_round', { other_answers: listAnswers(p, 'debate_round.answer', others), problem, answer_format: answerFormat(p, d) });

/** What the summariser is asked about the other agents' answers. */
export const summaryRequest = (p: Prompts, others: readonly string[]): string =>
  p.render('summary_request', { solutions: listAnswers(p, 'summary_request.answer', others) });

/** Later rounds, summarised: the summariser's account of the other agents' answers as advice. */
export const summarizedRoundPrompt = (p: Prompts, d: DebateDataset, problem: string, summary: string): string =>
  p.render('summarized_round', { summary, problem, answer_format: answerFormat(p, d) });

/** Later rounds with a single agent: nobody to debate with, so it double-checks itself. */
export const selfCheckPrompt = (p: Prompts, d: DebateDataset): string => p.render('self_check', { answer_format: answerFormat(p, d) });

/** The replies a debate round's request (or a summary request) lists, read back from inside their fences — only
 *  there: the request's own wording, such as the format hint \boxed{answer}, is no agent's reply. */
export function listedReplies(request: string): string[] {
  const listed = new RegExp(`^(?:${ANOTHER_AGENT} \\(\\d+\\)|${SOLUTION} \\d+):\\n${FENCE}\\n([\\s\\S]*?)\\n${FENCE}$`, 'gm');
  return [...request.matchAll(listed)].map((m) => m[1]);
}

/** Markers the dry-run simulator uses to tell the requests apart (they are part of the default texts above). */
export const PROMPT_MARKERS = {
  first: 'Solve this problem:\n\n',
  debate: 'Other agents answered the same problem as above.',
  summary: 'These are several solutions to one problem.',
  summarized: 'A summary of how other agents solved the same problem:',
  selfCheck: 'Check your solution above step by step.',
} as const;
