// Waiting out a dependency that is briefly unreachable (a restart, a failover, a network blip) instead of failing:
// the one backoff behind the object store's tolerance (storage/outage-retry.ts), the LLM endpoint's (llm/client.ts)
// and the Temporal server's (workers/hold-result.ts). Exponential from 250 ms, capped at 2 s so that once the
// dependency is back the run notices within a couple of seconds; the tolerance counts from the first failure, so a
// slow success before it costs nothing. A cancelled activity stops waiting.

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 2_000;

export interface RideOutOptions {
  /** How long the dependency may stay unreachable, from the first failure, before `giveUp`. */
  toleranceMs: number;
  /** Whether a failure means the dependency is unreachable (waited out); anything else is thrown at once. */
  isOutage(e: unknown): boolean;
  /** What to throw once the outage outlasted the tolerance or the wait was cancelled (waitedMs 0: no wait at all). */
  giveUp(e: unknown, waitedMs: number): unknown;
  /** Told of each failure it waits out (metrics, logs, heartbeats). */
  onWait?: (e: unknown, waitedMs: number) => void;
  /** The wait the dependency itself asked for (Retry-After), used instead of the backoff. */
  askedDelayMs?: (e: unknown) => number | undefined;
  signal?: AbortSignal;
  /** Injected for tests; by default a timer that ends early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Runs `op` until it succeeds, fails with something other than an outage, or the outage lasts past the tolerance. */
export async function rideOut<T>(op: () => Promise<T>, o: RideOutOptions): Promise<T> {
  let since: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!o.isOutage(e)) throw e;
      since ??= Date.now();
      const waited = Date.now() - since;
      if (waited >= o.toleranceMs || o.signal?.aborted) throw o.giveUp(e, waited);
      o.onWait?.(e, waited);
      const delay = o.askedDelayMs?.(e) ?? Math.min(FIRST_DELAY_MS * 2 ** attempt, MAX_DELAY_MS);
      await (o.sleep ?? pause)(Math.min(delay, o.toleranceMs - waited), o.signal);
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller then sees `signal.aborted`). */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
