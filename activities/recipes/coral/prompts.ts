// CoRal's prompts, in our own words after the seed's descriptions (collaborative-reasoner lightning_modules/, the conversation loop): the agents' system prompts (three
// styles), the answer-format line per dataset, the scripted opening message (turn 0), and the belief-extraction
// prompt. The extractor's system prompt is a fixed constant that no agent prompt equals: the simulator and any
// log reader tell the two kinds of request apart by it.
import { isMultipleChoice, optionLetter, type CoralDataset, type CoralTask } from './tasks';

export type SystemPromptStyle = 'assistant_sbs_short' | 'assistant_sbs' | 'simple_cot';
export const SYSTEM_PROMPT_STYLES: readonly SystemPromptStyle[] = ['assistant_sbs_short', 'assistant_sbs', 'simple_cot'];

const TOPIC: Record<CoralDataset, string> = {
  mmlu_pro: 'multiple-choice questions that need careful reasoning',
  gpqa: 'graduate-level questions in biology, physics and chemistry',
  math: 'math problems',
  explore_tom: 'questions about what people in a story know or believe',
  hi_tom: 'questions about what people in a story know or believe',
};

/** How an agent must state its final answer; local-extractor.ts and the simulator rely on these shapes. */
export function answerFormatLine(d: CoralDataset): string {
  if (isMultipleChoice(d)) return 'Whenever you commit to an answer, finish with the line "Final answer: (X)", X being the option letter.';
  if (d === 'math')
    return 'Whenever you commit to an answer, finish with the line "Final answer: $\\boxed{...}$" holding the result in LaTeX.';
  return 'Whenever you commit to an answer, finish with the line "Short Answer: ..." in at most a few words.';
}

export function systemPrompt(d: CoralDataset, style: SystemPromptStyle): string {
  const lines =
    style === 'simple_cot'
      ? [`Answer ${TOPIC[d]}.`, 'Work through the problem one step at a time before you answer.']
      : style === 'assistant_sbs'
        ? [
            `You are one of two collaborators working on ${TOPIC[d]}.`,
            'Open by outlining how you would approach the problem and ask your collaborator whether the plan looks right.',
            'Whenever a step seems doubtful, ask about it instead of letting it pass; being agreeable for its own sake helps nobody.',
            'Check every step your collaborator proposes and point to the exact place where it breaks, if it does.',
            'When your own work is questioned, look at it again honestly: fix what is wrong, and defend what is right.',
            'Keep to the problem at hand.',
          ]
        : [
            `You are one of two collaborators working on ${TOPIC[d]}.`,
            'Start with a complete solution of your own.',
            'Check every step your collaborator proposes and point to the exact place where it breaks, if it does.',
            'When your own work is questioned, look at it again honestly: fix what is wrong, and defend what is right.',
            'Keep to the problem, and keep your replies short and plain.',
          ];
  return [...lines, answerFormatLine(d)].join('\n');
}

/** The style the seed's configs use per dataset: GPQA gets the longer collaborative prompt. */
export const defaultSystemPromptStyle = (d: CoralDataset): SystemPromptStyle => (d === 'gpqa' ? 'assistant_sbs' : 'assistant_sbs_short');

export function optionLines(options: readonly string[]): string {
  return options.map((o, i) => `(${optionLetter(i)}) ${o}`).join('\n');
}

/** Turn 0: the scripted message that opens every conversation, attributed to the "student". */
export function openingMessage(task: CoralTask): string {
  if (isMultipleChoice(task.dataset))
    return `Could you help me with this question?\n\nQuestion: ${task.question}\n\nOptions:\n${optionLines(task.options ?? [])}`;
  if (task.dataset === 'math') return `Could you help me with this math problem?\n\nProblem: ${task.question}`;
  return `Could you help me answer a question about this story?\n\nStory: ${task.story ?? ''}\n\nQuestion: ${task.question}`;
}

/**
 * Sent before the student's first own turn: the student "asked" turn 0, so its view would open with an assistant
 * message, which OpenAI-compatible servers reject (they need user first after the system prompt).
 */
export const STUDENT_VIEW_PREAMBLE = 'You will be working through the problem below with a partner.';

// ---- belief extraction ----------------------------------------------------------------------------------------

export const EXTRACTOR_SYSTEM_PROMPT =
  'You read one reply from a discussion about a problem and report the final answer that reply commits to. ' +
  'Do not solve the problem yourself and do not judge the reply. ' +
  'If the reply does not clearly commit to one final answer, say "not sure yet".';

/** Marks where the reply under extraction starts; the simulator finds the response after it. */
export const EXTRACTOR_RESPONSE_MARKER = '### Reply to read';

/** The task part of the extraction prompt (everything before the reply). */
export function extractorTaskBlock(task: CoralTask): string {
  const parts = [task.story !== undefined ? `### Story\n${task.story}` : '', `### Question\n${task.question}`];
  if (task.options) parts.push(`### Options\n${optionLines(task.options)}`);
  return parts.filter(Boolean).join('\n\n');
}

function extractorDemand(d: CoralDataset): string {
  if (isMultipleChoice(d)) return 'Reply with only the committed option in the form "(X)", or "not sure yet".';
  if (d === 'math') return 'Reply with only the committed answer in the form "$\\boxed{...}$", or "not sure yet".';
  return 'Reply with only the committed answer in fewer than five words, or "not sure yet".';
}

/** The extractor sees the task and ONE reply — never the conversation (collaborative-reasoner lightning_modules/, the conversation loop). */
export function extractorUserPrompt(task: CoralTask, response: string): string {
  return `${extractorTaskBlock(task)}\n\n${EXTRACTOR_RESPONSE_MARKER}\n${response}\n### End of reply\n\n${extractorDemand(task.dataset)}`;
}
