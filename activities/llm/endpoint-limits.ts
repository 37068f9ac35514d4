// What every endpoint limiter shares (limiter.ts per process, shared-limiter.ts across processes).
import type { TokenUsage } from './types';

/** tokensPerMinute counts the tokens admitted in any sliding window this long. */
export const TOKEN_WINDOW_MS = 60_000;

/** What a limiter needs of an endpoint (contracts/endpoint.ts's EndpointRef has it all). */
export interface LimitedEndpoint {
  baseUrl: string;
  model: string;
  maxConcurrency: number;
  tokensPerMinute?: number;
}

export interface EndpointLimiter {
  /** Sends once the endpoint has a free slot and room for `estimate` tokens; the answer's usage then replaces it. */
  run<T extends { usage: TokenUsage }>(estimate: number, signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T>;
}
