// CoRal's prompts, in our own words after the seed's descriptions (collaborative-reasoner lightning_modules/, the
// conversation loop), as keyed templates a `prompts:` file may replace (activities/recipes/prompt-texts.ts): the
// agents' system prompts (three styles, each filled with the dataset's `task_name` and `task_specific_inst`, the
// names of the seed's utils/prompt_library.json arguments), the scripted opening message (turn 0) per dataset, and
// the belief-extraction prompt. The extractor's system prompt is a fixed constant that no agent prompt equals: the
// simulator and any log reader tell the two kinds of request apart by it.
import type { PromptCatalog, PromptSpec, Prompts } from '../prompt-texts';
import { defaultPrompts } from '../prompt-texts';
import { CORAL_DATASETS, isMultipleChoice, isTheoryOfMind, optionLetter, type CoralDataset, type CoralTask } from './tasks';

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
function answerFormatLine(d: CoralDataset): string {
  if (isMultipleChoice(d)) return 'Whenever you commit to an answer, finish with the line "Final answer: (X)", X being the option letter.';
  if (d === 'math')
    return 'Whenever you commit to an answer, finish with the line "Final answer: $\\boxed{...}$" holding the result in LaTeX.';
  return 'Whenever you commit to an answer, finish with the line "Short Answer: ..." in at most a few words.';
}

const STYLE_LINES: Record<SystemPromptStyle, string[]> = {
  simple_cot: ['Answer {task_name}.', 'Work through the problem one step at a time before you answer.'],
  assistant_sbs: [
    'You are one of two collaborators working on {task_name}.',
    'Open by outlining how you would approach the problem and ask your collaborator whether the plan looks right.',
    'Whenever a step seems doubtful, ask about it instead of letting it pass; being agreeable for its own sake helps nobody.',
    'Check every step your collaborator proposes and point to the exact place where it breaks, if it does.',
    'When your own work is questioned, look at it again honestly: fix what is wrong, and defend what is right.',
    'Keep to the problem at hand.',
  ],
  assistant_sbs_short: [
    'You are one of two collaborators working on {task_name}.',
    'Start with a complete solution of your own.',
    'Check every step your collaborator proposes and point to the exact place where it breaks, if it does.',
    'When your own work is questioned, look at it again honestly: fix what is wrong, and defend what is right.',
    'Keep to the problem, and keep your replies short and plain.',
  ],
};

/** The style the seed's configs use per dataset: GPQA gets the longer collaborative prompt. */
export const defaultSystemPromptStyle = (d: CoralDataset): SystemPromptStyle => (d === 'gpqa' ? 'assistant_sbs' : 'assistant_sbs_short');

export function optionLines(options: readonly string[]): string {
  return options.map((o, i) => `(${optionLetter(i)}) ${o}`).join('\n');
}

/** The task's parts a dataset's opening and extraction prompts show. */
function taskPlaceholders(d: CoralDataset): Record<string, string> {
  return {
    ...(isTheoryOfMind(d) ? { story: 'the story the question is about' } : {}),
    question: 'the question',
    ...(isMultipleChoice(d) ? { options: 'the options, one per line: "(A) …"' } : {}),
  };
}

function openingText(d: CoralDataset): string {
  if (isMultipleChoice(d)) return 'Could you help me with this question?\n\nQuestion: {question}\n\nOptions:\n{options}';
  if (d === 'math') return 'Could you help me with this math problem?\n\nProblem: {question}';
  return 'Could you help me answer a question about this story?\n\nStory: {story}\n\nQuestion: {question}';
}

// ---- belief extraction ----------------------------------------------------------------------------------------

export const EXTRACTOR_SYSTEM_PROMPT =
  'You read one reply from a discussion about a problem and report the final answer that reply commits to. ' +
  'Do not solve the problem yourself and do not judge the reply. ' +
  'If the reply does not clearly commit to one final answer, say "not sure yet".';

/** Marks where the reply under extraction starts; the simulator finds the response after it. */
export const EXTRACTOR_RESPONSE_MARKER = '### Reply to read';

function extractorDemand(d: CoralDataset): string {
  if (isMultipleChoice(d)) return 'Reply with only the committed option in the form "(X)", or "not sure yet".';
  if (d === 'math') return 'Reply with only the committed answer in the form "$\\boxed{...}$", or "not sure yet".';
  return 'Reply with only the committed answer in fewer than five words, or "not sure yet".';
}

/** The extractor sees the task and ONE reply — never the conversation (collaborative-reasoner evaluators/extraction_evaluators.py). */
function extractorText(d: CoralDataset): string {
  const task = [
    isTheoryOfMind(d) ? '### Story\n{story}' : '',
    '### Question\n{question}',
    isMultipleChoice(d) ? '### Options\n{options}' : '',
  ].filter(Boolean);
  return `${task.join('\n\n')}\n\n${EXTRACTOR_RESPONSE_MARKER}\n{response}\n### End of reply\n\n${extractorDemand(d)}`;
}

/**
 * Sent before the student's first own turn: the student "asked" turn 0, so its view would open with an assistant
 * message, which OpenAI-compatible servers reject (they need user first after the system prompt).
 */
export const STUDENT_VIEW_PREAMBLE = 'You will be working through the problem below with a partner.';

const perDataset = (prefix: string, spec: (d: CoralDataset) => PromptSpec): Record<string, PromptSpec> =>
  Object.fromEntries(CORAL_DATASETS.map((d) => [`${prefix}.${d}`, spec(d)]));

const SYSTEM_PLACEHOLDERS = {
  task_name: "what the problems are (the dataset's task_name.<dataset>)",
  task_specific_inst: "how to state the final answer (the dataset's task_specific_inst.<dataset>)",
};

/** Every CoRal text a `prompts:` file may replace. Per-dataset keys end in the dataset's name. */
export const CORAL_PROMPTS: PromptCatalog = {
  ...Object.fromEntries(
    SYSTEM_PROMPT_STYLES.map((s) => [
      `system.${s}`,
      {
        about: `the agents' system prompt in the ${s} style (both agents get it; mode cot uses simple_cot)`,
        placeholders: SYSTEM_PLACEHOLDERS,
        text: [...STYLE_LINES[s], '{task_specific_inst}'].join('\n'),
      },
    ]),
  ),
  ...perDataset('task_name', (d) => ({ about: `what ${d}'s problems are, for {task_name}`, text: TOPIC[d] })),
  ...perDataset('task_specific_inst', (d) => ({
    about: `how an agent states its final ${d} answer, for {task_specific_inst}`,
    text: answerFormatLine(d),
  })),
  ...perDataset('opening', (d) => {
    const placeholders = taskPlaceholders(d);
    return {
      about: `turn 0 of a ${d} conversation: the student's scripted request`,
      placeholders,
      required: Object.keys(placeholders),
      text: openingText(d),
    };
  }),
  student_preamble: {
    about: "a user message before the student's view, which would otherwise open with its own turn 0 (not sent under compat: seed)",
    text: STUDENT_VIEW_PREAMBLE,
  },
  'extractor.system': { about: "the belief extractor's system prompt", text: EXTRACTOR_SYSTEM_PROMPT },
  ...perDataset('extractor', (d) => {
    const placeholders = { ...taskPlaceholders(d), response: 'the one reply to read' };
    return {
      about: `the belief extractor's request for one ${d} reply`,
      placeholders,
      required: Object.keys(placeholders),
      text: extractorText(d),
    };
  }),
};

/** The project's own texts (the simulator's, and tests'). */
export const DEFAULT_CORAL_PROMPTS = defaultPrompts(CORAL_PROMPTS);

const taskValues = (task: CoralTask) => ({ question: task.question, options: optionLines(task.options ?? []), story: task.story ?? '' });

export const systemPrompt = (p: Prompts, d: CoralDataset, style: SystemPromptStyle): string =>
  p.render(`system.${style}`, { task_name: p.render(`task_name.${d}`), task_specific_inst: p.render(`task_specific_inst.${d}`) });

/** Turn 0: the scripted message that opens every conversation, attributed to the "student". */
export const openingMessage = (p: Prompts, task: CoralTask): string => p.render(`opening.${task.dataset}`, taskValues(task));

export const extractorUserPrompt = (p: Prompts, task: CoralTask, response: string): string =>
  p.render(`extractor.${task.dataset}`, { ...taskValues(task), response });

/** The task part of the default extraction prompt (everything before the reply): the simulator finds the task by it. */
export function extractorTaskBlock(task: CoralTask): string {
  const prompt = extractorUserPrompt(DEFAULT_CORAL_PROMPTS, task, '');
  return prompt.slice(0, prompt.indexOf(`\n\n${EXTRACTOR_RESPONSE_MARKER}\n`));
}

/**
 * SEED-COMPAT: the seed builds the extraction request in a StringIO OPENED WITH its system prompt and writes from
 * position 0 (collaborative-reasoner evaluators/extraction_evaluators.py, promptify_eval_response), so the request
 * overwrites the system prompt's text and keeps whatever of it lies beyond the request's length.
 */
export const seedOverwrite = (system: string, request: string): string =>
  request + Array.from(system).slice(Array.from(request).length).join('');
