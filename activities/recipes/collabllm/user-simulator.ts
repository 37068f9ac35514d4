// One turn of the simulated user (the seed's collabllm/modules/user_simulator.py). The simulator alone knows the
// hidden goal; what reaches the assistant is only the JSON `response` field, so the goal, the simulator's private
// `thought` and its `current_answer` summary never enter the assistant's history. With an empty history the
// simulator writes the opening message itself: the assistant never sees the single-turn prompt.
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import type { Prompts } from '../prompt-texts';
import { askJsonResponse } from './json-response';
import { simulatorReply } from './reply-schemas';
import { TERMINATE, userSimulatorRequest } from './prompts';

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
  const messages: ChatMessage[] = [
    { role: 'system', content: o.prompts.render('user.system') },
    { role: 'user', content: userSimulatorRequest(o.prompts, o.task, o.history) },
  ];
  const r = await askJsonResponse({ ...o, messages, who: 'user simulator', schema: simulatorReply, name: 'user_simulator_turn' });
  if (r.kind === 'failed') return r;
  if (r.response.includes(TERMINATE)) return { kind: 'terminate', text: r.response.replaceAll(TERMINATE, '').trim(), usage: r.usage };
  return { kind: 'message', text: r.response, usage: r.usage };
}
