// Maps an endpoint's failure to a Temporal failure: 408/409/429/5xx, timeouts and connection resets are retryable
// (honouring retry-after-ms / retry-after), 400/401/403/404/422 are not — retrying a bad request or a wrong key only
// burns attempts. The message always names the endpoint. One set of rules for both ways the project calls a model:
// the openai SDK's errors (chat) and the errors of requests it posts itself (post-json.ts: scoring and log-prob APIs).
// Of the retryable ones, an endpoint that does not answer at all (connection refused or reset, a timeout) or whose
// proxy says it is gone (502/503/504) is marked `outage`: client.ts waits that out (llm.outageToleranceSeconds)
// rather than spending its few call retries on a restarting server.
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';

export interface ClassifiedError {
  retryable: boolean;
  type: string;
  message: string;
  retryAfterMs?: number;
  /** The endpoint is unreachable (down or restarting), as opposed to answering that it cannot serve this call now. */
  outage?: boolean;
  /** Nothing listens on the endpoint's port (ECONNREFUSED): for a loop-served endpoint, gone (served-gone.ts). */
  refused?: boolean;
}

/** Bad gateway, service unavailable, gateway timeout: what a proxy or a starting server answers while the model
 *  server behind it is down (RFC 9110 §15.6.3–15.6.5). */
const OUTAGE_STATUSES = new Set([502, 503, 504]);

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers || typeof headers.get !== 'function') return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** The status rules: the one place that decides whether an HTTP failure is worth another attempt. */
function classifyStatus(status: number, headers: Headers | undefined, detail: string): ClassifiedError {
  const should = headers?.get?.('x-should-retry');
  if (should === 'true' || should === 'false')
    return { retryable: should === 'true', type: `LlmHttp${status}`, message: detail, retryAfterMs: retryAfterMs(headers) };
  if (status === 429) return { retryable: true, type: 'LlmRateLimited', message: detail, retryAfterMs: retryAfterMs(headers) };
  if (status === 408 || status === 409 || status >= 500)
    return {
      retryable: true,
      type: 'LlmServerError',
      message: detail,
      retryAfterMs: retryAfterMs(headers),
      ...(OUTAGE_STATUSES.has(status) ? { outage: true } : {}),
    };
  if (status === 401 || status === 403)
    return {
      retryable: false,
      type: 'LlmAuthentication',
      message: `${detail} (check the env var named by apiKeyEnv; for a server the loop deployed, that every host has the same COLLAB_LOOP_SERVE_SECRET)`,
    };
  if (status === 404) return { retryable: false, type: 'LlmNotFound', message: `${detail} (check baseUrl and model)` };
  return { retryable: false, type: 'LlmBadRequest', message: detail };
}

export function classifyLlmError(err: unknown, endpoint: string): ClassifiedError {
  // The SDK wraps what its fetch (sdk-fetch.ts) threw: the LlmNoAnswer inside says timeout or which socket error.
  if (err instanceof OpenAI.APIConnectionError && err.cause instanceof LlmNoAnswer) err = err.cause;
  if (err instanceof OpenAI.APIConnectionTimeoutError || (err instanceof LlmNoAnswer && err.kind === 'timeout'))
    return { retryable: true, type: 'LlmTimeout', message: `${endpoint}: request timed out`, outage: true };
  if (err instanceof OpenAI.APIConnectionError || err instanceof LlmNoAnswer)
    return {
      retryable: true,
      type: 'LlmConnectionError',
      message: `${endpoint}: connection failed (${err.message})`,
      outage: true,
      ...(err instanceof LlmNoAnswer && err.code === 'ECONNREFUSED' ? { refused: true } : {}),
    };
  if (err instanceof OpenAI.APIError && typeof err.status === 'number')
    return classifyStatus(err.status, err.headers, `${endpoint}: HTTP ${err.status}: ${err.message}`);
  if (err instanceof LlmHttpError) return classifyStatus(err.status, err.headers, `${endpoint}: HTTP ${err.status}: ${err.message}`);
  if (err instanceof LlmBadResponse) return { retryable: true, type: 'LlmBadResponse', message: err.message };
  if (err instanceof LlmLimitError) return { retryable: err.retryable, type: err.type, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { retryable: true, type: 'LlmUnknownError', message: `${endpoint}: ${message}` };
}

/** A non-2xx answer to a request sent without the openai SDK (scoring APIs). The message says what was asked and
 *  what the server said; classifyLlmError applies the same status rules as to the SDK's errors. */
export class LlmHttpError extends Error {
  override name = 'LlmHttpError';
  constructor(
    readonly status: number,
    readonly headers: Headers | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** No answer at all to a request sent without the openai SDK: it timed out, or the connection failed or was reset
 *  (`code`: the socket's error code, e.g. ECONNREFUSED). */
export class LlmNoAnswer extends Error {
  override name = 'LlmNoAnswer';
  constructor(
    readonly kind: 'timeout' | 'connection',
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The endpoint answered 200 with something that is not a usable answer (a chat completion, or a finite score). */
export class LlmBadResponse extends Error {
  override name = 'LlmBadResponse';
}

/** The endpoint's limiter could not admit the call (activities/llm/limiter.ts): its shared Redis is unreachable
 *  (retryable), or the call alone needs more than the endpoint's tokensPerMinute (never admissible). */
export class LlmLimitError extends Error {
  override name = 'LlmLimitError';
  constructor(
    readonly type: 'SharedLimitsUnavailable' | 'LlmTokensPerMinute',
    message: string,
  ) {
    super(message);
  }
  get retryable(): boolean {
    return this.type === 'SharedLimitsUnavailable';
  }
}

export function toTemporalFailure(c: ClassifiedError): ApplicationFailure {
  return ApplicationFailure.create({
    message: c.message,
    type: c.type,
    nonRetryable: !c.retryable,
    nextRetryDelay: c.retryAfterMs !== undefined ? Math.ceil(c.retryAfterMs) : undefined,
  });
}
