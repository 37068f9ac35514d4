// The connection to llm.sharedLimits.redis that endpoint limits (shared-limiter.ts) and budget ledgers
// (budget-ledger-redis.ts) use, and the one error either raises when that Redis cannot be used.
import { Redis } from 'ioredis';
import { LlmLimitError } from './errors';
import { REDIS_PASSWORD_ENV } from './shared-limits-config';

/** Commands fail after a few reconnection attempts instead of queueing while Redis is away. */
export function connectRedis(url: string): Redis {
  const r = new Redis(url, {
    password: process.env[REDIS_PASSWORD_ENV] || undefined,
    maxRetriesPerRequest: 2,
    connectTimeout: 5000,
    // A Redis that stops answering (a network partition) fails the command in seconds, not after TCP gives up.
    commandTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  r.on('error', () => {}); // surfaced by the failing command, as redisUnavailable()
  return r;
}

/** A retryable failure naming the Redis: the activity retries once it is back. */
export function redisUnavailable(url: string, what: string, err: unknown): LlmLimitError {
  const why = err instanceof Error ? err.message : String(err);
  return new LlmLimitError('SharedLimitsUnavailable', `${what}: cannot use the Redis at ${url} (llm.sharedLimits.redis): ${why}`);
}
