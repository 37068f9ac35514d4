// What the agents and the summariser are asked (our wording; the protocol follows the multiagent-ft seed's
// original_gen.py: bullet-point reasoning, the final answer boxed at the end).
import type { DebateDataset } from './tasks';

const answerLine = (d: DebateDataset) =>
  d === 'mmlu' ? 'the letter of the option you choose, as \\boxed{X}' : 'your final answer as \\boxed{answer}';

/** Round 0: every agent gets the same request. */
export function firstRoundPrompt(d: DebateDataset, problem: string): string {
  return `Solve this problem:\n\n${problem}\n\nReason step by step in a few short bullet points, then end with ${answerLine(d)}.`;
}

const fence = (s: string) => `"""\n${s.trim()}\n"""`;

/** Later rounds, direct: the other agents' previous answers as advice. */
export function debateRoundPrompt(d: DebateDataset, others: readonly string[]): string {
  const listed = others.map((a, i) => `Answer of another agent (${i + 1}):\n${fence(a)}`).join('\n\n');
  return `${listed}\n\nOther agents answered the same problem as above. Weigh their reasoning against yours and check every step; they may be wrong, and so may you. Give your updated solution in bullet points and end with ${answerLine(d)}.`;
}

/** What the summariser is asked about the other agents' answers. */
export function summaryRequest(others: readonly string[]): string {
  const listed = others.map((a, i) => `Solution ${i + 1}:\n${fence(a)}`).join('\n\n');
  return `${listed}\n\nThese are several solutions to one problem. For each, summarise in two or three sentences how it reasons and which answer it reaches. Do not solve the problem yourself.`;
}

/** Later rounds, summarised: the summariser's account of the other agents' answers as advice. */
export function summarizedRoundPrompt(d: DebateDataset, summary: string): string {
  return `A summary of how other agents solved the same problem:\n${fence(summary)}\n\nUse it as advice, not as authority: check it against your own solution. Give your updated solution in bullet points and end with ${answerLine(d)}.`;
}

/** Later rounds with a single agent: nobody to debate with, so it double-checks itself. */
export function selfCheckPrompt(d: DebateDataset): string {
  return `Check your solution above step by step. If you find a mistake, correct it. Give your final solution in bullet points and end with ${answerLine(d)}.`;
}

/** Markers the dry-run simulator uses to tell the requests apart (they are part of the texts above). */
export const PROMPT_MARKERS = {
  first: 'Solve this problem:\n\n',
  debate: 'Other agents answered the same problem as above.',
  summary: 'These are several solutions to one problem.',
  summarized: 'A summary of how other agents solved the same problem:',
  selfCheck: 'Check your solution above step by step.',
} as const;
