// One turn of the simulated user (the seed's collabllm/modules/user_simulator.py). The simulator alone knows the
// hidden goal; what reaches the assistant is only the JSON `response` field, so the goal, the simulator's private
// `thought` and its `current_answer` summary never enter the assistant's history. With an empty history the
// simulator writes the opening message itself: the assistant never sees the single-turn prompt.
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { hashSeed } from '../../seeded-random';
import { parseJsonReply } from './json-reply';
import type { Prompts } from '../prompt-texts';
import { TERMINATE, userSimulatorRequest } from './prompts';
import { addUsage } from '../../llm/usage';

export type UserTurn =
  | { kind: 'message'; text: string; usage: TokenUsage }
  /** The simulator ended the chat; `text` is what it said besides the token (often empty). */
  | { kind: 'terminate'; text: string; usage: TokenUsage }
  /** No readable reply after every re-ask. Distinct from a real turn: the caller must not invent one. */
  | { kind: 'failed'; reason: string; attempts: number; usage: TokenUsage };

export interface SimulateUserOptions {
  chat: Chat;
  /** The recipe's texts (user.system, user.request). */
  prompts: Prompts;
  task: { description: string; goal: string };
  /** The conversation so far, as the assistant sees it (system messages are dropped for the simulator). */
  history: ChatMessage[];
  /** The seed samples the simulator at temperature 1. */
  decoding: Decoding;
  /** Re-asks after an unreadable reply (the seed allows 10, verl 3). */
  parseRetries: number;
  /** sampleKey of the first call; re-asks use `${key}/retry-${i}`. */
  key: string;
}

export async function simulateUserTurn(o: SimulateUserOptions): Promise<UserTurn> {
  if (!Number.isInteger(o.parseRetries) || o.parseRetries < 0)
    throw new Error(`user simulator: parseRetries must be a non-negative integer, got ${o.parseRetries}`);
  const messages: ChatMessage[] = [
    { role: 'system', content: o.prompts.render('user.system') },
    { role: 'user', content: userSimulatorRequest(o.prompts, o.task, o.history) },
  ];
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  let last = '';
  for (let i = 0; i <= o.parseRetries; i++) {
    const sampleKey = i === 0 ? o.key : `${o.key}/retry-${i}`;
    // A re-ask with the same server seed would sample the same bad reply again.
    const decoding = i === 0 || o.decoding.seed === undefined ? o.decoding : { ...o.decoding, seed: hashSeed(o.decoding.seed, sampleKey) };
    // Chat errors propagate: the durable layer retries those; only bad output is handled here.
    const out = await o.chat({ messages, decoding, sampleKey });
    addUsage(usage, out.usage);
    last = out.texts[0] ?? '';
    const response = parseJsonReply(last)?.response;
    if (typeof response !== 'string' || response.trim() === '') continue;
    if (response.includes(TERMINATE)) return { kind: 'terminate', text: response.replaceAll(TERMINATE, '').trim(), usage };
    return { kind: 'message', text: response.trim(), usage };
  }
  const attempts = o.parseRetries + 1;
  const excerpt = last.length > 200 ? `${last.slice(0, 200)}…` : last;
  return {
    kind: 'failed',
    reason: `user simulator: no JSON object with a non-empty "response" in ${attempts} replies; last reply: ${JSON.stringify(excerpt)}`,
    attempts,
    usage,
  };
}
