// Where an iteration's budget ledger lives: this worker process's memory (here), or with llm.sharedLimits the shared
// Redis (budget-ledger-redis.ts), so shards on every worker see one total. Both keep the same books:
//   run total = before (earlier iterations) + max(Σ finished entries, the finished spend the workflow reported)
//             + Σ open entries (settled answers + estimates reserved by calls in flight);
// one entry per spender (a shard, the data build), owned by the activity attempt that began it last. Beginning an
// attempt empties its entry — the previous attempt's answers come back from the request cache and are counted
// again — and an older attempt still running (a zombie) can then neither reserve nor change it. The workflow's
// figure covers a process that never saw the finished shards; the max never counts a shard twice.
import type { Spend } from '../../contracts/run';
import type { Budget } from '../../contracts/spend';

export interface LedgerEntryRef {
  /** The iteration's ledger: run data name / iteration / epoch. */
  ledger: string;
  spender: string;
  /** Identifies the activity attempt (a retried attempt is another). */
  attempt: string;
}

/** The run's total as the ledger sees it, and how many of its tokens are estimates of calls in flight. */
export interface LedgerTotal extends Spend {
  reserved: number;
}

export type ReserveResult = { ok: true } | { ok: false; total: LedgerTotal } | { ok: false; superseded: true };

export interface LedgerStore {
  /** Starts `e`'s attempt: its entry empty and open; `before` and the workflow's `finished` recorded. */
  begin(e: LedgerEntryRef, before: Spend, finished: Spend): Promise<void>;
  /** Adds `amount` as reserved unless the run's total with it would pass the budget (then nothing is added). */
  reserve(e: LedgerEntryRef, amount: Spend, budget: Budget): Promise<ReserveResult>;
  /** Adds `delta` (reserved tokens change by `reserved`) with no check; ignored for a superseded attempt. */
  adjust(e: LedgerEntryRef, delta: Spend, reserved: number): Promise<void>;
  /** The attempt succeeded: its entry counts as finished. */
  finish(e: LedgerEntryRef): Promise<void>;
}

/** Whether `total` plus `amount` passes the budget, and which of its limits. */
export function passes(total: Spend, amount: Spend, b: Budget): keyof Budget | undefined {
  if (b.tokens !== undefined && total.tokens + amount.tokens > b.tokens) return 'tokens';
  if (b.usd !== undefined && total.usd + amount.usd > b.usd) return 'usd';
  return undefined;
}

interface Entry extends LedgerTotal {
  attempt: string;
  done: boolean;
}

interface Ledger {
  before: Spend;
  reported: Spend;
  entries: Map<string, Entry>;
}

/** The ledgers of this worker process: one total for the shards it runs. */
export class LocalLedgers implements LedgerStore {
  private readonly ledgers = new Map<string, Ledger>();

  private ledger(id: string): Ledger {
    let l = this.ledgers.get(id);
    if (!l) this.ledgers.set(id, (l = { before: { tokens: 0, usd: 0 }, reported: { tokens: 0, usd: 0 }, entries: new Map() }));
    return l;
  }

  private own(e: LedgerEntryRef): Entry | undefined {
    const entry = this.ledgers.get(e.ledger)?.entries.get(e.spender);
    return entry && entry.attempt === e.attempt && !entry.done ? entry : undefined;
  }

  total(id: string): LedgerTotal {
    const l = this.ledger(id);
    const done = { tokens: 0, usd: 0 };
    const t: LedgerTotal = { ...l.before, reserved: 0 };
    for (const x of l.entries.values()) {
      const into = x.done ? done : t;
      into.tokens += x.tokens;
      into.usd += x.usd;
      if (!x.done) t.reserved += x.reserved;
    }
    t.tokens += Math.max(done.tokens, l.reported.tokens);
    t.usd += Math.max(done.usd, l.reported.usd);
    return t;
  }

  async begin(e: LedgerEntryRef, before: Spend, finished: Spend): Promise<void> {
    const l = this.ledger(e.ledger);
    l.entries.set(e.spender, { attempt: e.attempt, done: false, tokens: 0, usd: 0, reserved: 0 });
    l.before = { ...before };
    l.reported = { tokens: Math.max(l.reported.tokens, finished.tokens), usd: Math.max(l.reported.usd, finished.usd) };
  }

  async reserve(e: LedgerEntryRef, amount: Spend, budget: Budget): Promise<ReserveResult> {
    const entry = this.own(e);
    if (!entry) return { ok: false, superseded: true };
    const total = this.total(e.ledger);
    if (passes(total, amount, budget)) return { ok: false, total };
    entry.tokens += amount.tokens;
    entry.usd += amount.usd;
    entry.reserved += amount.tokens;
    return { ok: true };
  }

  async adjust(e: LedgerEntryRef, delta: Spend, reserved: number): Promise<void> {
    const entry = this.own(e);
    if (!entry) return;
    entry.tokens += delta.tokens;
    entry.usd += delta.usd;
    entry.reserved += reserved;
  }

  async finish(e: LedgerEntryRef): Promise<void> {
    const entry = this.own(e);
    if (entry) entry.done = true;
  }
}
