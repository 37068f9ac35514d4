// Asking a model for a JSON reply whose `response` field is the message to use — the user simulator's turns and a
// proactive candidate's (the seed's user_simulator.py and llm_collaborator.py both read `response` and re-ask on a
// reply they cannot read). Chat errors propagate (the durable layer retries those); only bad output is re-asked.
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { addUsage } from '../../llm/usage';
import { hashSeed } from '../../seeded-random';
import type { z } from 'zod';
import { jsonReplyReader } from './reply-schemas';

export type JsonResponse =
  | { kind: 'ok'; response: string; usage: TokenUsage }
  /** No readable reply after every re-ask: the caller must not invent one. */
  | { kind: 'failed'; reason: string; attempts: number; usage: TokenUsage };

export interface AskJsonResponseOptions {
  chat: Chat;
  messages: ChatMessage[];
  decoding: Decoding;
  /** Re-asks after an unreadable reply. */
  parseRetries: number;
  /** sampleKey of the first call; re-asks use `${key}/retry-${i}`. */
  key: string;
  /** Names the asker in the failure reason and the argument error. */
  who: string;
  /** The reply's schema (reply-schemas.ts), with a string `response`; `name` names it to the server. */
  schema: z.ZodObject<{ response: z.ZodString }>;
  name: string;
}

export async function askJsonResponse(o: AskJsonResponseOptions): Promise<JsonResponse> {
  if (!Number.isInteger(o.parseRetries) || o.parseRetries < 0)
    throw new Error(`${o.who}: parseRetries must be a non-negative integer, got ${o.parseRetries}`);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const reader = jsonReplyReader(o.chat, o.schema, o.name);
  let last = '';
  for (let i = 0; i <= o.parseRetries; i++) {
    const sampleKey = i === 0 ? o.key : `${o.key}/retry-${i}`;
    // A re-ask with the same server seed would sample the same bad reply again.
    const decoding = i === 0 || o.decoding.seed === undefined ? o.decoding : { ...o.decoding, seed: hashSeed(o.decoding.seed, sampleKey) };
    const out = await o.chat({ messages: o.messages, decoding, sampleKey, responseFormat: reader.responseFormat });
    addUsage(usage, out.usage);
    last = out.texts[0] ?? '';
    const response = reader.read(last)?.response;
    if (typeof response === 'string' && response.trim() !== '') return { kind: 'ok', response: response.trim(), usage };
  }
  const attempts = o.parseRetries + 1;
  const excerpt = last.length > 200 ? `${last.slice(0, 200)}…` : last;
  return {
    kind: 'failed',
    reason: `${o.who}: no JSON object with a non-empty "response" in ${attempts} replies; last reply: ${JSON.stringify(excerpt)}`,
    attempts,
    usage,
  };
}
