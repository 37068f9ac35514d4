// The budget ledgers in the llm.sharedLimits Redis: one hash per iteration ledger, changed only by one Lua script,
// so reserving on one worker and settling on another are atomic and every shard of the run sees one total. The
// books are budget-ledger-store.ts's LocalLedgers', entry for entry:
//   before    "<tokens>\t<usd>"       the run's earlier iterations
//   reported  "<tokens>\t<usd>"       the workflow's finished shards (the largest figure seen)
//   e:<name>  "<attempt>\t<done 0|1>\t<tokens>\t<usd>\t<reserved tokens>"
// Totals are summed on each reserve (one entry per shard: hundreds at most). A ledger nobody touched for 30 days
// expires (an iteration may wait for its user for days).
import { ApplicationFailure } from '@temporalio/common';
import type { Redis } from 'ioredis';
import type { Spend } from '../../contracts/run';
import type { Budget } from '../../contracts/spend';
import type { LedgerEntryRef, LedgerStore, ReserveResult } from './budget-ledger-store';
import { connectRedis, redisUnavailable } from './redis-connection';

const KEEP_MS = 30 * 24 * 3600 * 1000;

// KEYS[1]: the ledger hash. ARGV: op, spender, attempt, then
//   begin <before t> <before u> <finished t> <finished u> | reserve <t> <u> <budget t or -1> <budget u or -1>
//   | adjust <t> <u> <reserved> | finish
// Reply: {1} done, {0, total t, total u, reserved} refused, {-1} superseded (another attempt owns the entry).
export const BUDGET_LEDGER_LUA = `
local H, op, name, att = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local function pair(f)
  local v = redis.call('HGET', H, f)
  if not v then return 0, 0 end
  local t, u = string.match(v, '^(.-)\\t(.-)$')
  return tonumber(t), tonumber(u)
end
local function parse(v)
  local a, d, t, u, r = string.match(v, '^(.*)\\t([01])\\t(.-)\\t(.-)\\t(.-)$')
  return { a = a, done = d == '1', t = tonumber(t), u = tonumber(u), r = tonumber(r) }
end
local function save(e)
  redis.call('HSET', H, 'e:'..name, e.a..'\\t'..(e.done and '1' or '0')..'\\t'..string.format('%.17g', e.t)..'\\t'..string.format('%.17g', e.u)..'\\t'..string.format('%.17g', e.r))
end
local reply = { 1 }
local raw = redis.call('HGET', H, 'e:'..name)
local e = raw and parse(raw)
if op == 'begin' then
  save({ a = att, done = false, t = 0, u = 0, r = 0 })
  redis.call('HSET', H, 'before', ARGV[4]..'\\t'..ARGV[5])
  local rt, ru = pair('reported')
  redis.call('HSET', H, 'reported', string.format('%.17g', math.max(rt, tonumber(ARGV[6])))..'\\t'..string.format('%.17g', math.max(ru, tonumber(ARGV[7]))))
elseif not e or e.a ~= att or e.done then
  reply = { -1 }
elseif op == 'reserve' then
  local at, au, bt, bu = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local t, u = pair('before')
  local dt, du, reserved = 0, 0, 0
  local all = redis.call('HGETALL', H)
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'e:' then
      local x = parse(all[i + 1])
      if x.done then dt, du = dt + x.t, du + x.u else t, u, reserved = t + x.t, u + x.u, reserved + x.r end
    end
  end
  local rt, ru = pair('reported')
  t, u = t + math.max(dt, rt), u + math.max(du, ru)
  if (bt >= 0 and t + at > bt) or (bu >= 0 and u + au > bu) then
    reply = { 0, string.format('%.17g', t), string.format('%.17g', u), string.format('%.17g', reserved) }
  else
    e.t, e.u, e.r = e.t + at, e.u + au, e.r + at
    save(e)
  end
elseif op == 'adjust' then
  e.t, e.u, e.r = e.t + tonumber(ARGV[4]), e.u + tonumber(ARGV[5]), e.r + tonumber(ARGV[6])
  save(e)
elseif op == 'finish' then
  e.done = true
  save(e)
end
redis.call('PEXPIRE', H, ${KEEP_MS})
return reply
`;

type Reply = [number, string?, string?, string?];

/** The ledgers in one Redis (llm.sharedLimits.redis). */
export class RedisLedgers implements LedgerStore {
  private readonly redis: Redis;
  constructor(private readonly url: string) {
    this.redis = connectRedis(url);
    this.redis.defineCommand('collabBudget', { numberOfKeys: 1, lua: BUDGET_LEDGER_LUA });
  }

  private async run(e: LedgerEntryRef, op: string, ...args: Array<string | number>): Promise<Reply> {
    try {
      return await (this.redis as unknown as { collabBudget(...a: unknown[]): Promise<Reply> }).collabBudget(
        `collab-loop:budget:{${e.ledger}}`,
        op,
        e.spender,
        e.attempt,
        ...args.map(String),
      );
    } catch (err) {
      const u = redisUnavailable(this.url, 'the run budget ledger', err);
      throw ApplicationFailure.retryable(u.message, u.type);
    }
  }

  async begin(e: LedgerEntryRef, before: Spend, finished: Spend): Promise<void> {
    await this.run(e, 'begin', before.tokens, before.usd, finished.tokens, finished.usd);
  }

  async reserve(e: LedgerEntryRef, amount: Spend, b: Budget): Promise<ReserveResult> {
    const [ok, t, u, r] = await this.run(e, 'reserve', amount.tokens, amount.usd, b.tokens ?? -1, b.usd ?? -1);
    if (ok === 1) return { ok: true };
    if (ok === -1) return { ok: false, superseded: true };
    return { ok: false, total: { tokens: Number(t), usd: Number(u), reserved: Number(r) } };
  }

  async adjust(e: LedgerEntryRef, delta: Spend, reserved: number): Promise<void> {
    await this.run(e, 'adjust', delta.tokens, delta.usd, reserved);
  }

  async finish(e: LedgerEntryRef): Promise<void> {
    await this.run(e, 'finish');
  }

  close(): void {
    this.redis.disconnect();
  }
}
