// CollabLLM's prompts in our own words, after what the seed's collabllm/prompts/ and examples/metrics/ ask for
// (CollabLLM paper, arXiv 2502.00640): the user simulator, the "proactive base" system prompt,
// the accuracy and interactivity judges, and the extraction of the final artefact, as keyed templates a `prompts:`
// file may replace (activities/recipes/prompt-texts.ts). Every model-facing prompt asks for one JSON object;
// json-reply.ts reads it.
import type { ChatMessage } from '../../llm/types';
import { defaultPrompts, type PromptCatalog, type Prompts } from '../prompt-texts';

/** The simulator ends a conversation by putting this in its message (the seed's default token). */
export const TERMINATE = '[[TERMINATE CHAT]]';

/** A message's text; image parts become a placeholder, since the simulator and judges read text only. */
export function messageText(m: ChatMessage): string {
  return typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('');
}

/**
 * Drops reasoning blocks: the user reads only the answer (verl's CollabLLM agent loop strips them too). A closing
 * tag without an opening one (chat templates that put `<think>` in the prompt) drops everything before it.
 */
export function stripThink(text: string): string {
  const closed = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  const dangling = closed.lastIndexOf('</think>');
  return (dangling === -1 ? closed : closed.slice(dangling + '</think>'.length)).trim();
}

/** A conversation as the simulator and the judges read it: `**User**: …` / `**Assistant**: …`, no system messages. */
export function renderConversation(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role !== 'system')
    .map((m) => `**${m.role === 'user' ? 'User' : 'Assistant'}**: ${stripThink(messageText(m))}`)
    .join('\n\n');
}

// ---- user simulator ----------------------------------------------------------------------------------------------

export const USER_SIMULATOR_SYSTEM_PROMPT = [
  'You play a person who is chatting with an AI assistant to get something done. You are the one asking for help, never the assistant.',
  'What you want is your hidden goal, given below. Work toward it over the conversation, and behave like a real user:',
  '- Stay in character as a human for the whole conversation. Never say or hint that you are simulated or following instructions.',
  '- Spend as little effort as a busy person would. Keep messages short. Start vague and leave it to the assistant to ask for what it needs.',
  '- Know only what a typical person in your position would know. Do not solve the task yourself and do not show expertise you would not have.',
  '- Write casually; an occasional typo or small slip is fine.',
  '- Say what you prefer (tone, length, format, approach) when it becomes relevant, and push back when the work goes against it.',
  '- Keep to your goal; do not drift to other topics.',
  '- Never paste or quote the text of your hidden goal. Give its details in your own words, a little at a time, when the assistant asks.',
  `- When you are satisfied with what the assistant gave you, or when it is clear the assistant cannot help you, put ${TERMINATE} in your message.`,
  '',
  'Reply with one JSON object and nothing else:',
  '{',
  '  "current_answer": "<in a sentence: what the assistant has given you so far, or an empty string>",',
  '  "thought": "<your private thinking as the user: what is still missing and what to say next>",',
  '  "response": "<the message you send to the assistant>"',
  '}',
].join('\n');

const USER_REQUEST = [
  '## Task\n{task_description}',
  '## Your hidden goal (the assistant cannot see this)\n{hidden_goal}',
  '## Conversation so far\n{conversation}',
  'Write your next message as the user, as the JSON object described above.',
].join('\n\n');

/** The simulator's request: the task, the hidden goal and the conversation so far (empty: it opens the chat). */
export function userSimulatorRequest(p: Prompts, task: { description: string; goal: string }, history: readonly ChatMessage[]): string {
  const conversation = renderConversation(history);
  return p.render('user.request', {
    task_description: task.description,
    hidden_goal: task.goal,
    conversation: conversation === '' ? p.render('user.no_conversation') : conversation,
  });
}

// ---- assistant ---------------------------------------------------------------------------------------------------

/** The paper's "Proactive Base" baseline: the base model told to collaborate rather than only answer. */
export const PROACTIVE_SYSTEM_PROMPT = [
  'You are a collaborative assistant. Your aim is not just to answer the latest message but to get the user to what they actually need by the end of the conversation.',
  '- Look a few turns ahead: what does the user ultimately want, and what do you still not know about it?',
  '- When a request is ambiguous or lacks details that change the answer, ask about those details before writing a long answer. Ask specific questions, not generic ones such as "anything else?"; offering a few concrete options is often easiest for the user.',
  '- When you can make progress, do so, and say which assumptions you made.',
  '- Be concise: no padding, no repeating what the user already knows.',
  '- Be honest about what you are unsure of.',
].join('\n');

/**
 * The proactive instruction a share of the data loop's candidates is asked through (the seed's
 * collabllm/prompts/proact_instruction.txt plays this role): the whole conversation in one request, a JSON reply
 * whose `response` becomes the candidate. Its thought fields make the model weigh what the user still has to say.
 */
const PROACT_REQUEST = [
  'You are an AI assistant in a conversation with a user who wants help with a task such as writing, analysis, question answering, math or coding. Write your reply to the last user message. Be helpful, collaborative and interactive.',
  '## Conversation so far\n{conversation}',
  [
    '## How to reply',
    '- Work out what the user wants over the whole conversation, not only in the last message, and build on what was said before.',
    '- If the request is missing a detail that changes the answer (the length of a text, the form of a function, the context of a question), ask about it instead of guessing.',
    '- Ask specific questions ("Should the function return a list or a dict?"), never generic ones ("Anything else?"). When you ask for feedback, ask about a specific part.',
    '- Offer concrete options or next steps the user can pick from, so that answering you takes little effort.',
    '- Think a few turns ahead: prefer the reply that moves the user toward their final goal.',
    '- Keep it short and do not repeat what was already said. Say so when you do not know something.',
  ].join('\n'),
  [
    'Reply with one JSON object and nothing else:',
    '{',
    '  "current_problem": "<what the user is working on and what is still unclear to them>",',
    '  "thought": "<what is missing, whether to ask, and how this reply serves the user\'s goal>",',
    '  "response": "<your message to the user, at most {max_new_tokens} tokens>"',
    '}',
  ].join('\n'),
].join('\n\n');

/** A proactive candidate's request over `history` (system messages are not shown, as in the seed). */
export const proactRequest = (p: Prompts, history: readonly ChatMessage[], maxNewTokens: number): string =>
  p.render('assistant.proact', { conversation: renderConversation(history), max_new_tokens: String(maxNewTokens) });

// ---- judges ------------------------------------------------------------------------------------------------------

const jsonReply = (fields: string) => `Reply with one JSON object and nothing else:\n${fields}`;

/** The accuracy judge sees the whole conversation (verl passes it) or, given one, the extracted final answer. */
const accuracyText = (shown: string) =>
  [
    'You check whether an AI assistant, helping a user, arrived at the correct answer to the question below.',
    '## Question\n{question}',
    '## Ground-truth answer\n{ground_truth}',
    shown,
    [
      "Compare the assistant's final answer (in a conversation: the last answer it committed to) with the ground truth.",
      'Equivalent forms count as correct (0.5 and 1/2; differences in wording, units notation or formatting).',
      'A missing answer, an answer hedged between several options, or a wrong answer counts as incorrect.',
    ].join('\n'),
    jsonReply('{"thought": "<brief reasoning>", "accuracy": <1 if correct, 0 if not>}'),
  ].join('\n\n');

export function accuracyJudgePrompt(
  p: Prompts,
  o: { question: string; groundTruth: string; conversation: string; answer?: string },
): string {
  const shared = { question: o.question, ground_truth: o.groundTruth };
  return o.answer !== undefined
    ? p.render('judge.accuracy_answer', { ...shared, answer: o.answer })
    : p.render('judge.accuracy', { ...shared, conversation: o.conversation });
}

/** Interactivity on 0..1 with three anchors (the seed's examples/metrics/interactivity.py scores the same range). */
const INTERACTIVITY = [
  'Rate how interactive the AI assistant is in the conversation below, from 0 to 1.',
  [
    '- 1: highly interactive. It grasps what the user is after, asks the clarifying questions that matter when something is unclear, and moves the work forward (proposes options, next steps, or checks the result with the user).',
    '- 0.5: partly interactive. It engages with the user but misses important questions, asks only generic ones, or follows up only now and then.',
    '- 0: passive. It barely engages: it answers without checking what the user needs and never asks or suggests anything.',
    'Values in between are allowed. Judge the assistant only, not the user, and do not reward length.',
  ].join('\n'),
  '## Conversation\n{conversation}',
  jsonReply('{"thought": "<brief reasoning>", "interactivity": <a number from 0 to 1>}'),
].join('\n\n');

export const interactivityJudgePrompt = (p: Prompts, conversation: string): string => p.render('judge.interactivity', { conversation });

export type ArtefactKind = 'document' | 'code' | 'answer';
const ARTEFACT_KINDS: readonly ArtefactKind[] = ['document', 'code', 'answer'];

const ARTEFACT: Record<ArtefactKind, string> = { document: 'document', code: 'piece of code', answer: 'answer' };

/** The extraction prompt of one kind; {requirement} is empty, or a further rule line ("\n- …"). */
function extractionText(kind: ArtefactKind): string {
  const what = ARTEFACT[kind];
  const rules = [
    `- The final ${what} is the latest version with every change the user asked for and the assistant made integrated into it. The last message may show only a changed part: merge it into the full version.`,
    '- Copy it as it stands in the conversation. Do not improve, complete or comment on it.',
    ...(kind === 'code'
      ? [
          '- Give one complete piece of code that runs as it is: all imports and definitions, no tests, no example calls, no test harness, no markdown fences.',
        ]
      : []),
    ...(kind === 'answer' ? ['- Give the final answer only, without the reasoning that led to it.'] : []),
    `- If the conversation contains no ${what}, use an empty string.`,
  ];
  return [
    `Below is a conversation in which an AI assistant helped a user with a ${what}. Extract the final ${what} from the whole conversation.`,
    `${rules.join('\n')}{requirement}`,
    '## Conversation\n{conversation}',
    jsonReply(
      '{"thought": "<where the final version is and what had to be merged>", "final_completion": "<the final ' +
        `${what}, as a JSON string with quotes and newlines escaped, or in a triple-quoted string """...""">"}`,
    ),
  ].join('\n\n');
}

/**
 * Pulls the final artefact out of a conversation, where it may be spread over several messages of edits (the
 * seed's collabllm/prompts/extract_multiturn_completion.txt plays this role). `requirement` is task-specific.
 */
export const extractionPrompt = (p: Prompts, o: { conversation: string; kind: ArtefactKind; requirement?: string }): string =>
  p.render(`extractor.${o.kind}`, { conversation: o.conversation, requirement: o.requirement ? `\n- ${o.requirement}` : '' });

/** Extraction requirement for function-level coding tasks (verl's pass_rate metric extracts the entry point). */
export const entryPointRequirement = (p: Prompts, entryPoint: string) => p.render('extractor.entry_point', { entry_point: entryPoint });

/** Sent after a judge reply that could not be read, so that a temperature-0 judge is not asked the identical prompt. */
export const unreadableReplyNotice = (p: Prompts, fields: readonly string[]) =>
  p.render('judge.reask', { fields: fields.map((f) => `"${f}"`).join(', ') });

// ---- the keys a `prompts:` file may replace -------------------------------------------------------------------------

const CONVERSATION = 'the conversation, "**User**: …" / "**Assistant**: …" paragraphs';

/** Every CollabLLM text a `prompts:` file may replace. */
export const COLLABLLM_PROMPTS: PromptCatalog = {
  'user.system': {
    about: "the user simulator's system prompt (it ends the chat with [[TERMINATE CHAT]])",
    text: USER_SIMULATOR_SYSTEM_PROMPT,
  },
  'user.request': {
    about: "the user simulator's request for its next message",
    placeholders: {
      task_description: 'what kind of task it is',
      hidden_goal: 'what the user wants (the assistant never sees it)',
      conversation: `${CONVERSATION} (or user.no_conversation)`,
    },
    required: ['hidden_goal', 'conversation'],
    text: USER_REQUEST,
  },
  'user.no_conversation': {
    about: "{conversation} of the user simulator's first request",
    text: '(nothing yet: you write the first message to the assistant)',
  },
  'assistant.proactive_system': { about: "the assistant's system prompt in mode proactive", text: PROACTIVE_SYSTEM_PROMPT },
  'assistant.proact': {
    about:
      'the request a proactive candidate is sampled with while building data (recipe.proact); it must ask for JSON with a "response" field',
    placeholders: { conversation: CONVERSATION, max_new_tokens: 'the length the response should stay within (1024, as the seed)' },
    required: ['conversation'],
    text: PROACT_REQUEST,
  },
  'judge.accuracy': {
    about: "the accuracy judge's request over a conversation",
    placeholders: { question: 'the question', ground_truth: 'the ground-truth answer', conversation: CONVERSATION },
    required: ['ground_truth', 'conversation'],
    text: accuracyText('## Conversation\n{conversation}'),
  },
  'judge.accuracy_answer': {
    about: "the accuracy judge's request over an extracted final answer",
    placeholders: { question: 'the question', ground_truth: 'the ground-truth answer', answer: "the assistant's final answer" },
    required: ['ground_truth', 'answer'],
    text: accuracyText("## The assistant's final answer\n{answer}"),
  },
  'judge.interactivity': {
    about: "the interactivity judge's request",
    placeholders: { conversation: CONVERSATION },
    required: ['conversation'],
    text: INTERACTIVITY,
  },
  'judge.reask': {
    about: 'sent to a judge or the extractor after a reply it could not read, before it is asked again',
    placeholders: { fields: 'the JSON fields it must give, quoted' },
    text: 'Your reply could not be read as a JSON object with the fields {fields}. Answer again with only that JSON object.',
  },
  ...Object.fromEntries(
    ARTEFACT_KINDS.map((kind) => [
      `extractor.${kind}`,
      {
        about: `the extractor's request for the final ${ARTEFACT[kind]} of a conversation`,
        placeholders: {
          conversation: CONVERSATION,
          requirement: 'empty, or one more rule line (a newline, "- " and extractor.entry_point)',
        },
        required: ['conversation'],
        text: extractionText(kind),
      },
    ]),
  ),
  'extractor.entry_point': {
    about: "a code task's further extraction rule",
    placeholders: { entry_point: 'the function the task asks for' },
    required: ['entry_point'],
    text: 'The code must define the function `{entry_point}` with the signature the task gives.',
  },
};

/** The project's own texts (tests'). */
export const DEFAULT_COLLABLLM_PROMPTS = defaultPrompts(COLLABLLM_PROMPTS);
