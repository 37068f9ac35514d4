// OpenAI structured outputs for a recipe's JSON reply, on an endpoint with `structuredOutputs: json_schema`
// (contracts/config-fields.ts STRUCTURED_OUTPUTS): the request's `response_format` is built from the reply's zod
// schema by `zodResponseFormat` (openai/helpers/zod, which takes the project's zod 4 schemas) and the reply is
// validated with the same schema. Undefined on a `parse` endpoint: the recipe parses the reply by hand and re-asks.
import { zodResponseFormat } from 'openai/helpers/zod';
import type { z } from 'zod';
import type { Chat, ResponseFormatJsonSchema } from '../../llm/types';

export interface StructuredReply<T> {
  responseFormat: ResponseFormatJsonSchema;
  /** The reply as the schema's value, or undefined when it is not JSON fitting the schema (the caller re-asks). */
  read(text: string): T | undefined;
}

/** `name` names the schema to the server (letters, digits, _ and -). */
export function structuredReply<S extends z.ZodObject>(chat: Chat, schema: S, name: string): StructuredReply<z.infer<S>> | undefined {
  if (chat.structuredOutputs !== 'json_schema') return undefined;
  return {
    responseFormat: zodResponseFormat(schema, name) as ResponseFormatJsonSchema,
    read(text) {
      try {
        const r = schema.safeParse(JSON.parse(text));
        return r.success ? r.data : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
