// Maps an OpenAI-compatible endpoint's failure to a Temporal failure: 408/409/429/5xx, timeouts and connection
// resets are retryable (honouring retry-after-ms / retry-after), 400/401/403/404/422 are not — retrying a bad
// request or a wrong key only burns attempts. The message always names the endpoint.
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';

export interface ClassifiedError {
  retryable: boolean;
  type: string;
  message: string;
  retryAfterMs?: number;
}

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

export function classifyLlmError(err: unknown, endpoint: string): ClassifiedError {
  if (err instanceof OpenAI.APIConnectionTimeoutError)
    return { retryable: true, type: 'LlmTimeout', message: `${endpoint}: request timed out` };
  if (err instanceof OpenAI.APIConnectionError)
    return { retryable: true, type: 'LlmConnectionError', message: `${endpoint}: connection failed (${err.message})` };
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    const detail = `${endpoint}: HTTP ${status}: ${err.message}`;
    const should = err.headers?.get?.('x-should-retry');
    if (should === 'true' || should === 'false')
      return { retryable: should === 'true', type: `LlmHttp${status}`, message: detail, retryAfterMs: retryAfterMs(err.headers) };
    if (status === 429) return { retryable: true, type: 'LlmRateLimited', message: detail, retryAfterMs: retryAfterMs(err.headers) };
    if (status === 408 || status === 409 || status >= 500)
      return { retryable: true, type: 'LlmServerError', message: detail, retryAfterMs: retryAfterMs(err.headers) };
    if (status === 401 || status === 403)
      return { retryable: false, type: 'LlmAuthentication', message: `${detail} (check the env var named by apiKeyEnv)` };
    if (status === 404) return { retryable: false, type: 'LlmNotFound', message: `${detail} (check baseUrl and model)` };
    return { retryable: false, type: 'LlmBadRequest', message: detail };
  }
  if (err instanceof LlmBadResponse) return { retryable: true, type: 'LlmBadResponse', message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { retryable: true, type: 'LlmUnknownError', message: `${endpoint}: ${message}` };
}

/** The endpoint answered 200 with something that is not a usable chat completion. */
export class LlmBadResponse extends Error {
  override name = 'LlmBadResponse';
}

export function toTemporalFailure(c: ClassifiedError): ApplicationFailure {
  return ApplicationFailure.create({
    message: c.message,
    type: c.type,
    nonRetryable: !c.retryable,
    nextRetryDelay: c.retryAfterMs !== undefined ? Math.ceil(c.retryAfterMs) : undefined,
  });
}
