// Heartbeats on a timer while the real work awaits, always re-sending the latest details: a retry reads the
// previous attempt's last details (progress cursor, checkpoint path), and cancellation is only delivered to
// activities that heartbeat.
import { Context } from '@temporalio/activity';

export interface Heartbeater<T> {
  update(details: T): void;
  stop(): void;
}

export function startHeartbeat<T>(initial: T): Heartbeater<T> {
  const ctx = Context.current();
  let latest = initial;
  const beat = () => {
    try {
      ctx.heartbeat(latest);
    } catch {
      /* the SDK throttles; errors here must not kill the work */
    }
  };
  const every = Math.max(200, Math.min(ctx.info.heartbeatTimeoutMs ?? 10_000, 60_000) / 3);
  beat();
  const timer = setInterval(beat, every);
  return {
    update(details) {
      latest = details;
      beat();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export function previousHeartbeat<T>(): T | undefined {
  return Context.current().info.heartbeatDetails as T | undefined;
}
