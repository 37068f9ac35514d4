// Endpoint limits held in one Redis for every process of every run (llm.sharedLimits), as LiteLLM's router keeps
// its rpm/tpm across instances in Redis. Each call takes a ticket: shared-limits-script.ts grants tickets first come
// first served while the endpoint has a free slot (and tokens), as leases that this process renews every third of
// leaseSeconds while the call runs — a killed worker's slots come back when its leases lapse. A process holds two
// connections whatever its number of waiters: one for the script, one that block-pops the grants other processes'
// releases hand to it, so a waiter starts as soon as a slot frees (no polling).
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { type EndpointLimiter, type LimitedEndpoint, TOKEN_WINDOW_MS } from './endpoint-limits';
import type { LlmLimitError } from './errors';
import type { SharedLimitsConfig } from './shared-limits-config';
import { connectRedis, redisUnavailable } from './redis-connection';
import { SHARED_LIMITS_LUA } from './shared-limits-script';
import { totalTokens } from './usage';

type Reply = [number, ...string[]];

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** An endpoint's identity in Redis: base URL + model, with a loopback host (a loop-served model) qualified by this
 *  host's name, so two hosts' 127.0.0.1:8000 are two endpoints. */
export function endpointIdentity(e: { baseUrl: string; model: string }): string {
  const url = new URL(e.baseUrl);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
  return `${loopback ? `${os.hostname()}/` : ''}${e.baseUrl.replace(/\/+$/, '')}#${e.model}`;
}

class SharedEndpoint implements EndpointLimiter {
  readonly held = new Set<string>();
  readonly waiting = new Set<string>();
  tokenTimer?: NodeJS.Timeout;
  readonly prefix: string;
  constructor(
    readonly limits: SharedLimits,
    readonly endpoint: LimitedEndpoint,
  ) {
    this.prefix = `collab-loop:limits:{${createHash('sha256').update(endpointIdentity(endpoint)).digest('hex').slice(0, 16)}}`;
  }

  async run<T extends { usage: { promptTokens: number; completionTokens: number } }>(
    estimate: number,
    signal: AbortSignal | undefined,
    send: () => Promise<T>,
  ): Promise<T> {
    const ticket = await this.limits.acquire(this, this.endpoint.tokensPerMinute ? estimate : 0, signal);
    let used = -1;
    try {
      const answer = await send();
      used = totalTokens(answer.usage);
      return answer;
    } finally {
      this.limits.release(this, ticket, used);
    }
  }
}

class SharedLimits {
  private readonly redis: Redis;
  private blocking?: Redis;
  private readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly grantsKey = `collab-loop:limits:grants:${this.owner}`;
  private next = 0;
  private readonly waiters = new Map<string, Waiter & { endpoint: SharedEndpoint }>();
  private readonly endpoints = new Set<SharedEndpoint>();
  private popping = false;
  private renewer?: NodeJS.Timeout;
  private readonly leaseMs: number;

  constructor(private readonly config: SharedLimitsConfig) {
    this.leaseMs = Math.round(config.leaseSeconds * 1000);
    this.redis = this.connect();
    this.redis.defineCommand('collabLimits', { numberOfKeys: 0, lua: SHARED_LIMITS_LUA });
  }

  private connect(): Redis {
    return connectRedis(this.config.redis);
  }

  private unavailable(err: unknown): LlmLimitError {
    return redisUnavailable(this.config.redis, 'shared endpoint limits', err);
  }

  endpoint(e: LimitedEndpoint): SharedEndpoint {
    const s = new SharedEndpoint(this, e);
    this.endpoints.add(s);
    return s;
  }

  private async script(s: SharedEndpoint, op: string, ...args: Array<string | number>): Promise<void> {
    const e = s.endpoint;
    const argv = [s.prefix, e.maxConcurrency, e.tokensPerMinute ?? 0, this.leaseMs, this.owner, op, TOKEN_WINDOW_MS, ...args];
    const [waitMs, ...mine] = (await (this.redis as unknown as { collabLimits(...a: unknown[]): Promise<Reply> }).collabLimits(
      ...argv,
    )) as Reply;
    for (const ticket of mine) this.granted(ticket);
    // The queue's head waits for tokens to leave the window: look again then (a release may free them sooner).
    if (waitMs > 0 && s.waiting.size && !s.tokenTimer)
      s.tokenTimer = setTimeout(() => {
        s.tokenTimer = undefined;
        this.script(s, 'renew').catch(() => {});
      }, waitMs).unref();
  }

  acquire(s: SharedEndpoint, estimate: number, signal: AbortSignal | undefined): Promise<string> {
    signal?.throwIfAborted();
    const ticket = `${++this.next}|${estimate}|${this.owner}`;
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        if (!this.waiters.delete(ticket)) return;
        s.waiting.delete(ticket);
        this.release(s, ticket, -1);
        reject(signal!.reason);
      };
      this.waiters.set(ticket, {
        endpoint: s,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          s.held.add(ticket);
          resolve(ticket);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      });
      s.waiting.add(ticket);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.keepRenewing();
      this.popGrants();
      this.script(s, 'acquire', ticket).catch((err) => this.fail(ticket, this.unavailable(err)));
    });
  }

  release(s: SharedEndpoint, ticket: string, used: number): void {
    s.held.delete(ticket);
    // Not awaited: the answer is the caller's already. A release that fails lapses with its lease.
    this.script(s, 'release', ticket, used).catch(() => {});
  }

  private granted(ticket: string): void {
    const w = this.waiters.get(ticket);
    if (!w) return; // its waiter gave up: the release it sent freed the slot, whichever reached Redis first
    this.waiters.delete(ticket);
    w.endpoint.waiting.delete(ticket);
    w.resolve();
  }

  private fail(ticket: string, err: Error): void {
    const w = this.waiters.get(ticket);
    if (!w) return;
    this.waiters.delete(ticket);
    w.endpoint.waiting.delete(ticket);
    w.reject(err);
  }

  /** Block-pops this process's grants while it has waiters (one connection, however many). */
  private popGrants(): void {
    if (this.popping) return;
    this.popping = true;
    this.blocking ??= this.connect();
    const loop = async () => {
      while (this.waiters.size) {
        const r = (await this.blocking!.call('BLMPOP', '1', '1', this.grantsKey, 'LEFT', 'COUNT', '1000')) as [string, string[]] | null;
        for (const ticket of r?.[1] ?? []) this.granted(ticket);
      }
    };
    loop()
      .catch((err) => {
        // Their grants may be lost: every waiter fails (and retries), the tickets lapse in Redis.
        const e = this.unavailable(err);
        for (const ticket of [...this.waiters.keys()]) this.fail(ticket, e);
      })
      .finally(() => {
        this.popping = false;
        if (this.waiters.size) this.popGrants();
      });
  }

  /** Renews this process's leases and queued tickets, and lets lapsed ones go, every third of a lease. */
  private keepRenewing(): void {
    if (this.renewer) return;
    this.renewer = setInterval(() => {
      let busy = false;
      for (const s of this.endpoints) {
        const [held, waiting] = [[...s.held], [...s.waiting]];
        if (!held.length && !waiting.length) continue;
        busy = true;
        for (let i = 0; i < held.length; i += 1000) this.script(s, 'renew', ...held.slice(i, i + 1000), '--').catch(() => {});
        for (let i = 0; i < waiting.length; i += 1000) this.script(s, 'renew', '--', ...waiting.slice(i, i + 1000)).catch(() => {});
      }
      if (!busy) {
        clearInterval(this.renewer);
        this.renewer = undefined;
      }
    }, this.leaseMs / 3).unref();
  }

  close(): void {
    clearInterval(this.renewer);
    for (const s of this.endpoints) clearTimeout(s.tokenTimer);
    this.redis.disconnect();
    this.blocking?.disconnect();
  }
}

const perRedis = new Map<string, SharedLimits>();

export function sharedEndpointLimiter(e: LimitedEndpoint, config: SharedLimitsConfig): EndpointLimiter {
  const key = JSON.stringify(config);
  let limits = perRedis.get(key);
  if (!limits) perRedis.set(key, (limits = new SharedLimits(config)));
  return limits.endpoint(e);
}

/** Closes this process's Redis connections (tests and scripts that end by themselves). */
export function closeSharedLimits(): void {
  for (const l of perRedis.values()) l.close();
  perRedis.clear();
}
