// `response_format: {type: json_schema}` on the dry-run server (OpenAI API reference, "Structured Outputs"): as a
// server with guided decoding (vLLM, SGLang) always answers an object that fits the schema, the policy's reply is
// fitted to it — each property the reply's JSON object holds with a fitting value is kept, any other gets the
// schema's first admissible value (a string property the reply's plain text when the reply is not JSON). So a dry
// run with `structuredOutputs: json_schema` exercises the schema path and keeps the policy's answers.

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
};

/** The first JSON object in `text` (from its first `{` to its last `}`), or undefined. */
function objectIn(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return undefined;
  try {
    const v: unknown = JSON.parse(text.slice(start, end + 1));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function fits(v: unknown, s: Schema): boolean {
  if (s.const !== undefined) return v === s.const;
  if (s.enum) return s.enum.includes(v);
  if (s.anyOf) return s.anyOf.some((a) => fits(v, a));
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return types.some((t) => {
    if (t === 'string') return typeof v === 'string';
    if (t === 'boolean') return typeof v === 'boolean';
    if (t === 'null') return v === null;
    if (t === 'number' || t === 'integer')
      return (
        typeof v === 'number' &&
        Number.isFinite(v) &&
        (t === 'number' || Number.isInteger(v)) &&
        (s.minimum === undefined || v >= s.minimum) &&
        (s.maximum === undefined || v <= s.maximum)
      );
    if (t === 'array') return Array.isArray(v);
    if (t === 'object') return !!v && typeof v === 'object' && !Array.isArray(v);
    return t === undefined;
  });
}

function toFit(v: unknown, s: Schema, plain: string): unknown {
  if (s.type === 'object' && s.properties) {
    const o = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, toFit(o[k], p, plain)]));
  }
  if (fits(v, s)) return v;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf?.length) return toFit(v, s.anyOf[0], plain);
  const t = Array.isArray(s.type) ? s.type[0] : s.type;
  if (t === 'string') return plain;
  if (t === 'number' || t === 'integer') return s.minimum ?? 0;
  if (t === 'boolean') return false;
  if (t === 'array') return [];
  return null;
}

/** `text` as a JSON object fitting `schema` (the request's response_format.json_schema.schema). */
export function fitJsonSchema(text: string, schema: unknown): string {
  const parsed = objectIn(text);
  return JSON.stringify(toFit(parsed, (schema ?? {}) as Schema, parsed ? '' : text.trim()));
}

/** The schema a request's response_format asks its reply to fit, or undefined. */
export function requestedSchema(raw: Record<string, unknown>): unknown {
  const f = raw.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  return f?.type === 'json_schema' ? (f.json_schema?.schema ?? {}) : undefined;
}
