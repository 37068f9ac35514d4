// The one Redis script behind shared endpoint limits (shared-limiter.ts): every step is atomic, so processes on any
// host agree on who holds a slot. Per endpoint (prefix P):
//   P:leases        ZSET ticket → lease expiry (ms, Redis clock): the calls in flight; a lease its process stops
//                   renewing (killed worker) lapses and its slot returns;
//   P:queue         ZSET ticket → arrival number: calls waiting, granted strictly first come first served across all
//                   processes, so two runs on two workers both progress; P:queue-expiry lets a dead waiter's ticket lapse;
//   P:tokens        ZSET ticket → admission time, P:token-amounts HASH ticket → tokens, P:token-total: the sliding
//                   token window of tokensPerMinute (the estimate until the answer's usage settles it).
// A ticket is "<n>|<estimate>|<owner process>". A grant for another process is pushed onto its list
// collab-loop:limits:grants:<owner>, which that process block-pops (one connection per process, not per waiter);
// grants for the caller come back in the reply. Keys are built here from the prefix: one Redis, not a Cluster.
//
// ARGV: prefix, limit, tokensPerMinute (0: none), leaseMs, owner, op, windowMs, then
//   acquire <ticket> | release <ticket> <used tokens or -1> | renew <held ticket>... -- <waiting ticket>...
// Reply: { ms until the queue head fits the token window (0: not waiting on tokens), tickets granted to the caller... }
export const SHARED_LIMITS_LUA = `
local P, limit, tpm, leaseMs, me, op, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6], tonumber(ARGV[7])
local L, Q, QX, T, TA, TT, SEQ = P..':leases', P..':queue', P..':queue-expiry', P..':tokens', P..':token-amounts', P..':token-total', P..':seq'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

if op == 'acquire' then
  redis.call('ZADD', Q, redis.call('INCR', SEQ), ARGV[8])
  redis.call('ZADD', QX, now + leaseMs, ARGV[8])
elseif op == 'release' then
  local id, used = ARGV[8], tonumber(ARGV[9])
  redis.call('ZREM', L, id)
  redis.call('ZREM', Q, id)
  redis.call('ZREM', QX, id)
  local old = redis.call('HGET', TA, id)
  if used >= 0 and old then
    redis.call('HSET', TA, id, used)
    redis.call('INCRBY', TT, used - tonumber(old))
  end
else
  -- Renewals arrive on the connection releases use, after any release of the same ticket: a ticket named here is
  -- still its process's. One that lapsed (renewals failed for a whole lease: a Redis blip) is restored, or its
  -- call would run unlimited (held) or its waiter wait for ever (queued: back in line).
  local waiting = false
  for i = 8, #ARGV do
    local id = ARGV[i]
    if id == '--' then
      waiting = true
    elseif not waiting then
      redis.call('ZADD', L, now + leaseMs, id)
    elseif redis.call('ZSCORE', Q, id) then
      redis.call('ZADD', QX, now + leaseMs, id)
    elseif redis.call('ZSCORE', L, id) then
      redis.call('ZADD', L, 'XX', now + leaseMs, id) -- granted: the grant is on its way to the process
    else
      redis.call('ZADD', Q, redis.call('INCR', SEQ), id)
      redis.call('ZADD', QX, now + leaseMs, id)
    end
  end
end

redis.call('ZREMRANGEBYSCORE', L, '-inf', now)
for _, id in ipairs(redis.call('ZRANGEBYSCORE', QX, '-inf', now)) do
  redis.call('ZREM', Q, id)
  redis.call('ZREM', QX, id)
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', T, '-inf', now - window)) do
  redis.call('DECRBY', TT, tonumber(redis.call('HGET', TA, id) or '0'))
  redis.call('HDEL', TA, id)
  redis.call('ZREM', T, id)
end

-- When the oldest admissions have left the window, enough tokens are free for need more.
local function tokenWait(need)
  local start, last = 0, now
  while true do
    local page = redis.call('ZRANGE', T, start, start + 127, 'WITHSCORES')
    if #page == 0 then return math.max(1, last + window - now) end
    for i = 1, #page, 2 do
      last = tonumber(page[i + 1])
      need = need - tonumber(redis.call('HGET', TA, page[i]) or '0')
      if need <= 0 then return math.max(1, last + window - now) end
    end
    start = start + 128
  end
end

local reply = { 0 }
local held = redis.call('ZCARD', L)
while held < limit do
  local head = redis.call('ZRANGE', Q, 0, 0)[1]
  if not head then break end
  local estimate = tonumber(string.match(head, '^[^|]*|(%d+)|'))
  if tpm > 0 then
    local used = tonumber(redis.call('GET', TT) or '0')
    -- An empty window admits any call: a process with a larger tokensPerMinute may have queued it.
    if used > 0 and used + estimate > tpm then
      reply[1] = tokenWait(used + estimate - tpm)
      break
    end
    redis.call('ZADD', T, now, head)
    redis.call('HSET', TA, head, estimate)
    redis.call('INCRBY', TT, estimate)
  end
  redis.call('ZREM', Q, head)
  redis.call('ZREM', QX, head)
  redis.call('ZADD', L, now + leaseMs, head)
  held = held + 1
  local owner = string.match(head, '^[^|]*|[^|]*|(.*)$')
  if owner == me then
    reply[#reply + 1] = head
  else
    local grants = 'collab-loop:limits:grants:'..owner
    redis.call('RPUSH', grants, head)
    redis.call('PEXPIRE', grants, leaseMs * 4)
  end
end

local keep = window * 2 + leaseMs * 4
for _, k in ipairs({ L, Q, QX, T, TA, TT, SEQ }) do redis.call('PEXPIRE', k, keep) end
return reply
`;
