// A small OpenAI-compatible HTTP server (node:http) for three jobs:
//  (a) the dry-run model server of `deploy.kind: simulator` — a SIMULATOR: answers come from a seeded simulated
//      policy, never from a model (`/v1/models` says `owned_by: collab-loop-simulator`);
//  (b) the test endpoint that injects faults (429 / 500 / connection reset / hang) and counts successful answers
//      per request key (the client's `x-collab-request-key`), so tests can prove no request was paid twice;
//  (c) the benchmark endpoint with a fixed latency and capacity: ideal throughput = capacity ÷ latency, so the
//      per-request work outside the latency timer is kept to a minimum.
// This file checks the API key and dispatches; each route's handler is in ./openai-compatible/routes/.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FaultOptions, validateFaultOptions } from './faults';
import { CapacitySlots } from './openai-compatible/capacity-slots';
import { InjectedFaults } from './openai-compatible/injected-faults';
import { RequestError, type RouteHandler, sendError } from './openai-compatible/json-http';
import type { Policy } from './openai-compatible/policy';
import { CHAT_COMPLETIONS_PATH, chatCompletionsRoute } from './openai-compatible/routes/chat-completions';
import { EMBEDDINGS_PATH, embeddingsRoute } from './openai-compatible/routes/embeddings';
import { modelsRoutes } from './openai-compatible/routes/models';
import { statusRoutes } from './openai-compatible/routes/status';
import { tokenizeRoute } from './openai-compatible/routes/tokenize';
import { ServerCounters, type ServerStats } from './openai-compatible/server-stats';

export type { FaultOptions, FaultKind } from './faults';
export { bodyRequestKey } from './openai-compatible/chat-request';
export { echoPolicy, type Policy, type PolicyReply, type PolicyRequest } from './openai-compatible/policy';
export type { ServerStats } from './openai-compatible/server-stats';

export interface ServerOptions {
  host?: string;
  /** 0 (default) = pick a free port. */
  port?: number;
  /** Requests must name exactly this model, as real servers (`transformers serve`, vLLM) require. */
  modelName: string;
  policy: Policy;
  /** How long each request holds its slot before it is answered (default 0). */
  latencyMs?: number;
  /** A pace-gate file (../pace-gate.ts): the n-th chat request is served once it allows n. */
  answerGate?: string;
  /** Most requests in service at once (default unlimited); the rest wait FIFO. */
  capacity?: number;
  faults?: FaultOptions;
  /** If set, `/v1/*` requires `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
}

export interface RunningServer {
  /** http://HOST:PORT (no trailing slash; the OpenAI base URL is `${url}/v1`). */
  url: string;
  port: number;
  stats(): ServerStats;
  resetStats(): void;
  close(): Promise<void>;
}

export function startOpenAICompatibleServer(opts: ServerOptions): Promise<RunningServer> {
  const latencyMs = opts.latencyMs ?? 0;
  const capacity = opts.capacity ?? Infinity;
  const bad = optionError(latencyMs, capacity, opts.faults);
  if (bad) return Promise.reject(bad);
  const faults = new InjectedFaults(opts.faults);
  const slots = new CapacitySlots(capacity);
  const counters = new ServerCounters();
  const stats = () => counters.snapshot(slots.inService);
  const resetStats = () => counters.reset(slots.inService);
  const routes = new Map<string, RouteHandler>(
    Object.entries({
      [`POST ${CHAT_COMPLETIONS_PATH}`]: chatCompletionsRoute({
        modelName: opts.modelName,
        policy: opts.policy,
        latencyMs,
        answerGate: opts.answerGate,
        slots,
        faults,
        counters,
      }),
      'POST /tokenize': tokenizeRoute,
      [`POST ${EMBEDDINGS_PATH}`]: embeddingsRoute(opts.modelName),
      ...modelsRoutes(opts.modelName),
      ...statusRoutes(stats, resetStats),
    }),
  );
  const server = http.createServer((req, res) => dispatch(req, res, routes, opts.apiKey, counters));
  // Keep-alive well past any client's idle time: a reconnect per request would distort the benchmark.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.requestTimeout = 0; // 'timeout' faults hold requests on purpose

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      faults.releaseHeld();
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  const host = opts.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return listen(server, host, opts.port ?? 0).then((port) => ({ url: `http://${urlHost}:${port}`, port, stats, resetStats, close }));
}

/** Why the server cannot start with these options, if it cannot. */
function optionError(latencyMs: number, capacity: number, faults: FaultOptions | undefined): unknown {
  if (!(latencyMs >= 0)) return new RangeError(`latencyMs must be >= 0, got ${latencyMs}`);
  if (!(capacity >= 1)) return new RangeError(`capacity must be >= 1, got ${capacity}`);
  try {
    if (faults) validateFaultOptions(faults);
  } catch (err) {
    return err;
  }
  return undefined;
}

/** Checks the API key on `/v1/*`, then hands the request to its route, or answers 404. */
function dispatch(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  routes: Map<string, RouteHandler>,
  apiKey: string | undefined,
  counters: ServerCounters,
): void {
  const path = (req.url ?? '/').split('?')[0];
  const method = req.method ?? 'GET';
  if (path.startsWith('/v1/') && apiKey && req.headers.authorization !== `Bearer ${apiKey}`) {
    if (path === CHAT_COMPLETIONS_PATH) counters.received++;
    req.resume();
    sendError(
      res,
      new RequestError(
        401,
        'Incorrect or missing API key: send "Authorization: Bearer <key>".',
        'invalid_request_error',
        'invalid_api_key',
      ),
    );
    return;
  }
  const route = routes.get(`${method} ${path}`);
  if (route) {
    route(req, res);
    return;
  }
  req.resume();
  sendError(res, new RequestError(404, `no route ${method} ${path}`, 'invalid_request_error', 'not_found'));
}

/** Resolves with the port once the server listens. */
function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
