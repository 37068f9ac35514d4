// A chat-completion request as this server accepts it (OpenAI API reference, "Create chat completion"): validated
// into what the policy needs, and the key that tells two requests for the same answer apart from different ones.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { canonicalJson } from '../../llm/cache';
import { invalid, parseJson, RequestError } from './json-http';
import type { PolicyRequest } from './policy';

const MAX_N = 128;

export interface ChatBody {
  model: string;
  messages: PolicyRequest['messages'];
  n: number;
  seed?: number;
  temperature: number;
  maxTokens: number;
  raw: Record<string, unknown>;
}

export function parseChatBody(text: string, modelName: string): ChatBody {
  const raw = parseJson(text);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid('request body must be a JSON object');
  const b = raw as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model) throw invalid('"model" is required and must be a string', 'model');
  const msgs = b.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) throw invalid('"messages" must be a non-empty array', 'messages');
  msgs.forEach((m, i) => {
    if (!m || typeof m !== 'object' || typeof (m as { role?: unknown }).role !== 'string')
      throw invalid(`messages[${i}] must be an object with a string "role"`, `messages.${i}`);
  });
  if (b.stream === true) throw invalid('streaming is not supported by this server; send "stream": false', 'stream');
  const n = b.n ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_N) throw invalid(`"n" must be an integer in [1, ${MAX_N}]`, 'n');
  for (const f of ['temperature', 'top_p', 'max_tokens', 'seed'] as const)
    if (b[f] != null && typeof b[f] !== 'number') throw invalid(`"${f}" must be a number`, f);
  if (b.model !== modelName)
    throw new RequestError(
      404,
      `The model "${b.model}" does not exist on this server; it serves "${modelName}" (names must match exactly).`,
      'invalid_request_error',
      'model_not_found',
      'model',
    );
  return {
    model: b.model,
    messages: msgs as PolicyRequest['messages'],
    n,
    seed: typeof b.seed === 'number' ? b.seed : undefined,
    temperature: typeof b.temperature === 'number' ? b.temperature : 1,
    maxTokens: typeof b.max_tokens === 'number' ? b.max_tokens : 1024,
    raw: b,
  };
}

/** Fallback request key when the client sends no `x-collab-request-key`: what determines the answer, canonically. */
export function bodyRequestKey(b: Record<string, unknown>): string {
  const pick = {
    model: b.model,
    messages: b.messages,
    temperature: b.temperature,
    top_p: b.top_p,
    max_tokens: b.max_tokens,
    seed: b.seed,
    n: b.n,
  };
  return createHash('sha256').update(canonicalJson(pick)).digest('hex');
}

/** The key successful answers are counted under: the client's `x-collab-request-key`, else bodyRequestKey. */
export function requestKey(req: http.IncomingMessage, body: ChatBody): string {
  const header = req.headers['x-collab-request-key'];
  return typeof header === 'string' && header ? header : bodyRequestKey(body.raw);
}
