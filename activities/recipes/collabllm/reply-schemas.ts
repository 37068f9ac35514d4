// The JSON replies CollabLLM asks models for, as zod schemas, and how a reply is read on either path an endpoint
// offers (contracts/config-fields.ts STRUCTURED_OUTPUTS): `json_schema` sends the schema as OpenAI structured outputs
// and validates the reply with it (../shared/structured-reply.ts); `parse` asks in the prompt only and reads the
// reply leniently (json-reply.ts), as the seed's extract_json_reliable.py does. Either way a reply that cannot be read is re-asked by the caller, and the fields a re-ask names come from here.
import { z } from 'zod';
import type { Chat, ResponseFormatJsonSchema } from '../../llm/types';
import { structuredReply } from '../shared/structured-reply';
import { parseJsonReply } from './json-reply';

/** The user simulator's turn (prompts.ts simulator texts): its message to the assistant is `response`. */
export const simulatorReply = z.object({ current_answer: z.string(), thought: z.string(), response: z.string() });
/** A proactive candidate (prompts.ts proact texts). */
export const proactiveReply = z.object({ thought: z.string(), response: z.string() });
export const accuracyReply = z.object({ thought: z.string(), accuracy: z.number().int().min(0).max(1) });
export const interactivityReply = z.object({ thought: z.string(), interactivity: z.number().min(0).max(1) });
export const extractionReply = z.object({ thought: z.string(), final_completion: z.string() });

export interface ReplyReader {
  /** What the call sends: structured outputs, or nothing (the prompt asks for the JSON). */
  responseFormat?: ResponseFormatJsonSchema;
  /** The reply's object, or undefined when it cannot be read (the caller re-asks). */
  read(text: string): Record<string, unknown> | undefined;
  /** The schema's fields, for the re-ask notice. */
  fields: string[];
}

export function replyReader(chat: Chat, schema: z.ZodObject, name: string): ReplyReader {
  const fields = Object.keys(schema.shape);
  const structured = structuredReply(chat, schema, name);
  return structured
    ? { responseFormat: structured.responseFormat, read: (t) => structured.read(t) as Record<string, unknown> | undefined, fields }
    : { read: parseJsonReply, fields };
}
