// CLI commands outlive short server outages: a Temporal server restarting (same SQLite file, same address) is
// unreachable for seconds, and right after a restart a call can be refused with "consistent query buffer is full".
// The run itself goes on in the server; a command waiting for it must not give up on the first refusal. A worker too
// busy to answer a query (cli/worker-busy.ts, which the refused queries of the status commands are too) is waited
// for in the same loop, as the caller says.
import type { Client } from '@temporalio/client';
import { connectClient } from './connection';
import { temporalAddressForMessages } from './temporal-config';
import { UserError } from './user-error';
import { WorkerBusyError } from './worker-busy';

/** Waiting commands (`start --wait`, demo, eval, stop) ride out restarts; status commands answer sooner. */
export type RetryKind = 'wait' | 'status';

/** How long a command keeps retrying an unreachable server; COLLAB_LOOP_SERVER_RETRY_SECONDS overrides both. */
export function serverRetryMs(kind: RetryKind): number {
  const env = process.env.COLLAB_LOOP_SERVER_RETRY_SECONDS;
  if (env && Number.isFinite(Number(env)) && Number(env) >= 0) return Number(env) * 1000;
  return kind === 'wait' ? 10 * 60_000 : 30_000;
}

/** gRPC codes that mean "not now" rather than "no": UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED. */
const TRANSIENT_CODES = new Set([14, 4, 8]);
const TRANSIENT_TEXT =
  /ECONNREFUSED|ECONNRESET|UNAVAILABLE|No connection established|Failed to connect|consistent query buffer is full|DEADLINE_EXCEEDED|socket hang up/i;

/** Walks the cause chain: the SDK wraps the gRPC error ("Failed to describe workflow" ← "14 UNAVAILABLE: …"). */
export function isTransientServerError(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 8;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === 'number' && TRANSIENT_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && TRANSIENT_TEXT.test(e.message)) return true;
  }
  return false;
}

export interface ServerRetryOptions<T = unknown> {
  /** What the command was doing, for the give-up message ("waiting for run demo"). */
  what: string;
  /** How long the server may stay unreachable before the command stops. */
  giveUpAfterMs: number;
  /** Where the "server unreachable, retrying" line goes (default: stderr). */
  say?: (line: string) => void;
  /** First pause between attempts; doubles up to 5 s. */
  initialDelayMs?: number;
  /** Called on each try no worker answered (WorkerBusyError), with when that began: a value ends the retry with it,
   *  undefined tries again. Without it such an error is thrown. Its own server calls ride out outages too. */
  workerBusy?: (err: WorkerBusyError, since: number) => Promise<T | undefined>;
}

/** Runs `fn`, retrying transient server errors until the server has been unreachable for `giveUpAfterMs`. */
export async function withServerRetry<T>(fn: () => Promise<T>, o: ServerRetryOptions<T>): Promise<T> {
  const say = o.say ?? ((l: string) => console.error(l));
  let downSince: number | undefined;
  let busySince: number | undefined;
  let delay = o.initialDelayMs ?? 500;
  const reachable = () => {
    if (downSince !== undefined) say(`collab-loop: server reachable again after ${((Date.now() - downSince) / 1000).toFixed(0)} s`);
    downSince = undefined;
  };
  for (;;) {
    try {
      const v = await fn();
      reachable();
      return v;
    } catch (err) {
      if (err instanceof WorkerBusyError && o.workerBusy) {
        reachable(); // the server answered: it is the worker that did not
        busySince ??= Date.now();
        const since = busySince;
        const v = await withServerRetry(() => o.workerBusy!(err, since), { ...o, workerBusy: undefined });
        if (v !== undefined) return v;
      } else {
        if (!isTransientServerError(err)) throw err;
        const now = Date.now();
        if (downSince === undefined) {
          downSince = now;
          say(
            `collab-loop: server unreachable at ${temporalAddressForMessages()}, retrying for up to ${Math.round(o.giveUpAfterMs / 1000)} s (${firstLine(err)})`,
          );
        }
        if (now - downSince >= o.giveUpAfterMs)
          throw new UserError(
            `gave up ${o.what}: the Temporal server at ${temporalAddressForMessages()} has been unreachable for ${Math.round((now - downSince) / 1000)} s ` +
              '(start it with `collab-loop server`, or set TEMPORAL_ADDRESS). A run already started goes on in the server; ' +
              'check it with `collab-loop status <name>` once the server is back.',
          );
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}

function firstLine(err: unknown): string {
  let e = err as { message?: string; cause?: unknown };
  while (e?.cause && typeof (e.cause as { message?: unknown }).message === 'string') e = e.cause as typeof e;
  return String(e?.message ?? err)
    .split('\n')[0]
    .slice(0, 160);
}

/** A client for commands that read or wait: the first connection rides out an outage too. */
export function connectClientRetrying(kind: RetryKind): Promise<Client> {
  return withServerRetry(connectClient, { what: 'connecting', giveUpAfterMs: serverRetryMs(kind) });
}
