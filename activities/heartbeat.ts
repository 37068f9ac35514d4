// Heartbeats on a timer for as long as an activity runs (activities/index.ts wraps every activity in keepAlive),
// always re-sending the latest details: a retry reads the previous attempt's last details (progress cursor,
// checkpoint path), and cancellation is only delivered to activities that heartbeat. Beating from start to end,
// whatever the activity is doing, is what lets every queue have a short heartbeat timeout: a result the worker
// could not deliver (the server was down as the activity finished) is noticed by the server only when the
// heartbeats stop, so that timeout is all a lost completion costs.
import { asyncLocalStorage, Context } from '@temporalio/activity';

export interface Heartbeater<T> {
  update(details: T): void;
  stop(): void;
}

/** Every few seconds, and several times per timeout (the worker sends at most one every 3 s: run-worker.ts). */
export function heartbeatIntervalMs(timeoutMs: number | undefined): number {
  return Math.max(200, Math.min((timeoutMs ?? 30_000) / 6, 5_000));
}

interface Beating {
  latest: unknown;
  beat(): void;
}

/** The timer of each running activity, so that the details an activity sets ride on the same beats. */
const beating = new WeakMap<Context, Beating>();
/** The details each finished activity beat last: what beatWhile goes on sending. */
const lastDetails = new WeakMap<Context, unknown>();

function beatOn(ctx: Context, latest: unknown): { b: Beating; stop: () => void } {
  const b: Beating = {
    latest,
    beat() {
      try {
        ctx.heartbeat(b.latest);
      } catch {
        /* the SDK throttles; errors here must not kill the work */
      }
    },
  };
  b.beat();
  const timer = setInterval(b.beat, heartbeatIntervalMs(ctx.info.heartbeatTimeoutMs));
  beating.set(ctx, b);
  return {
    b,
    stop() {
      clearInterval(timer);
      beating.delete(ctx);
      lastDetails.set(ctx, b.latest);
    },
  };
}

/** Runs an activity with heartbeats from its first to its last line, starting from the previous attempt's details
 *  (kept for the next attempt until this one sets its own). */
export function keepAlive<A extends unknown[], R>(fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  return async (...args: A) => {
    const ctx = Context.current();
    const { stop } = beatOn(ctx, ctx.info.heartbeatDetails);
    try {
      return await fn(...args);
    } finally {
      stop();
    }
  };
}

/** Heartbeats, with the details the activity last set, while `wait` runs after the activity's own code returned
 *  (workers/hold-result.ts holds a result until the server is reachable): a retry still finds those details. */
export async function beatWhile<R>(wait: () => Promise<R>): Promise<R> {
  const ctx = Context.current();
  const { stop } = beatOn(ctx, lastDetails.has(ctx) ? lastDetails.get(ctx) : ctx.info.heartbeatDetails);
  try {
    return await wait();
  } finally {
    stop();
  }
}

/** Sets the details the beats carry. Inside keepAlive, stop() leaves the beats going (with these details) until
 *  the activity returns; called outside it (an activity run on its own), it beats by itself until stop(). */
export function startHeartbeat<T>(initial: T): Heartbeater<T> {
  const ctx = Context.current();
  const shared = beating.get(ctx);
  const own = shared ? undefined : beatOn(ctx, initial);
  const b = shared ?? own!.b;
  b.latest = initial;
  if (shared) b.beat();
  return {
    update(details) {
      b.latest = details;
      b.beat();
    },
    stop() {
      own?.stop();
    },
  };
}

export function previousHeartbeat<T>(): T | undefined {
  return Context.current().info.heartbeatDetails as T | undefined;
}

/** The running activity's cancellation signal, or undefined outside an activity (a script, a test): what a long
 *  wait inside an activity listens to so that a cancelled stage stops waiting. */
export function activityCancellation(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/** Runs `f` (and what it starts) outside the current activity: for work several stages share — a batch of cached
 *  answers, a look for new ones — which must not be cancelled with whichever stage happened to start it. */
export function outsideActivity<T>(f: () => T): T {
  return asyncLocalStorage.exit(f);
}
