// How many requests an endpoint gets at once, and how many tokens per minute. Without llm.sharedLimits: a FIFO
// semaphore and a token window per endpoint per worker process, shared by every shard running there. With it: one
// Redis holds both for every process of every run (shared-limiter.ts), so N workers together stay within the limit.
import { setTimeout as delay } from 'node:timers/promises';
import { LlmLimitError } from './errors';
import { type EndpointLimiter, type LimitedEndpoint, TOKEN_WINDOW_MS } from './endpoint-limits';
import type { SharedLimitsConfig } from './shared-limits-config';
import { sharedEndpointLimiter } from './shared-limiter';
import type { ChatCall, TokenUsage } from './types';
import { totalTokens } from './usage';

/** What a call may cost, reserved before it is sent and settled with its real usage after: prompt characters / 4
 *  (text parts; an image's tokens show only in the usage) plus the most it may generate. */
export function estimateUsage(call: ChatCall, n: number): TokenUsage {
  let chars = 0;
  for (const m of call.messages)
    if (typeof m.content === 'string') chars += m.content.length;
    else for (const p of m.content) if (p.type === 'text') chars += p.text.length;
  return { promptTokens: Math.ceil(chars / 4), completionTokens: call.decoding.maxTokens * n };
}

export const estimateTokens = (call: ChatCall, n: number): number => totalTokens(estimateUsage(call, n));

/** A FIFO semaphore. */
export class Semaphore {
  private waiters: Array<() => void> = [];
  private active = 0;
  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    }
  }
}

interface Admitted {
  at: number;
  tokens: number;
  gone: boolean;
}

/** Tokens admitted in the last minute of this process: the sum over any 60 s window stays ≤ limit (when answers
 *  use no more than their estimates). */
class TokenWindow {
  private admitted: Admitted[] = [];
  private total = 0;
  constructor(private readonly limit: number) {}

  async admit(tokens: number, signal: AbortSignal | undefined): Promise<Admitted> {
    for (;;) {
      const now = Date.now();
      while (this.admitted.length && this.admitted[0].at <= now - TOKEN_WINDOW_MS) {
        const old = this.admitted.shift()!;
        old.gone = true;
        this.total -= old.tokens;
      }
      if (this.total + tokens <= this.limit) {
        const a = { at: now, tokens, gone: false };
        this.admitted.push(a);
        this.total += tokens;
        return a;
      }
      let need = this.total + tokens - this.limit;
      const until = this.admitted.find((a) => (need -= a.tokens) <= 0)!;
      await delay(Math.max(1, until.at + TOKEN_WINDOW_MS - now), undefined, { signal });
    }
  }

  settle(a: Admitted, tokens: number): void {
    if (a.gone) return;
    this.total += tokens - a.tokens;
    a.tokens = tokens;
  }
}

function localLimiter(e: LimitedEndpoint): EndpointLimiter {
  const slots = new Semaphore(e.maxConcurrency);
  const window = e.tokensPerMinute ? new TokenWindow(e.tokensPerMinute) : undefined;
  return {
    run: (estimate, signal, send) =>
      slots.run(async () => {
        const admitted = await window?.admit(estimate, signal);
        const answer = await send();
        if (admitted) window!.settle(admitted, totalTokens(answer.usage));
        return answer;
      }),
  };
}

const perEndpoint = new Map<string, EndpointLimiter>();

/** The limiter of an endpoint in this process: one per endpoint and limits, so every shard shares it. */
export function endpointLimiter(e: LimitedEndpoint, shared?: SharedLimitsConfig): EndpointLimiter {
  const key = JSON.stringify([e.baseUrl, e.model, e.maxConcurrency, e.tokensPerMinute, shared]);
  let inner = perEndpoint.get(key);
  if (!inner) perEndpoint.set(key, (inner = shared ? sharedEndpointLimiter(e, shared) : localLimiter(e)));
  const limiter = inner;
  return {
    async run(estimate, signal, send) {
      if (e.tokensPerMinute && estimate > e.tokensPerMinute)
        throw new LlmLimitError(
          'LlmTokensPerMinute',
          `${e.baseUrl}: a call of about ${estimate} tokens (prompt characters / 4 + max tokens) can never fit in tokensPerMinute ${e.tokensPerMinute}`,
        );
      return limiter.run(estimate, signal, send);
    },
  };
}
