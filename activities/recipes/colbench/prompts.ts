// ColBench's prompts, in our own words after the seed's descriptions (sweet_rl environments, HumanInteractionEnv;
// sweet_rl, the agent side), as keyed templates a `prompts:` file may replace (activities/recipes/prompt-texts.ts):
// the agents' system prompts, the human simulators' prompts (code: text; html: a vision message with two screenshots)
// and the SWEET-RL critic prompt. The placeholders of the human's request are the names the seed's
// prompts/human_simulator_code_prompt.txt uses. Every role's default system prompt is its own: the simulated policy
// and a log reader tell requests apart by it, and no two are equal.
import type { ChatMessage, ImagePart, TextPart } from '../../llm/types';
import { defaultPrompts, type PromptCatalog, type Prompts } from '../prompt-texts';
import type { ColbenchCompat } from './compat';

/** Starts the agent's final answer (code: the Python source follows it). Exactly the seed's marker. */
export const ANSWER_MARKER = 'I WANT TO ANSWER:';
/** Separates an html agent's private thoughts from the message the user sees. */
export const OUTPUT_MARKER = 'OUTPUT:';

/** The seed's cap: at most this many agent messages, the last of which is the answer. */
export const DEFAULT_MAX_AGENT_TURNS = 10;

export const CODE_AGENT_SYSTEM_PROMPT = [
  'You are helping a person write one Python function tailored to their own situation.',
  'Their first message is vague on purpose: the exact rules they need (thresholds, rates, rounding, special cases, the inputs and what to return) are known only to them.',
  'Find those rules by asking short, simple questions, one or two per message; the person answers in two sentences and cannot read code.',
  `You may send at most ${DEFAULT_MAX_AGENT_TURNS} messages in total, your answer included, so make every question count, and keep your messages brief.`,
  `When you are ready, begin your message with "${ANSWER_MARKER}" and follow it with nothing but the Python function as raw source code.`,
].join('\n');

/**
 * The Tailwind stylesheet the reference pages (WebSight v0.2) link; the renderer serves this build from memory
 * (activities/render/tailwind-cdn.ts), so an agent told this link styles its page exactly as the references are.
 */
export const TAILWIND_LINK_URL = 'https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css';
/** The one picture the seed allows, at any size (sweet_rl prompts/llm_agent_html_prompt.txt); rendered as a placeholder. */
export const PICTURE_URL = 'https://picsum.photos/id/48/<width>/<height>';

export const HTML_AGENT_SYSTEM_PROMPT = [
  'You are a web designer building one web page for a client who has a specific design in mind.',
  'Each message you send proposes one complete page, a full <html>...</html> document; the client only ever sees a screenshot of it and can only comment on what the screenshot shows.',
  `Style the page with Tailwind CSS 2 classes, loaded by <link rel="stylesheet" href="${TAILWIND_LINK_URL}"> in its head, and with your own CSS (a <style> element or style attributes) where classes are not enough.`,
  `Pictures may only come from ${PICTURE_URL}, with the size you want in pixels in place of the two placeholders. Nothing else can be loaded: no other stylesheets, scripts, fonts or images.`,
  "Fill the page with realistic text for the client's business rather than placeholders.",
  `Think briefly first; then write "${OUTPUT_MARKER}" and, after it, the message the client receives, containing your page.`,
  `You may send at most ${DEFAULT_MAX_AGENT_TURNS} messages. When the page is what the client wants, write "${OUTPUT_MARKER}" then "${ANSWER_MARKER}" followed by the final page.`,
].join('\n');

/**
 * `compat: seed`: the seed's instructions in our words (sweet_rl prompts/llm_agent_html_prompt.txt) — Tailwind CSS
 * with no word on how to load it, picture 48 only — so the agent is steered as the paper's agent was.
 */
export const HTML_AGENT_SEED_SYSTEM_PROMPT = [
  'You are an assistant helping a person build a complete website with a pleasing design, written in HTML styled with Tailwind CSS.',
  'Put the page inside an <html> element, and write real, substantial sentences about the business.',
  `Pictures are optional; any you use must come from ${PICTURE_URL}, with the size you want in pixels in place of the two placeholders; always keep picture 48.`,
  'The design is personal to this person, so expect several rounds of revision.',
  'Each message may hold at most one HTML page (inside an <html> element). It is rendered and the person sees only its screenshot; they answer by saying how it differs from the page they have in mind, so they cannot answer questions asked in words.',
  'Make the page match what they want in every respect: overall layout, navigation bar, background colours and so on.',
  `You have at most ${DEFAULT_MAX_AGENT_TURNS} exchanges and must give your final page before they run out; you are judged on that page and on how few exchanges you needed.`,
  `Once you know enough, begin your message with "${ANSWER_MARKER}" followed by the final page.`,
  `First write down what you are still unsure about in the person's wishes; then write "${OUTPUT_MARKER}" followed by the page you propose.`,
].join('\n');

/** The agent's system prompt. The seed's text names `{dialogue_history}` but the seed never fills it; we leave it
 *  empty in both modes (fidelity.ts). */
export const agentSystemPrompt = (p: Prompts) => p.render('agent.system', { dialogue_history: '' });

/** A dialogue turn as records keep it: the agent's visible message, or the human's reply. */
export interface DialogueTurn {
  role: 'agent' | 'human';
  content: string;
}

/** The dialogue as plain text for the simulator and the critic (who are not parties to it). */
export function transcript(dialogue: readonly DialogueTurn[]): string {
  return dialogue.length ? dialogue.map((t) => `[${t.role}]\n${t.content}`).join('\n\n') : '(nothing yet)';
}

/**
 * SEED-COMPAT: the dialogue as the seed's human reads it (sweet_rl sweet_rl/environments/human_interaction_env.py,
 * str_dialogue_history): the problem as the first "user" entry, every entry `role:content` and four newlines, the
 * agent as "assistant", and "agent:" at the end.
 */
export function seedDialogueHistory(problem: string, dialogue: readonly DialogueTurn[]): string {
  const entries = [
    { role: 'user', content: problem },
    ...dialogue.map((t) => ({ role: t.role === 'agent' ? 'assistant' : 'user', content: t.content })),
  ];
  return `${entries.map((e) => `${e.role}:${e.content}\n\n\n\n`).join('')}agent:`;
}

// ---- human simulators -----------------------------------------------------------------------------------------

export const CODE_HUMAN_SYSTEM_PROMPT = [
  'You play a person who asked an AI agent for a Python function and now answers its questions.',
  'You know exactly what you need because you are shown the function that does it, marked as hidden information; the agent cannot see it.',
  "Answer the agent's latest message using only facts you can read from the hidden function: values, thresholds, rates, rounding, special cases, inputs and outputs.",
  "If the hidden function does not settle the question, say that you don't know. Never show code or quote the function; describe the rule in everyday words.",
  'Reply in exactly two sentences and nothing else.',
].join('\n');

export const HIDDEN_INFO_HEADING = '## Hidden information (only you can see it)';
export const REQUEST_HEADING = '## What you asked for';
export const CONVERSATION_HEADING = '## The conversation so far';

const CODE_HUMAN_REQUEST = `${REQUEST_HEADING}\n{problem_description}\n\n${HIDDEN_INFO_HEADING}\n{hidden_information}\n\n${CONVERSATION_HEADING}\n{dialogue_history}\n\n## Your reply\nWrite your next message to the agent, in exactly two sentences.`;

export function codeHumanMessages(
  p: Prompts,
  compat: ColbenchCompat,
  problem: string,
  reference: string,
  dialogue: readonly DialogueTurn[],
): ChatMessage[] {
  // SEED-COMPAT: the dialogue as the seed's human reads it (seedDialogueHistory).
  const history = compat === 'seed' ? seedDialogueHistory(problem, dialogue) : transcript(dialogue);
  return [
    { role: 'system', content: p.render('human.system') },
    {
      role: 'user',
      content: p.render('human.request', { problem_description: problem, hidden_information: reference, dialogue_history: history }),
    },
  ];
}

export const HTML_HUMAN_SYSTEM_PROMPT = [
  'You play a client reviewing drafts of a web page with a designer.',
  "You are shown the designer's current draft (if any) and the page you actually want, both as screenshots.",
  'Tell the designer the most noticeable concrete differences between the two: layout and order of sections, sizes, alignment, spacing, colours, fonts and text.',
  'Speak as the client about what you want changed; do not write code and do not mention screenshots.',
].join('\n');

export const NO_DRAFT_NOTE = 'The designer has not shown a page in this message.';

/** A PNG as an OpenAI image part (data URL). */
export const pngImagePart = (png: Buffer): ImagePart => ({
  type: 'image_url',
  image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
});

/** The vision request: the agent's render of this turn (or a note) and the ground-truth render. */
export function htmlHumanMessages(p: Prompts, compat: ColbenchCompat, agentPng: Buffer | undefined, truthPng: Buffer): ChatMessage[] {
  const text = (key: string): TextPart => ({ type: 'text', text: p.render(key) });
  if (compat === 'seed') {
    // SEED-COMPAT: one user message and no system message; the instructions are its first text, the draft's intro
    // comes only with a draft, and the message ends with the wanted page (sweet_rl
    // sweet_rl/environments/human_design_interaction_env.py, invoke_model).
    const draft = agentPng ? [text('human.draft_intro'), pngImagePart(agentPng)] : [text('human.no_draft')];
    return [{ role: 'user', content: [text('human.instructions'), ...draft, text('human.target_intro'), pngImagePart(truthPng)] }];
  }
  const parts: Array<TextPart | ImagePart> = [text('human.draft_intro')];
  parts.push(agentPng ? pngImagePart(agentPng) : text('human.no_draft'));
  parts.push(text('human.target_intro'), pngImagePart(truthPng), text('human.question'));
  return [
    { role: 'system', content: p.render('human.instructions') },
    { role: 'user', content: parts },
  ];
}

// ---- SWEET-RL critic --------------------------------------------------------------------------------------------

export const CRITIC_SYSTEM_PROMPT = [
  'You judge candidate next messages from an AI agent that is working with a person on a task.',
  'You are given the reference solution the person needs. The agent cannot see it; you use it to judge which candidate does most to bring the final result closer to it.',
  'A strong candidate asks about a rule, value or special case the reference depends on that the conversation has not settled yet, or gives an answer that behaves exactly like the reference.',
  'A weak candidate asks about things the reference does not depend on, repeats settled questions, answers too early, or gives an answer that differs from the reference.',
  'Score every candidate from 0 (useless or harmful) to 10 (the best possible next message), judging each on its own merits.',
  'Reply with exactly one line per candidate, in the form "Candidate <number>: <score>", and nothing else.',
].join('\n');

export const CRITIC_TASK_HEADING = '## The task as the person stated it';
export const CRITIC_REFERENCE_HEADING = '## Reference solution (hidden from the agent)';
export const CANDIDATE_HEADING = (i: number) => `### Candidate ${i}`;

const CRITIC_REQUEST =
  `${CRITIC_TASK_HEADING}\n{problem_description}\n\n${CRITIC_REFERENCE_HEADING}\n{hidden_information}\n\n` +
  `${CONVERSATION_HEADING}\n{dialogue_history}\n\n## Candidate next messages from the agent\n{candidates}\n\n` +
  'Score all {candidate_count} candidates, one line each: "Candidate <number>: <score>".';

/** Candidates are numbered from 1 in the order given; the caller decides the order (rankCandidates shuffles it). */
export function criticMessages(
  p: Prompts,
  problem: string,
  reference: string,
  dialogue: readonly DialogueTurn[],
  candidates: readonly string[],
): ChatMessage[] {
  const blocks = candidates.map((c, i) => `${CANDIDATE_HEADING(i + 1)}\n${c}`).join('\n\n');
  return [
    { role: 'system', content: p.render('critic.system') },
    {
      role: 'user',
      content: p.render('critic.request', {
        problem_description: problem,
        hidden_information: reference,
        dialogue_history: transcript(dialogue),
        candidates: blocks,
        candidate_count: candidates.length,
      }),
    },
  ];
}

// ---- the keys a `prompts:` file may replace -------------------------------------------------------------------------

const DIALOGUE = 'the dialogue so far';
const agentKey = (text: string, seedText?: string) => ({
  'agent.system': {
    about: "the agent's system prompt (its first user message is the task's problem description)",
    placeholders: { dialogue_history: "accepted because the seed's agent prompt names it; the seed never fills it, so it stays empty" },
    text,
    ...(seedText ? { seedText } : {}),
  },
});
const CRITIC_KEYS: PromptCatalog = {
  'critic.system': {
    about: 'the SWEET-RL judge critic\'s system prompt (it answers "Candidate <number>: <score>" lines)',
    text: CRITIC_SYSTEM_PROMPT,
  },
  'critic.request': {
    about: "the judge critic's request: one state's candidate next agent messages to score",
    placeholders: {
      problem_description: "the task as the person stated it (the agent's first message)",
      hidden_information: 'the reference (hidden from the agent)',
      dialogue_history: DIALOGUE,
      candidates: 'the candidates, each under "### Candidate <number>"',
      candidate_count: 'how many candidates there are',
    },
    required: ['hidden_information', 'candidates'],
    text: CRITIC_REQUEST,
  },
};

/** colbench-code: every text a `prompts:` file may replace. */
export const COLBENCH_CODE_PROMPTS: PromptCatalog = {
  ...agentKey(CODE_AGENT_SYSTEM_PROMPT),
  'human.system': { about: "the simulated human's system prompt", text: CODE_HUMAN_SYSTEM_PROMPT },
  'human.request': {
    about: "the simulated human's request for its next reply",
    placeholders: {
      problem_description: "the task as the person stated it (the agent's first message)",
      hidden_information: 'the reference function only the human sees',
      dialogue_history: `${DIALOGUE} (compat: seed — the seed's own layout, the problem first and "agent:" at the end)`,
    },
    required: ['hidden_information', 'dialogue_history'],
    text: CODE_HUMAN_REQUEST,
  },
  ...CRITIC_KEYS,
};

/** colbench-html: every text a `prompts:` file may replace. */
export const COLBENCH_HTML_PROMPTS: PromptCatalog = {
  ...agentKey(HTML_AGENT_SYSTEM_PROMPT, HTML_AGENT_SEED_SYSTEM_PROMPT),
  'human.instructions': {
    about: "the simulated human's instructions: its system prompt (compat: seed — the first text of its one user message)",
    text: HTML_HUMAN_SYSTEM_PROMPT,
  },
  'human.draft_intro': { about: "the text before the agent's render", text: "The designer's current draft:" },
  'human.no_draft': { about: "the text in place of the agent's render when its message held no page", text: NO_DRAFT_NOTE },
  'human.target_intro': { about: 'the text before the render of the wanted page', text: 'The page you want:' },
  'human.question': {
    about: "the human's closing question (not sent under compat: seed)",
    text: 'What are the most important visual differences the designer should fix next?',
  },
  ...CRITIC_KEYS,
};

/** The project's own texts (the simulator's, and tests'). */
export const DEFAULT_COLBENCH_PROMPTS = {
  code: defaultPrompts(COLBENCH_CODE_PROMPTS),
  html: defaultPrompts(COLBENCH_HTML_PROMPTS),
  htmlSeed: defaultPrompts(COLBENCH_HTML_PROMPTS, 'seed'),
};
