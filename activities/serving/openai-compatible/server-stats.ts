// What the test and benchmark endpoints count: requests, answers, faults, concurrency, and answers per request key,
// so tests can prove no request was paid twice.

export interface ServerStats {
  /** Chat-completion requests received (any outcome). */
  received: number;
  /** 200 responses fully written. */
  completed: number;
  /** Requests answered with an injected fault. */
  faulted: number;
  /** Requests holding a capacity slot right now (queued ones not included). */
  inFlight: number;
  /** Most requests ever in service at once since the last reset (≤ capacity). */
  maxInFlight: number;
  /** Successful (200) responses per request key. */
  byKey: Record<string, number>;
  /** 200 responses to a key that had already succeeded: calls paid twice. */
  duplicates: number;
}

/** The counters resetStats clears; requests in service now are live state (CapacitySlots), passed in. */
export class ServerCounters {
  received = 0;
  private completed = 0;
  faulted = 0;
  private maxInFlight = 0;
  private duplicates = 0;
  private byKey = new Map<string, number>();

  reset(inFlight: number): void {
    this.received = this.completed = this.faulted = this.duplicates = 0;
    this.maxInFlight = inFlight;
    this.byKey = new Map();
  }

  /** A request has just taken a slot, making `inFlight` in service. */
  inService(inFlight: number): void {
    if (inFlight > this.maxInFlight) this.maxInFlight = inFlight;
  }

  /** A 200 for `key` was handed to the socket in full. */
  answered(key: string): void {
    this.completed++;
    const seen = this.byKey.get(key) ?? 0;
    if (seen > 0) this.duplicates++;
    this.byKey.set(key, seen + 1);
  }

  snapshot(inFlight: number): ServerStats {
    return {
      received: this.received,
      completed: this.completed,
      faulted: this.faulted,
      inFlight,
      maxInFlight: this.maxInFlight,
      byKey: Object.fromEntries(this.byKey),
      duplicates: this.duplicates,
    };
  }
}
