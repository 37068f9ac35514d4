// How an injected fault (activities/serving/faults.ts draws which requests get one) is answered on the wire: 429 or 500 in the
// OpenAI error shape, a connection reset, or a hang that ends in a reset.
import type http from 'node:http';
import { createFaultPlan, type FaultKind, type FaultOptions } from '../faults';
import { RequestError, sendError, serverError } from './json-http';

const DEFAULT_HOLD_MS = 30_000;

export class InjectedFaults {
  /** The fault for the next valid request, in arrival order, or undefined: serve it normally. */
  readonly next: () => FaultKind | undefined;
  private readonly retryAfterMs: number;
  private readonly holdMs: number;
  private readonly held = new Set<NodeJS.Timeout>();

  constructor(faults: FaultOptions | undefined) {
    this.next = createFaultPlan(faults);
    this.retryAfterMs = faults?.retryAfterMs ?? 50;
    this.holdMs = faults?.holdMs ?? DEFAULT_HOLD_MS;
  }

  answer(kind: FaultKind, req: http.IncomingMessage, res: http.ServerResponse): void {
    if (kind === '429') {
      const e = new RequestError(
        429,
        'Rate limit reached (injected fault); retry after the delay in retry-after-ms.',
        'requests',
        'rate_limit_exceeded',
      );
      sendError(res, e, { 'retry-after-ms': String(this.retryAfterMs), 'retry-after': String(Math.ceil(this.retryAfterMs / 1000)) });
      return;
    }
    if (kind === '500') {
      sendError(res, serverError('The server had an error processing your request (injected fault).'));
      return;
    }
    // RST rather than FIN: the client sees ECONNRESET, as when a real server or proxy dies mid-request.
    if (kind === 'reset') return void req.socket.resetAndDestroy();
    // 'timeout': hang, then reset — the client's own timeout should fire first.
    const t = setTimeout(() => {
      this.held.delete(t);
      req.socket.resetAndDestroy();
    }, this.holdMs);
    this.held.add(t);
    res.once('close', () => {
      clearTimeout(t);
      this.held.delete(t);
    });
  }

  /** Cancels the pending resets of held requests: the closing server ends their connections itself. */
  releaseHeld(): void {
    for (const t of this.held) clearTimeout(t);
    this.held.clear();
  }
}
