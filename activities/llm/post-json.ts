// One JSON POST to a model server, once (createChat adds the cache and the retries): the request-cache key as
// `x-collab-request-key`, the endpoint's key as a bearer token, a per-request timeout. Its failures are the ones
// classifyLlmError (errors.ts) sorts into retryable or not: LlmHttpError for a non-2xx answer, LlmNoAnswer for a
// timeout or a failed connection, LlmBadResponse for a 2xx answer that is not JSON (named by `where`).
import { LlmBadResponse, LlmHttpError, LlmNoAnswer } from './errors';

export interface PostOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** The request-cache key. */
  key: string;
  /** The endpoint's key; absent when none is configured. */
  apiKey?: string;
}

export async function postJson(url: string, body: unknown, o: PostOptions, where = `POST ${url}`): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-collab-request-key': o.key };
  if (o.apiKey !== undefined) headers.authorization = `Bearer ${o.apiKey}`;
  const timeout = AbortSignal.timeout(o.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: o.signal ? AbortSignal.any([o.signal, timeout]) : timeout,
    });
    text = await res.text();
  } catch (err) {
    if (o.signal?.aborted) throw err;
    if (timeout.aborted) throw new LlmNoAnswer('timeout', `POST ${url}: no answer within ${o.timeoutMs} ms`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new LlmNoAnswer(
      'connection',
      `POST ${url}: ${cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err))}`,
    );
  }
  if (res.status < 200 || res.status >= 300) throw new LlmHttpError(res.status, res.headers, `POST ${url}: ${text.slice(0, 500)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmBadResponse(`${where}: response is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
  }
}
