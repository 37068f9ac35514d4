// One JSON POST to a model server, once (createChat adds the cache and the retries; chat goes through the openai SDK
// over this file's `send`, sdk-fetch.ts): the request-cache key as
// `x-collab-request-key`, the endpoint's key as a bearer token, a per-request timeout. Its failures are the ones
// classifyLlmError (errors.ts) sorts into retryable or not: LlmHttpError for a non-2xx answer, LlmNoAnswer for a
// timeout or a failed connection, LlmBadResponse for a 2xx answer that is not JSON (named by `where`).
//
// Sent with node:http(s) over one keep-alive agent per process rather than fetch: at 512 requests in flight fetch
// (undici's WHATWG layer: streams, signals, header guards) cost a worker about 0.3 ms more CPU per request
// (`npm run bench`, llm-cpu). No redirects are followed and no compression is asked for, which model servers do
// not need. Cancellation of the activity reaches every request through one listener on its signal, not one each:
// adding a listener walks the signal's listeners, 512 of them.
import http from 'node:http';
import https from 'node:https';
import { LlmBadResponse, LlmHttpError, LlmNoAnswer } from './errors';

export interface PostOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** The request-cache key. */
  key: string;
  /** The endpoint's key; absent when none is configured. */
  apiKey?: string;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** The requests in flight under each cancellation signal, aborted together by the signal's one listener. */
const underSignal = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

export function onAbort(signal: AbortSignal, abort: (reason: unknown) => void): () => void {
  let set = underSignal.get(signal);
  if (!set) {
    const aborts = new Set<(reason: unknown) => void>();
    underSignal.set(signal, (set = aborts));
    signal.addEventListener('abort', () => {
      for (const a of aborts) a(signal.reason);
    });
  }
  set.add(abort);
  return () => set.delete(abort);
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One POST over the process's keep-alive agent: the answer whatever its status, or LlmNoAnswer (timeout, connection). */
export function send(
  url: URL,
  body: string,
  headers: Record<string, string>,
  o: Pick<PostOptions, 'signal' | 'timeoutMs'>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, { method: 'POST', agent: agents[url.protocol as keyof typeof agents], headers });
    let settled = false;
    const done = (err: unknown, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      forget?.();
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(answer!);
    };
    const timer = setTimeout(() => done(new LlmNoAnswer('timeout', `POST ${url.href}: no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    const forget = o.signal ? onAbort(o.signal, (reason) => done(reason)) : undefined;
    req.on('error', (err: NodeJS.ErrnoException) =>
      done(new LlmNoAnswer('connection', `POST ${url.href}: ${err.code ?? err.message}`, err.code)),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err: NodeJS.ErrnoException) => done(new LlmNoAnswer('connection', `POST ${url.href}: ${err.code ?? err.message}`)));
      res.on('end', () =>
        done(undefined, { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.end(body);
  });
}

/** The answer's headers as fetch gives them, for the status rules (Retry-After, x-should-retry). */
function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
  return h;
}

export async function postJson(url: string, body: unknown, o: PostOptions, where = `POST ${url}`): Promise<unknown> {
  if (o.signal?.aborted) throw o.signal.reason;
  const data = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(data)),
    'x-collab-request-key': o.key,
  };
  if (o.apiKey !== undefined) headers.authorization = `Bearer ${o.apiKey}`;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new LlmNoAnswer('connection', `POST ${url}: not a URL`);
  }
  const res = await send(target, data, headers, o);
  if (res.status < 200 || res.status >= 300)
    throw new LlmHttpError(res.status, toHeaders(res.headers), `POST ${url}: ${res.text.slice(0, 500)}`);
  try {
    return JSON.parse(res.text);
  } catch {
    throw new LlmBadResponse(`${where}: response is not JSON: ${JSON.stringify(res.text.slice(0, 120))}`);
  }
}
