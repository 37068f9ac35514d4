// The budget ledger (activities/llm/budget-ledger*.ts), in this process and in a real redis-server: calls reserve
// their estimate before they are sent and settle their usage after, an attempt's retry starts its entry afresh, the
// workflow's figure for finished shards covers a process that never saw them, and however many calls reserve at
// once — through one store or through two Redis connections, as two worker processes would — the run passes its
// budget by at most what the calls in flight used beyond their estimates.
import { setTimeout as delay } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetSpender } from '../../../../activities/llm/budget-ledger';
import { RedisLedgers } from '../../../../activities/llm/budget-ledger-redis';
import { type LedgerEntryRef, type LedgerStore, LocalLedgers } from '../../../../activities/llm/budget-ledger-store';
import type { Spend } from '../../../../contracts/run';
import type { Budget } from '../../../../contracts/spend';
import { type LocalRedis, startLocalRedis } from '../../../../cli/stack/redis';

let redis: LocalRedis;
const opened: RedisLedgers[] = [];
beforeAll(async () => {
  redis = await startLocalRedis();
});
afterAll(async () => {
  for (const r of opened) r.close();
  await redis?.stop();
});

const NONE: Spend = { tokens: 0, usd: 0 };
let ledgers = 0;
/** A ledger no other test touches (the Redis is shared by the tests). */
const newLedger = () => `run/0/${++ledgers}`;
const ref = (ledger: string, spender: string, attempt = 'a1'): LedgerEntryRef => ({ ledger, spender, attempt });
const tokens = (n: number) => ({ promptTokens: n, completionTokens: 0 });

async function spender(store: LedgerStore, e: LedgerEntryRef, budget: Budget, before = NONE, finished = NONE) {
  await store.begin(e, before, finished);
  return new BudgetSpender(store, e, budget, 'my-run');
}

async function refusal(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

/** Each store, and how many worker processes share one of its ledgers: the process's own, or every process's. */
const stores: Array<[string, () => LedgerStore, number]> = [
  ['in this process', () => new LocalLedgers(), 1],
  [
    'in Redis',
    () => {
      const r = new RedisLedgers(redis.url);
      opened.push(r);
      return r;
    },
    2,
  ],
];

describe.each(stores)('budget ledger %s', (_, makeStore, processes) => {
  it('reserves each call before it is sent, refuses the one that would pass the budget, and settles usage after', async () => {
    const store = makeStore();
    const s = await spender(store, ref(newLedger(), 'eval-0'), { tokens: 1000 });
    const calls = s.forRole(undefined);
    const settleA = await calls.reserve(tokens(400));
    await calls.reserve(tokens(400));
    const err = await refusal(calls.reserve(tokens(400)));
    expect(err.type).toBe('BudgetReached');
    expect(err.nonRetryable).toBe(true);
    expect(err.message).toMatch(
      /^budget reached: the run has spent 800 tokens of budget\.tokens 1000 \(800 tokens, \$0\.0000\), 800 of the tokens reserved by calls in flight; the next call may cost up to 400 tokens more; raise it with `collab-loop retry my-run --set budget\.tokens=N`/,
    );
    await settleA(tokens(100)); // the answer used 100 of its 400
    await calls.reserve(tokens(400)); // 100 + 400 + 400
    await calls.record(tokens(100)); // an answer from the cache: counted, never refused — 1000 now
    expect((await refusal(calls.reserve(tokens(1)))).message).toContain('spent 1000 tokens of budget.tokens 1000');
  });

  it('a failed call costs nothing, and usd is priced per role', async () => {
    const store = makeStore();
    const s = await spender(store, ref(newLedger(), 'eval-0'), { usd: 1 });
    const judge = s.forRole({ input: 1_000_000, output: 0 }); // $1 per prompt token
    const free = s.forRole(undefined);
    const failed = await judge.reserve(tokens(1));
    await refusal(judge.reserve(tokens(1))); // $1 reserved: one more would pass $1
    await free.reserve(tokens(10_000)); // a free role's calls cost no dollars
    await failed(undefined);
    const err = await refusal(judge.reserve(tokens(2)));
    expect(err.message).toContain('$0.0000 of budget.usd 1');
    await judge.reserve(tokens(1));
  });

  it("a retried attempt starts its entry afresh; the old attempt's calls no longer count or call", async () => {
    const store = makeStore();
    const ledger = newLedger();
    const first = (await spender(store, ref(ledger, 'eval-0', 'a1'), { tokens: 1000 })).forRole(undefined);
    await (await first.reserve(tokens(900)))(tokens(900));
    const retry = (await spender(store, ref(ledger, 'eval-0', 'a2'), { tokens: 1000 })).forRole(undefined);
    await retry.reserve(tokens(1000)); // the first attempt's 900 are in the cache: counted again as they are read
    await expect(first.record(tokens(500))).rejects.toThrow(/a newer attempt of eval-0 has started/); // a zombie: not counted
    expect((await refusal(retry.reserve(tokens(1)))).message).toContain('spent 1000 tokens');
    await expect(first.reserve(tokens(1))).rejects.toThrow(/a newer attempt of eval-0 has started/);
  });

  it('counts the earlier iterations, and finished shards once whether or not this store saw them', async () => {
    const store = makeStore();
    const ledger = newLedger();
    const before = { tokens: 100, usd: 0 };
    const a = await spender(store, ref(ledger, 'eval-0'), { tokens: 1000 }, before);
    await a.forRole(undefined).record(tokens(300));
    await a.finish();
    // The workflow reports eval-0's 300 to the next shard: counted once, not beside the finished entry.
    const b = (await spender(store, ref(ledger, 'eval-1'), { tokens: 1000 }, before, { tokens: 300, usd: 0 })).forRole(undefined);
    await b.reserve(tokens(600));
    expect((await refusal(b.reserve(tokens(1)))).message).toContain('spent 1000 tokens');
    // A store that never saw eval-0 (a fresh worker process) knows it from the workflow's figure.
    const fresh = (await spender(makeStore(), ref(newLedger(), 'eval-1'), { tokens: 1000 }, before, { tokens: 300, usd: 0 })).forRole(
      undefined,
    );
    await fresh.reserve(tokens(600));
    expect((await refusal(fresh.reserve(tokens(1)))).message).toContain('spent 1000 tokens');
  });

  it('calls reserving concurrently from many spenders never pass the budget by more than the calls in flight', async () => {
    const budget = 20_000;
    const ledger = newLedger();
    // In Redis, separate connections on one ledger, as separate worker processes would have.
    const storesOfRun = Array.from({ length: processes }, makeStore);
    const spenders = await Promise.all(
      Array.from({ length: 8 }, (_, i) => spender(storesOfRun[i % processes], ref(ledger, `eval-${i}`), { tokens: budget })),
    );
    const estimate = 300;
    let used = 0;
    let calls = 0;
    // Each answer uses 300 to 350 tokens for its estimate of 300 (prompts longer than characters / 4).
    const lane = async (calls$: ReturnType<BudgetSpender['forRole']>, seed: number) => {
      for (let k = 0; ; k++) {
        let settle: Awaited<ReturnType<typeof calls$.reserve>>;
        try {
          settle = await calls$.reserve(tokens(estimate));
        } catch (err) {
          expect((err as ApplicationFailure).type).toBe('BudgetReached');
          return;
        }
        calls++;
        await delay((seed * 7 + k * 13) % 5);
        const u = estimate + ((seed * 31 + k * 17) % 51);
        used += u;
        await settle(tokens(u));
      }
    };
    const inFlight = 4; // per spender
    await Promise.all(spenders.flatMap((s, i) => Array.from({ length: inFlight }, (_, j) => lane(s.forRole(undefined), i * inFlight + j))));
    expect(calls).toBeGreaterThan(budget / 350 - 1); // the budget was used, not starved
    expect(used).toBeGreaterThan(budget / 2);
    // At most every call in flight used 50 tokens more than it reserved.
    expect(used).toBeLessThanOrEqual(budget + spenders.length * inFlight * 50);
  });
});
