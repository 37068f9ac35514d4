// The JSON replies CollabLLM asks models for, as zod schemas, and how a reply is read on either path an endpoint
// offers (contracts/config-fields.ts STRUCTURED_OUTPUTS): `json_schema` sends the schema as OpenAI structured outputs
// and validates the reply with it (../shared/structured-reply.ts); `parse` asks in the prompt only and reads the
// reply leniently (json-reply.ts), as the seed's extract_json_reliable.py does. Either way a reply that cannot be read is re-asked by the caller, and the fields a re-ask names come from here.
import { z } from 'zod';
import type { Chat } from '../../llm/types';
import { type ReplyReader, replyReader } from '../shared/structured-reply';
import { parseJsonReply } from './json-reply';

/** The user simulator's turn (prompts.ts simulator texts): its message to the assistant is `response`. */
export const simulatorReply = z.object({ current_answer: z.string(), thought: z.string(), response: z.string() });
/** A proactive candidate (prompts.ts proact texts). */
export const proactiveReply = z.object({ thought: z.string(), response: z.string() });
export const accuracyReply = z.object({ thought: z.string(), accuracy: z.number().int().min(0).max(1) });
export const interactivityReply = z.object({ thought: z.string(), interactivity: z.number().min(0).max(1) });
export const extractionReply = z.object({ thought: z.string(), final_completion: z.string() });

/** A reader of a reply as its JSON object (shared/structured-reply.ts: by the schema or leniently, per endpoint). */
export function jsonReplyReader(chat: Chat, schema: z.ZodObject, name: string): ReplyReader<Record<string, unknown>> {
  return replyReader(chat, schema, name, { parse: parseJsonReply, pick: (r) => r as Record<string, unknown> });
}
