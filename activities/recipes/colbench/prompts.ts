// ColBench's prompts, in our own words after the seed's descriptions (sweet_rl environments, HumanInteractionEnv; sweet_rl, the agent side): the agents' system prompts,
// the human simulators' prompts (code: text; html: a vision message with two screenshots) and the SWEET-RL critic
// prompt. Every role has its own fixed system prompt: the simulated policy and a log reader tell requests apart by
// it, and no two are equal.
import type { ChatMessage, ImagePart, TextPart } from '../../llm/types';
import type { ColbenchCompat } from './compat';
import type { ColbenchKind } from './tasks';

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

export const agentSystemPrompt = (kind: ColbenchKind, compat: ColbenchCompat = 'fixed') =>
  kind === 'code' ? CODE_AGENT_SYSTEM_PROMPT : compat === 'seed' ? HTML_AGENT_SEED_SYSTEM_PROMPT : HTML_AGENT_SYSTEM_PROMPT;

/** A dialogue turn as records keep it: the agent's visible message, or the human's reply. */
export interface DialogueTurn {
  role: 'agent' | 'human';
  content: string;
}

/** The dialogue as plain text for the simulator and the critic (who are not parties to it). */
export function transcript(dialogue: readonly DialogueTurn[]): string {
  return dialogue.length ? dialogue.map((t) => `[${t.role}]\n${t.content}`).join('\n\n') : '(nothing yet)';
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

export function codeHumanMessages(problem: string, reference: string, dialogue: readonly DialogueTurn[]): ChatMessage[] {
  return [
    { role: 'system', content: CODE_HUMAN_SYSTEM_PROMPT },
    {
      role: 'user',
      content: `${REQUEST_HEADING}\n${problem}\n\n${HIDDEN_INFO_HEADING}\n${reference}\n\n${CONVERSATION_HEADING}\n${transcript(dialogue)}\n\n## Your reply\nWrite your next message to the agent, in exactly two sentences.`,
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
export function htmlHumanMessages(agentPng: Buffer | undefined, truthPng: Buffer): ChatMessage[] {
  const parts: Array<TextPart | ImagePart> = [{ type: 'text', text: "The designer's current draft:" }];
  parts.push(agentPng ? pngImagePart(agentPng) : { type: 'text', text: NO_DRAFT_NOTE });
  parts.push({ type: 'text', text: 'The page you want:' }, pngImagePart(truthPng));
  parts.push({ type: 'text', text: 'What are the most important visual differences the designer should fix next?' });
  return [
    { role: 'system', content: HTML_HUMAN_SYSTEM_PROMPT },
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

/** Candidates are numbered from 1 in the order given; the caller decides the order (rankCandidates shuffles it). */
export function criticMessages(
  problem: string,
  reference: string,
  dialogue: readonly DialogueTurn[],
  candidates: readonly string[],
): ChatMessage[] {
  const blocks = candidates.map((c, i) => `${CANDIDATE_HEADING(i + 1)}\n${c}`).join('\n\n');
  return [
    { role: 'system', content: CRITIC_SYSTEM_PROMPT },
    {
      role: 'user',
      content:
        `${CRITIC_TASK_HEADING}\n${problem}\n\n${CRITIC_REFERENCE_HEADING}\n${reference}\n\n` +
        `${CONVERSATION_HEADING}\n${transcript(dialogue)}\n\n## Candidate next messages from the agent\n${blocks}\n\n` +
        `Score all ${candidates.length} candidates, one line each: "Candidate <number>: <score>".`,
    },
  ];
}
