// How a tracker failure reaches Temporal: a tracker that is down or overloaded is retried (the loop's activity
// options bound it, and the loop goes on without it); one that refuses the request (bad address, bad token,
// unknown project) will refuse it again, so it fails at once with the config field to fix.
import { ApplicationFailure } from '@temporalio/common';

/** Retryable: connection refused/reset, 5xx, 429. */
export function trackerUnavailable(message: string): ApplicationFailure {
  return ApplicationFailure.retryable(message, 'TrackerUnavailable');
}

/** Not retryable: the config (or the worker's environment) must change. */
export function trackerConfigError(field: string, message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`${field}: ${message}`, 'ConfigError');
}

/** Classifies an HTTP answer that is not 2xx. */
export function httpFailure(field: string, what: string, status: number, body: string): ApplicationFailure {
  const detail = `${what} answered HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`;
  return status >= 500 || status === 429 || status === 408 ? trackerUnavailable(detail) : trackerConfigError(field, detail);
}
