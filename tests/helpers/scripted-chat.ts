// A Chat that answers with a function of the call and records every call: tests of the CollabLLM loop script the
// simulator, the policy and the judges with it (calls run concurrently, so replies depend on the call, never on order).
import type { Chat, ChatCall } from '../../activities/llm/types';

export type Scripted = Chat & { calls: ChatCall[] };

export function scripted(reply: (call: ChatCall) => string): Scripted {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    return { texts: [reply(call)], finishReasons: ['stop'], usage: { promptTokens: 10, completionTokens: 5 }, cached: false };
  };
  return Object.assign(chat, { calls });
}

/** The text of every message of a call, one per line. */
export const allText = (call: ChatCall) => call.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');

/** The user simulator's JSON reply. */
export const userJson = (response: string, thought = 'hmm') => JSON.stringify({ current_answer: '', thought, response });
