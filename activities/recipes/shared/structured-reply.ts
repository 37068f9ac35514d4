// How a recipe reads a JSON reply, on either path an endpoint offers (contracts/config-fields.ts
// STRUCTURED_OUTPUTS). `json_schema`: OpenAI structured outputs — the request's `response_format` is built from the
// reply's zod schema by `zodResponseFormat` (openai/helpers/zod, which takes the project's zod 4 schemas) and the
// reply is validated with the same schema. `parse`: the prompt alone asks for the JSON and the recipe's own lenient
// parser reads it. Either way a reply that cannot be read is undefined, and the caller re-asks.
import { zodResponseFormat } from 'openai/helpers/zod';
import type { z } from 'zod';
import type { Chat, ResponseFormatJsonSchema } from '../../llm/types';

export interface ReplyReader<T> {
  /** What the call sends: structured outputs, or nothing (the prompt asks for the JSON). */
  responseFormat?: ResponseFormatJsonSchema;
  /** The reply's value, or undefined when it cannot be read (the caller re-asks). */
  read(text: string): T | undefined;
  /** The schema's fields, for a re-ask notice. */
  fields: string[];
}

/** `name` names the schema to the server (letters, digits, _ and -); `parse` reads a reply on a `parse` endpoint;
 *  `pick` takes the value wanted from a reply that fits the schema. */
export function replyReader<S extends z.ZodObject, T>(
  chat: Chat,
  schema: S,
  name: string,
  o: { parse: (text: string) => T | undefined; pick: (reply: z.infer<S>) => T },
): ReplyReader<T> {
  const fields = Object.keys(schema.shape);
  if (chat.structuredOutputs !== 'json_schema') return { read: o.parse, fields };
  return {
    responseFormat: zodResponseFormat(schema, name) as ResponseFormatJsonSchema,
    read(text) {
      try {
        const r = schema.safeParse(JSON.parse(text));
        return r.success ? o.pick(r.data) : undefined;
      } catch {
        return undefined;
      }
    },
    fields,
  };
}
