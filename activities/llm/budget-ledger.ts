// Exact budgets: every LLM call of a shard or a data build reserves what it may cost in the iteration's ledger before
// it is sent (prompt characters / 4 + max tokens, at its role's price: limiter.ts estimateUsage, spend.ts) and settles
// its real usage after, so the run passes its `budget` by at most the calls in flight — none when no answer uses
// more than its estimate. A call that would pass the budget is refused with BudgetReached (non-retryable): the stage
// waits as needs attention, the answers received are in the request cache, and `retry --set budget.tokens=…`
// continues with the budget of the config the retried activity gets. Without llm.sharedLimits the ledger is this
// worker process's (shards run by other processes are known only once finished); with it, the shared Redis's.
import { Context } from '@temporalio/activity';
import type { StageContext } from '../../contracts/activities';
import type { BudgetLedgerInput, Spend } from '../../contracts/run';
import { type Budget, budgetReached } from '../../contracts/spend';
import { type LedgerEntryRef, type LedgerStore, LocalLedgers, passes } from './budget-ledger-store';
import { RedisLedgers } from './budget-ledger-redis';
import { spendOf, type Price } from './spend';
import type { CallBudget, TokenUsage } from './types';

const local = new LocalLedgers();
const perRedis = new Map<string, RedisLedgers>();

function storeFor(redis: string | undefined): LedgerStore {
  if (!redis) return local;
  let s = perRedis.get(redis);
  if (!s) perRedis.set(redis, (s = new RedisLedgers(redis)));
  return s;
}

/** One activity attempt's entry in its iteration's ledger. */
export class BudgetSpender {
  constructor(
    private readonly store: LedgerStore,
    private readonly entry: LedgerEntryRef,
    private readonly budget: Budget,
    private readonly run: string,
  ) {}

  /** The calls of a role whose endpoint costs `price` (absent: free, counted in tokens only). */
  forRole(price: Price | undefined): CallBudget {
    const reserve: CallBudget['reserve'] = async (estimate) => {
      const amount = spendOf(estimate, price);
      const r = await this.store.reserve(this.entry, amount, this.budget);
      if ('superseded' in r) throw new Error(`a newer attempt of ${this.entry.spender} has started: this one makes no more calls`);
      if (!r.ok) throw this.refusal(r.total, amount);
      return (used) => this.store.adjust(this.entry, minus(used ? spendOf(used, price) : { tokens: 0, usd: 0 }, amount), -amount.tokens);
    };
    return {
      reserve,
      record: async (used: TokenUsage) => (await reserve(used))(used),
    };
  }

  /** The attempt succeeded: its spend counts as a finished spender's. */
  finish(): Promise<void> {
    return this.store.finish(this.entry);
  }

  private refusal(total: Spend & { reserved: number }, amount: Spend) {
    const limit = passes(total, amount, this.budget) ?? 'tokens';
    const more = limit === 'tokens' ? `${amount.tokens} tokens` : `$${amount.usd.toFixed(4)}`;
    const note = `, ${total.reserved} of the tokens reserved by calls in flight; the next call may cost up to ${more} more`;
    return budgetReached(this.run, total, this.budget, limit, note);
  }
}

const minus = (a: Spend, b: Spend): Spend => ({ tokens: a.tokens - b.tokens, usd: a.usd - b.usd });

/** The attempt's spender, its entry begun; none when the iteration predates exact budgets or the run has no budget. */
export async function budgetSpender(input: StageContext & { ledger?: BudgetLedgerInput }): Promise<BudgetSpender | undefined> {
  const { ledger, config } = input;
  if (!ledger || !config.budget) return undefined;
  const info = Context.current().info;
  const entry: LedgerEntryRef = {
    ledger: `${input.runName}/${input.iteration}/${ledger.epoch}`,
    spender: ledger.spender,
    attempt: `${info.workflowExecution?.runId}/${info.activityId}/${info.attempt}`,
  };
  const store = storeFor(config.llm.sharedLimits?.redis);
  await store.begin(entry, ledger.before, ledger.finished);
  return new BudgetSpender(store, entry, config.budget, ledger.run);
}
