// A small OpenAI-compatible HTTP server (node:http) for three jobs:
//  (a) the dry-run model server of `deploy.kind: simulator` — answers come from a seeded SIMULATED policy,
//      never from a model (`owned_by: collab-loop-simulator`);
//  (b) the test endpoint that injects faults (429 / 500 / connection reset / hang) and counts requests by the
//      client's `x-collab-request-key`, so tests can prove that no request was paid twice;
//  (c) the benchmark endpoint with a fixed latency and capacity (ideal throughput = capacity ÷ latency).
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PolicyRequest {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  n: number;
  seed?: number;
  temperature: number;
  maxTokens: number;
}
export interface PolicyReply { texts: string[]; promptTokens: number; completionTokens: number[] }
export type Policy = (req: PolicyRequest) => PolicyReply;

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
const textOf = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));

/** Short deterministic replies derived from the last message: for benchmarks, where content does not matter. */
export const echoPolicy: Policy = (req) => {
  const last = textOf(req.messages[req.messages.length - 1]?.content);
  const texts = Array.from({ length: req.n }, (_, i) => `ack ${i} ${createHash('sha256').update(last).digest('hex').slice(0, 12)}`);
  return { texts, promptTokens: req.messages.reduce((a, m) => a + words(textOf(m.content)), 0), completionTokens: texts.map(words) };
};

export interface FaultOptions {
  rate: number;
  kinds: Array<'429' | '500' | 'reset' | 'timeout'>;
  seed?: number;
  retryAfterMs?: number;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  modelName: string;
  policy: Policy;
  latencyMs?: number;
  capacity?: number;
  faults?: FaultOptions;
  apiKey?: string;
}

export interface ServerStats {
  received: number;
  completed: number;
  faulted: number;
  /** Requests accepted and not yet answered (queued for capacity or being served). */
  inFlight: number;
  /** Most requests ever served at once (≤ capacity). */
  maxInService: number;
  byKey: Record<string, number>;
  duplicates: number;
}

export interface RunningServer {
  url: string;
  port: number;
  stats(): ServerStats;
  resetStats(): void;
  close(): Promise<void>;
}

/** mulberry32: a tiny seeded PRNG, so fault decisions are reproducible for a given seed and arrival order. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function canonicalKey(body: Record<string, unknown>): string {
  const pick = { model: body.model, messages: body.messages, temperature: body.temperature, top_p: body.top_p, max_tokens: body.max_tokens, seed: body.seed, n: body.n };
  return createHash('sha256').update(JSON.stringify(pick)).digest('hex');
}

export function startOpenAICompatibleServer(opts: ServerOptions): Promise<RunningServer> {
  const latency = opts.latencyMs ?? 0;
  const capacity = opts.capacity ?? Infinity;
  const rand = prng(opts.faults?.seed ?? 1);
  let stats: ServerStats;
  const resetStats = () => { stats = { received: 0, completed: 0, faulted: 0, inFlight: 0, maxInService: 0, byKey: {}, duplicates: 0 }; };
  resetStats();
  let busy = 0;
  const queue: Array<() => void> = [];
  const acquire = () => (busy < capacity ? (busy++, Promise.resolve()) : new Promise<void>((r) => queue.push(r)));
  const release = () => { const next = queue.shift(); if (next) next(); else busy--; };
  const sockets = new Set<import('node:net').Socket>();

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
    res.end(data);
  };
  const apiError = (res: http.ServerResponse, status: number, message: string, type: string, headers?: Record<string, string>) =>
    send(res, status, { error: { message, type, code: status } }, headers);

  async function chat(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    stats.received++;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw);
    } catch {
      return apiError(res, 400, 'request body is not valid JSON', 'invalid_request_error');
    }
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
      return apiError(res, 401, 'invalid or missing API key', 'authentication_error');
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return apiError(res, 400, '"messages" must be a non-empty array', 'invalid_request_error');
    if (body.stream) return apiError(res, 400, 'streaming is not supported by this server', 'invalid_request_error');
    if (body.model !== opts.modelName)
      return apiError(res, 404, `model "${String(body.model)}" not found; this server serves "${opts.modelName}"`, 'not_found_error');

    const f = opts.faults;
    if (f && f.rate > 0 && f.kinds.length && rand() < f.rate) {
      const kind = f.kinds[Math.floor(rand() * f.kinds.length)];
      stats.faulted++;
      if (kind === '429') {
        const ms = f.retryAfterMs ?? 50;
        return apiError(res, 429, 'rate limited (injected fault)', 'rate_limit_error', { 'retry-after-ms': String(ms), 'retry-after': String(Math.ceil(ms / 1000)) });
      }
      if (kind === '500') return apiError(res, 500, 'internal error (injected fault)', 'server_error');
      if (kind === 'reset') return req.socket.destroy();
      await new Promise((r) => setTimeout(r, 30_000));
      return req.socket.destroy();
    }

    const key = (req.headers['x-collab-request-key'] as string | undefined) ?? canonicalKey(body);
    stats.inFlight++;
    await acquire();
    stats.maxInService = Math.max(stats.maxInService, busy);
    try {
      if (latency > 0) await new Promise((r) => setTimeout(r, latency));
      const n = typeof body.n === 'number' && body.n > 0 ? body.n : 1;
      const reply = opts.policy({
        model: String(body.model),
        messages: body.messages as PolicyRequest['messages'],
        n,
        seed: typeof body.seed === 'number' ? body.seed : undefined,
        temperature: typeof body.temperature === 'number' ? body.temperature : 1,
        maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : 1024,
      });
      const completion = reply.completionTokens.reduce((a, b) => a + b, 0);
      const payload = {
        id: `chatcmpl-${key.slice(0, 16)}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: opts.modelName,
        choices: reply.texts.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null })),
        usage: { prompt_tokens: reply.promptTokens, completion_tokens: completion, total_tokens: reply.promptTokens + completion },
      };
      if (res.destroyed) return;
      send(res, 200, payload);
      await new Promise<void>((r) => (res.writableFinished ? r() : res.once('finish', () => r())));
      stats.completed++;
      const seen = stats.byKey[key] ?? 0;
      if (seen > 0) stats.duplicates++;
      stats.byKey[key] = seen + 1;
    } finally {
      stats.inFlight--;
      release();
    }
  }

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/health') return send(res, 200, { status: 'ok' });
    if (req.method === 'GET' && url === '/v1/models')
      return send(res, 200, { object: 'list', data: [{ id: opts.modelName, object: 'model', created: 0, owned_by: 'collab-loop-simulator' }] });
    if (req.method === 'GET' && url === '/stats') return send(res, 200, stats);
    if (req.method === 'POST' && url === '/stats/reset') { resetStats(); return send(res, 200, { ok: true }); }
    if (req.method === 'POST' && url === '/v1/chat/completions') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        chat(req, res, Buffer.concat(chunks).toString('utf8')).catch((err) => {
          if (!res.headersSent) apiError(res, 500, String((err as Error).message), 'server_error');
        });
      });
      return;
    }
    apiError(res, 404, `no route ${req.method} ${url}`, 'not_found_error');
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
        port,
        stats: () => structuredClone(stats),
        resetStats,
        close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
      });
    });
  });
}
