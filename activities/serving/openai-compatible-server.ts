// A small OpenAI-compatible HTTP server (node:http) for three jobs:
//  (a) the dry-run model server of `deploy.kind: simulator` — a SIMULATOR: answers come from a seeded simulated
//      policy, never from a model (`/v1/models` says `owned_by: collab-loop-simulator`);
//  (b) the test endpoint that injects faults (429 / 500 / connection reset / hang) and counts successful answers
//      per request key (the client's `x-collab-request-key`), so tests can prove no request was paid twice;
//  (c) the benchmark endpoint with a fixed latency and capacity: ideal throughput = capacity ÷ latency, so the
//      per-request work outside the latency timer is kept to a minimum.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalJson } from '../llm/cache';
import { createFaultPlan, validateFaultOptions, type FaultOptions } from './faults';

export type { FaultOptions, FaultKind } from './faults';

export interface PolicyRequest {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  n: number;
  seed?: number;
  temperature: number;
  maxTokens: number;
}
export interface PolicyReply {
  texts: string[];
  promptTokens: number;
  completionTokens: number[];
}
export type Policy = ((req: PolicyRequest) => PolicyReply) & {
  /** The mean log-prob of the last (assistant) message given the others: answers vLLM's prompt_logprobs (below). */
  meanLogProb?: (req: { model: string; messages: PolicyRequest['messages'] }) => number;
};

/** The simulator's tokens: one per message header and one per word; `/tokenize` with add_generation_prompt adds the
 *  assistant header. So the prompt_logprobs after a prefix's count are exactly the last message's words. */
const simulatedTokens = (messages: PolicyRequest['messages'], addGenerationPrompt: boolean) =>
  messages.reduce((a, m) => a + 1 + words(textOf(m.content)), 0) + (addGenerationPrompt ? 1 : 0);

const textOf = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Short deterministic replies derived from the last message: for benchmarks, where content does not matter. */
export const echoPolicy: Policy = (req) => {
  const last = textOf(req.messages[req.messages.length - 1]?.content);
  const digest = createHash('sha256').update(last).digest('hex').slice(0, 12);
  const texts = Array.from({ length: req.n }, (_, i) => `echo ${digest} #${i}`);
  return { texts, promptTokens: req.messages.reduce((a, m) => a + words(textOf(m.content)), 0), completionTokens: texts.map(words) };
};

export interface ServerOptions {
  host?: string;
  /** 0 (default) = pick a free port. */
  port?: number;
  /** Requests must name exactly this model, as real servers (`transformers serve`, vLLM) require. */
  modelName: string;
  policy: Policy;
  /** How long each request holds its slot before it is answered (default 0). */
  latencyMs?: number;
  /** Most requests in service at once (default unlimited); the rest wait FIFO. */
  capacity?: number;
  faults?: FaultOptions;
  /** If set, `/v1/*` requires `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
}

export interface ServerStats {
  /** Chat-completion requests received (any outcome). */
  received: number;
  /** 200 responses fully written. */
  completed: number;
  /** Requests answered with an injected fault. */
  faulted: number;
  /** Requests holding a capacity slot right now (queued ones not included). */
  inFlight: number;
  /** Most requests ever in service at once since the last reset (≤ capacity). */
  maxInFlight: number;
  /** Successful (200) responses per request key. */
  byKey: Record<string, number>;
  /** 200 responses to a key that had already succeeded: calls paid twice. */
  duplicates: number;
}

export interface RunningServer {
  /** http://HOST:PORT (no trailing slash; the OpenAI base URL is `${url}/v1`). */
  url: string;
  port: number;
  stats(): ServerStats;
  resetStats(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const MAX_N = 128;
const DEFAULT_HOLD_MS = 30_000;

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

interface ChatBody {
  model: string;
  messages: PolicyRequest['messages'];
  n: number;
  seed?: number;
  temperature: number;
  maxTokens: number;
  raw: Record<string, unknown>;
}

const invalid = (message: string, param: string | null = null) => new RequestError(400, message, 'invalid_request_error', null, param);

function parseChatBody(text: string, modelName: string): ChatBody {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid('request body is not valid JSON');
  }
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

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)), ...headers });
  res.end(data);
}

function sendError(res: http.ServerResponse, e: RequestError, headers?: Record<string, string>): void {
  sendJson(res, e.status, { error: { message: e.message, type: e.type, param: e.param, code: e.code } }, headers);
}

export function startOpenAICompatibleServer(opts: ServerOptions): Promise<RunningServer> {
  const latencyMs = opts.latencyMs ?? 0;
  const capacity = opts.capacity ?? Infinity;
  if (!(latencyMs >= 0)) return Promise.reject(new RangeError(`latencyMs must be >= 0, got ${latencyMs}`));
  if (!(capacity >= 1)) return Promise.reject(new RangeError(`capacity must be >= 1, got ${capacity}`));
  if (opts.faults) {
    try {
      validateFaultOptions(opts.faults);
    } catch (err) {
      return Promise.reject(err);
    }
  }
  const nextFault = createFaultPlan(opts.faults);
  const retryAfterMs = opts.faults?.retryAfterMs ?? 50;
  const holdMs = opts.faults?.holdMs ?? DEFAULT_HOLD_MS;

  // Counters are reset by resetStats; `inService` and the queue are live state and never are.
  let c = { received: 0, completed: 0, faulted: 0, maxInFlight: 0, duplicates: 0, byKey: new Map<string, number>() };
  const resetStats = () => {
    c = { received: 0, completed: 0, faulted: 0, maxInFlight: inService, duplicates: 0, byKey: new Map() };
  };
  const stats = (): ServerStats => ({
    received: c.received,
    completed: c.completed,
    faulted: c.faulted,
    inFlight: inService,
    maxInFlight: c.maxInFlight,
    byKey: Object.fromEntries(c.byKey),
    duplicates: c.duplicates,
  });

  let inService = 0;
  const queue: Array<() => void> = [];
  const held = new Set<NodeJS.Timeout>();
  const models = { object: 'list', data: [{ id: opts.modelName, object: 'model', created: 0, owned_by: 'collab-loop-simulator' }] };

  function acquire(start: () => void): void {
    if (inService < capacity) {
      inService++;
      start();
    } else queue.push(start);
  }
  // Hands the slot straight to the next waiter, so capacity is never briefly exceeded or idle.
  function release(): void {
    const next = queue.shift();
    if (next) next();
    else inService--;
  }

  function fault(kind: ReturnType<typeof nextFault>, req: http.IncomingMessage, res: http.ServerResponse): void {
    c.faulted++;
    if (kind === '429') {
      const e = new RequestError(
        429,
        'Rate limit reached (injected fault); retry after the delay in retry-after-ms.',
        'requests',
        'rate_limit_exceeded',
      );
      sendError(res, e, { 'retry-after-ms': String(retryAfterMs), 'retry-after': String(Math.ceil(retryAfterMs / 1000)) });
      return;
    }
    if (kind === '500') {
      sendError(res, new RequestError(500, 'The server had an error processing your request (injected fault).', 'server_error', null));
      return;
    }
    // RST rather than FIN: the client sees ECONNRESET, as when a real server or proxy dies mid-request.
    if (kind === 'reset') return void req.socket.resetAndDestroy();
    // 'timeout': hang, then reset — the client's own timeout should fire first.
    const t = setTimeout(() => {
      held.delete(t);
      req.socket.resetAndDestroy();
    }, holdMs);
    held.add(t);
    res.once('close', () => {
      clearTimeout(t);
      held.delete(t);
    });
  }

  function serve(body: ChatBody, key: string, res: http.ServerResponse): void {
    let gone = false;
    res.once('close', () => {
      gone = true;
    });
    acquire(() => {
      if (gone) return release(); // the client gave up while queued: don't make the others wait for it
      if (inService > c.maxInFlight) c.maxInFlight = inService;
      const answer = () => {
        if (gone) return release();
        let payload: unknown;
        try {
          payload = body.raw.prompt_logprobs != null ? promptLogProbPayload(body) : completionPayload(body);
        } catch (err) {
          release();
          if (err instanceof RequestError) return sendError(res, err);
          return sendError(res, new RequestError(500, `policy failed: ${(err as Error).message}`, 'server_error', null));
        }
        // Count only once the whole response is handed to the socket: a 200 the client never got was not paid.
        res.once('finish', () => {
          c.completed++;
          const seen = c.byKey.get(key) ?? 0;
          if (seen > 0) c.duplicates++;
          c.byKey.set(key, seen + 1);
        });
        sendJson(res, 200, payload);
        release();
      };
      if (latencyMs > 0) setTimeout(answer, latencyMs);
      else answer();
    });
  }

  function completionPayload(body: ChatBody): unknown {
    const reply = opts.policy({
      model: body.model,
      messages: body.messages,
      n: body.n,
      seed: body.seed,
      temperature: body.temperature,
      maxTokens: body.maxTokens,
    });
    if (reply.texts.length !== body.n) throw new Error(`policy returned ${reply.texts.length} texts for n=${body.n}`);
    const completion = reply.completionTokens.reduce((a, b) => a + b, 0);
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: opts.modelName,
      choices: reply.texts.map((content, index) => ({
        index,
        message: { role: 'assistant', content },
        logprobs: null,
        finish_reason: 'stop',
      })),
      usage: { prompt_tokens: reply.promptTokens, completion_tokens: completion, total_tokens: reply.promptTokens + completion },
    };
  }

  // vLLM's prompt log-probs (activities/llm/logprob-api.ts asks them): every prompt token but the first gets an
  // entry; the last message's words get the policy's mean log-prob, the context's tokens -1.
  function promptLogProbPayload(body: ChatBody): unknown {
    const meanLogProb = opts.policy.meanLogProb;
    if (!meanLogProb) throw invalid('this server gives no prompt log-probs', 'prompt_logprobs');
    const last = body.messages.at(-1);
    if (last?.role !== 'assistant') throw invalid('prompt_logprobs needs a last assistant message', 'messages');
    const total = simulatedTokens(body.messages, false);
    const context = simulatedTokens(body.messages.slice(0, -1), true);
    const mean = meanLogProb({ model: body.model, messages: body.messages });
    const entry = (i: number, lp: number) => ({ [String(i)]: { logprob: lp, rank: 1, decoded_token: `t${i}` } });
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: opts.modelName,
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, logprobs: null, finish_reason: 'length' }],
      prompt_logprobs: Array.from({ length: total }, (_, i) => (i === 0 ? null : entry(i, i < context ? -1 : mean))),
      usage: { prompt_tokens: total, completion_tokens: 1, total_tokens: total + 1 },
    };
  }

  function tokenize(res: http.ServerResponse, text: string): void {
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(text) as Record<string, unknown>;
    } catch {
      sendError(res, invalid('request body is not valid JSON'));
      return;
    }
    if (!Array.isArray(b?.messages)) {
      sendError(res, invalid('"messages" must be an array', 'messages'));
      return;
    }
    const count = simulatedTokens(b.messages as PolicyRequest['messages'], b.add_generation_prompt !== false);
    sendJson(res, 200, { count, max_model_len: 1 << 20, tokens: [] });
  }

  function chat(req: http.IncomingMessage, res: http.ServerResponse, text: string): void {
    let body: ChatBody;
    try {
      body = parseChatBody(text, opts.modelName);
    } catch (err) {
      if (err instanceof RequestError) {
        sendError(res, err);
        return;
      }
      throw err;
    }
    const kind = nextFault();
    if (kind) {
      fault(kind, req, res);
      return;
    }
    const header = req.headers['x-collab-request-key'];
    serve(body, typeof header === 'string' && header ? header : bodyRequestKey(body.raw), res);
  }

  function readBody(req: http.IncomingMessage, res: http.ServerResponse, then: (text: string) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooBig)
        return sendError(res, new RequestError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`, 'invalid_request_error', null));
      then(Buffer.concat(chunks).toString('utf8'));
    });
  }

  const authorized = (req: http.IncomingMessage) => !opts.apiKey || req.headers.authorization === `Bearer ${opts.apiKey}`;

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    if (path.startsWith('/v1/') && !authorized(req)) {
      if (path === '/v1/chat/completions') c.received++;
      req.resume();
      return sendError(
        res,
        new RequestError(
          401,
          'Incorrect or missing API key: send "Authorization: Bearer <key>".',
          'invalid_request_error',
          'invalid_api_key',
        ),
      );
    }
    if (method === 'POST' && path === '/v1/chat/completions') {
      c.received++;
      return readBody(req, res, (text) => {
        try {
          chat(req, res, text);
        } catch (err) {
          if (!res.headersSent) sendError(res, new RequestError(500, String((err as Error).message), 'server_error', null));
        }
      });
    }
    if (method === 'POST' && path === '/tokenize') return readBody(req, res, (text) => tokenize(res, text));
    req.resume();
    if (method === 'GET' && path === '/health') return sendJson(res, 200, { status: 'ok' });
    if (method === 'GET' && path === '/v1/models') return sendJson(res, 200, models);
    if (method === 'GET' && path === `/v1/models/${opts.modelName}`) return sendJson(res, 200, models.data[0]);
    if (method === 'GET' && path === '/stats') return sendJson(res, 200, stats());
    if (method === 'POST' && path === '/stats/reset') {
      resetStats();
      return sendJson(res, 200, { status: 'ok' });
    }
    sendError(res, new RequestError(404, `no route ${method} ${path}`, 'invalid_request_error', 'not_found'));
  });
  // Keep-alive well past any client's idle time: a reconnect per request would distort the benchmark.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.requestTimeout = 0; // 'timeout' faults hold requests on purpose

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      for (const t of held) clearTimeout(t);
      held.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    }));

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const host = opts.host ?? '127.0.0.1';
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({ url: `http://${urlHost}:${port}`, port, stats, resetStats, close });
    });
  });
}
