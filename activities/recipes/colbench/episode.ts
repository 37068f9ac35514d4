// One ColBench episode (sweet_rl environments, HumanInteractionEnv): the agent talks with a simulated human who holds the hidden reference.
//  - Agent turn t (1..maxTurns): the agent sees agentMessages(system, problem, dialogue). Its completion is read by
//    readAgentReply: the text after `OUTPUT:` is the visible message. html: the first <html>…</html> (fallback
//    <body>…</body>) in it is rendered; that PNG is saved (saveImage → ref) and becomes the current answer.
//  - The episode ends when the visible message contains `I WANT TO ANSWER:` (code: the answer is the text after it)
//    or after the maxTurns-th agent turn, which is the answer even without the marker (code: the whole message;
//    html: the latest render). The human is never called after the final agent turn (≤ maxTurns − 1 human calls).
//  - Otherwise the human replies. code: a text prompt with the problem, the hidden reference and the transcript;
//    html: a vision message with this turn's render (or a note that there is none) and the ground-truth render
//    (rendered once, at the start). The reply is cut to 400 (code) / 1000 (html) characters.
//  - A human request the endpoint REJECTS (HTTP 400/413/422, e.g. a context overflow: non-retryable) becomes the
//    seed's "No response." and is counted in `humanNoResponse`. Every other error — 429/5xx/timeouts, and also
//    401/403/404, which are configuration mistakes — propagates: the client and Temporal retry the retryable ones,
//    and a misconfiguration must fail loudly instead of turning into a dialogue of "No response.".
//  - Render errors propagate too (the renderer turns a bad page into some PNG; a throw means the renderer broke).
//  - Seeds: each call's decoding seed comes from (seed, task, sampleIndex, turn) and its sampleKey names the sample,
//    turn and role, so a retried or resumed shard sends exactly the same requests (and finds them in the cache).
import type { Chat, Decoding, TokenUsage } from '../../llm/types';
import { hashSeed } from '../../seeded-random';
import { extractHtml, readAgentReply } from './agent-reply';
import { agentMessages } from './agent-view';
import type { Prompts } from '../prompt-texts';
import { agentSystemPrompt, codeHumanMessages, DEFAULT_MAX_AGENT_TURNS, htmlHumanMessages, type DialogueTurn } from './prompts';
import type { ColbenchCompat, RenderHtml, SaveImage } from './services';
import type { ColbenchKind, ColbenchTask } from './tasks';
import { addUsage } from '../../llm/usage';
import { totalTokens } from '../../llm/usage';

export const HUMAN_REPLY_LIMIT: Record<ColbenchKind, number> = { code: 400, html: 1000 };
export const NO_RESPONSE = 'No response.';

export interface ColbenchTurn extends DialogueTurn {
  /** Agent turns: the completion as generated, when it differs from `content` (thoughts before `OUTPUT:`). */
  raw?: string;
  /** html agent turns: the saved render of this turn's page. */
  image?: string;
  /** Human turns: the endpoint rejected the request and the seed's "No response." stands in. */
  noResponse?: true;
}

export interface ColbenchTrajectory {
  taskId: string;
  kind: ColbenchKind;
  sampleIndex: number;
  /** The agent's system prompt as sent, so data builders rebuild exactly what the agent saw. */
  system: string;
  /** The problem description: the agent's first user message. */
  problem: string;
  maxTurns: number;
  dialogue: ColbenchTurn[];
  /** code: the Python source the agent answered with. html: the ref of the latest render. null: none. */
  answer: string | null;
  /** The agent chose to answer (marker) rather than running out of turns. */
  answeredWithMarker: boolean;
  agentTurns: number;
  /** Human calls the endpoint rejected (replaced by "No response."). */
  humanNoResponse: number;
  usage: { agent: TokenUsage; human: TokenUsage };
}

export interface ColbenchEpisodeOptions {
  task: ColbenchTask;
  kind: ColbenchKind;
  /** The recipe's texts (prompts.ts, the kind's catalog, replaced by the config's `prompts:` file). */
  prompts: Prompts;
  agent: Chat;
  human: Chat;
  /** html only: page → PNG. */
  render?: RenderHtml;
  /** html only: PNG → ref kept in the record (the PNG itself never is). */
  saveImage?: SaveImage;
  maxTurns?: number;
  /** `seed` is set per request by this module; a caller's value is ignored. */
  agentDecoding: Decoding;
  humanDecoding: Decoding;
  sampleIndex: number;
  seed: number;
  /** Characters of a human reply kept; defaults to HUMAN_REPLY_LIMIT[kind]. */
  humanReplyLimit?: number;
  /** Which human-call errors become "No response." (default: isRejectedRequest). */
  isRejected?: (err: unknown) => boolean;
  /** Shapes the human's request (prompts.ts). Default 'fixed'. */
  compat?: ColbenchCompat;
}

/**
 * True for a request the endpoint refused as malformed (activities/llm/errors.ts maps 400/422 to a non-retryable
 * `LlmBadRequest`, or `LlmHttp4xx` when the server says not to retry). Read structurally, so this folder does not
 * depend on the Temporal SDK.
 */
export function isRejectedRequest(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { nonRetryable?: unknown; type?: unknown };
  return e.nonRetryable === true && typeof e.type === 'string' && (e.type === 'LlmBadRequest' || /^LlmHttp(400|413|422)$/.test(e.type));
}

export const colbenchRequestSeed = (role: 'agent' | 'human', seed: number, taskId: string, sampleIndex: number, turn: number) =>
  hashSeed('colbench', role, seed, taskId, sampleIndex, turn) % 2 ** 31;

const withoutSeed = ({ seed: _ignored, ...rest }: Decoding): Decoding => rest;
/** Python slices by code points; so do we. */
const truncate = (s: string, n: number) => (s.length <= n ? s : Array.from(s).slice(0, n).join(''));

export async function runColbenchEpisode(o: ColbenchEpisodeOptions): Promise<ColbenchTrajectory> {
  const { task, kind } = o;
  const maxTurns = o.maxTurns ?? DEFAULT_MAX_AGENT_TURNS;
  const where = `ColBench task ${task.id} sample ${o.sampleIndex}`;
  if (task.kind !== kind) throw new Error(`${where}: the task is a ${task.kind} task, the episode was asked to run it as ${kind}`);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new Error(`maxTurns must be a positive integer, got ${o.maxTurns}`);
  if (kind === 'html' && (!o.render || !o.saveImage)) throw new Error(`${where}: html episodes need render and saveImage`);
  const limit = o.humanReplyLimit ?? HUMAN_REPLY_LIMIT[kind];
  const isRejected = o.isRejected ?? isRejectedRequest;

  const compat = o.compat ?? 'fixed';
  const system = agentSystemPrompt(o.prompts);
  const dialogue: ColbenchTurn[] = [];
  const usage = { agent: { promptTokens: 0, completionTokens: 0 }, human: { promptTokens: 0, completionTokens: 0 } };
  let answer: string | null = null;
  let answeredWithMarker = false;
  let humanNoResponse = 0;
  let agentTurns = 0;
  // html: the picture the human compares against, rendered once per episode.
  const truthPng = kind === 'html' ? await o.render!(task.reference) : undefined;

  for (let turn = 1; turn <= maxTurns; turn++) {
    const out = await o.agent({
      messages: agentMessages(system, task.problem, dialogue),
      decoding: { ...withoutSeed(o.agentDecoding), seed: colbenchRequestSeed('agent', o.seed, task.id, o.sampleIndex, turn) },
      sampleKey: `s${o.sampleIndex}/t${turn}/agent`,
    });
    addUsage(usage.agent, out.usage);
    if (out.texts.length === 0) throw new Error(`${where} turn ${turn}: the agent returned no text`);
    agentTurns = turn;
    const reply = readAgentReply(out.texts[0]);
    const agentTurn: ColbenchTurn = { role: 'agent', content: reply.visible };
    if (reply.raw.trim() !== reply.visible) agentTurn.raw = reply.raw;

    let png: Buffer | undefined;
    if (kind === 'html') {
      const page = extractHtml(reply.visible);
      if (page !== null) {
        png = await o.render!(page);
        agentTurn.image = await o.saveImage!(png);
        answer = agentTurn.image;
      }
    }
    dialogue.push(agentTurn);

    const last = reply.marker || turn === maxTurns;
    if (last) {
      answeredWithMarker = reply.marker;
      if (kind === 'code') answer = reply.marker ? reply.afterMarker : reply.visible;
      break;
    }

    const messages =
      kind === 'code'
        ? codeHumanMessages(o.prompts, compat, task.problem, task.reference, dialogue)
        : htmlHumanMessages(o.prompts, compat, png, truthPng!);
    try {
      const h = await o.human({
        messages,
        decoding: { ...withoutSeed(o.humanDecoding), seed: colbenchRequestSeed('human', o.seed, task.id, o.sampleIndex, turn) },
        sampleKey: `s${o.sampleIndex}/t${turn}/human`,
      });
      addUsage(usage.human, h.usage);
      if (h.texts.length === 0) throw new Error(`${where} turn ${turn}: the human simulator returned no text`);
      dialogue.push({ role: 'human', content: truncate(h.texts[0], limit) });
    } catch (err) {
      if (!isRejected(err)) throw err;
      humanNoResponse++;
      dialogue.push({ role: 'human', content: NO_RESPONSE, noResponse: true });
    }
  }

  return {
    taskId: task.id,
    kind,
    sampleIndex: o.sampleIndex,
    system,
    problem: task.problem,
    maxTurns,
    dialogue,
    answer,
    answeredWithMarker,
    agentTurns,
    humanNoResponse,
    usage,
  };
}

/** Prompt + completion tokens of both roles. */
export const trajectoryTokens = (r: ColbenchTrajectory) => totalTokens(r.usage.agent) + totalTokens(r.usage.human);
