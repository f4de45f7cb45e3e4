-- Check-and-spend over every limit of one request that shares a key, whatever its algorithm: token
-- buckets, sliding logs (login attempts) and fixed windows (daily quotas) of one key are checked and
-- spent together, all of them or none, so a request denied by its daily quota has not spent from its
-- bucket. All KEYS carry the same hash tag {<key>}, so they live in one slot and this runs atomically.
--
-- ARGV[1]  want: requests the caller would like to lease (1 = an exact per-request check); a lease is of
--          token buckets only, so a call naming a log or a window is granted one request at most
-- ARGV[2]  pods: live pods in the region, the most askers a bucket is ever counted to have
-- then five values per key i, starting at ARGV[3 + 5 * (i - 1)]: the kind, then four integers
--   'bucket'  KEYS[i] rl:{<key>}:<rule>, a hash {tokens_milli, ts_ms, q_us}
--             refill (milli-tokens per period: rate * 1000 * the region's share), period (ms),
--             burst (capacity in milli-tokens), cost (whole tokens one request spends)
--             A cost of 0, for any kind, only looks: the limit must hold one more request for the call to be
--             granted, and nothing is spent on it (a bucket's refill is written, as any call writes it).
--   'log'     KEYS[i] rl:{<key>}:<rule>:log, a sorted set: one member per accepted event, scored by its ms
--             limit (events per window), window (ms), cost (events one request counts for), 0
--   'window'  KEYS[i] q:{<key>}:<rule>:<window start>, a counter for one UTC-aligned window
--             limit (count per window), window (ms; windows start at multiples of it since the epoch),
--             cost, start (the window start the caller named KEYS[i] after, ms since the epoch)
-- then, optionally, after the last key's five: the asker (the calling pod's id) and the lease ttl (ms).
--          Each bucket keeps a field 'a:<asker>' = the ms of that pod's last lease ask; a lease takes at most
--          1 / (2 * askers) of what is left, askers being the pods that asked within the last ttl (the
--          caller included, never more than pods). Without an asker, askers = pods (the fleet's size).
-- Returns {grant, retry_ms, hold_ms, remaining_1, reset_ms_1, remaining_2, reset_ms_2, ..., stamp}
--   grant     requests granted (0 = deny; nothing was spent on any key)
--   retry_ms  on deny, ms until every denying limit holds its cost again
--   hold_ms   how long the asking pod should answer this key from its deny cache: on a deny at least
--             retry_ms, later when other callers were denied just before and the next tokens are theirs;
--             on a grant that left a bucket unable to pay for another request, the same for the next
--             request (0 otherwise)
--   remaining what is left after the spend (whole tokens, events, count); reset_ms: ms until that limit is
--             full again (bucket refilled, log empty, window over)
--   stamp     the store's microsecond clock (or the next one no member of this call's logs holds) that named this call's log members ('<stamp>:<i>:<j>'), so
--             that the spend can be taken back (refund.lua) when another key of the check denies it
-- or {-1, now_ms} when the caller's clock put a window in another window than the store's TIME says:
-- nothing was written, and the caller renames the keys and calls again.
--
-- Buckets: arithmetic stays in integers. A refill credits whole milli-tokens only and moves ts_ms
-- forward by exactly the time those milli-tokens took (rounded up), so a fractional rate (5 per minute)
-- never drifts and never credits a milli-token early. The validator keeps every product below 10^15.
--
-- The deny queue (q_us): without it, every pod denied on an empty bucket comes back when the next
-- token is due, one of them gets it and the rest are denied again, so a client spread over 50 pods
-- costs a store call on nearly every request. Each caller left facing an empty bucket (denied, or
-- granted the last token) instead takes the next free slot, one request's worth of refill after the
-- last slot handed out, so N contending pods come back one per token. The hold is never shorter than
-- the wait for the next token (it only ever denies what the bucket would), never longer than the
-- bucket takes to fill (tokens that accrue meanwhile wait for the next caller, none overflow), and
-- at most MAX_HOLD_MS, so a raised limit is seen within that time. The queue's tail is kept in
-- microseconds: at 25,000 tokens/s a slot is 40 us, and whole milliseconds would stretch each queued
-- caller's hold 25-fold.
--
-- Windows and logs: a denied call adds nothing. A window's counter outlives its window by one window, at
-- most an hour (25 h for a day, 2 s for a second: envoyproxy/ratelimit's per-second limits would otherwise
-- keep 3,600 dead counters per key); a log expires one window after its newest event.
local MAX_HOLD_MS = 1000
local want, pods = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(now_us / 1000)
local micros = t[1] .. string.format('%06d', tonumber(t[2]))

local n = #KEYS
-- only a lease ask counts its asker: an exact check is granted one request whatever the divisor, holds
-- nothing past its own request, and so strands nothing
local asker, asker_ttl = ARGV[3 + 5 * n], tonumber(ARGV[4 + 5 * n])
local me = nil
if want > 1 and asker ~= nil and asker ~= '' and asker_ttl ~= nil and asker_ttl > 0 then
  me = 'a:' .. asker
end
local kind, p1, p2, p3, p4 = {}, {}, {}, {}, {}
for i = 1, n do
  local a = 3 + 5 * (i - 1)
  kind[i] = ARGV[a]
  p1[i], p2[i], p3[i], p4[i] = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  if kind[i] == 'window' then
    if now - (now % p2[i]) ~= p4[i] then
      return { -1, now }
    end
  elseif kind[i] ~= 'bucket' and kind[i] ~= 'log' then
    return redis.error_reply('spend: unknown kind ' .. tostring(kind[i]))
  end
end

-- read every limit and decide before writing any
local level, last, tail, count = {}, {}, {}, {}
local grant, retry = want, 0
for i = 1, n do
  if kind[i] ~= 'bucket' then
    grant = math.min(grant, 1)
  end
end
for i = 1, n do
  if kind[i] == 'bucket' then
    local refill, period, burst, cost = p1[i], p2[i], p3[i], p4[i]
    local s
    local askers = pods
    if me then
      -- the bucket's askers: the caller, and every other pod whose last lease ask is younger than a lease;
      -- older asks are dropped here, so the fields are bounded by the pods that asked within one ttl
      local fields = redis.call('HGETALL', KEYS[i])
      local counted, stale = 1, {}
      s = {}
      for j = 1, #fields, 2 do
        local f = fields[j]
        if f == 'tokens_milli' then s[1] = fields[j + 1]
        elseif f == 'ts_ms' then s[2] = fields[j + 1]
        elseif f == 'q_us' then s[3] = fields[j + 1]
        elseif f ~= me and string.sub(f, 1, 2) == 'a:' then
          if tonumber(fields[j + 1]) > now - asker_ttl then
            counted = counted + 1
          else
            stale[#stale + 1] = f
          end
        end
      end
      if #stale > 0 then
        redis.call('HDEL', KEYS[i], unpack(stale))
      end
      askers = math.min(pods, counted)
    else
      s = redis.call('HMGET', KEYS[i], 'tokens_milli', 'ts_ms', 'q_us')
    end
    local l, ts = tonumber(s[1]), tonumber(s[2])
    if l == nil or ts == nil or ts > now then
      -- a new bucket starts full; a timestamp ahead of TIME (a promoted replica's clock) restarts the refill
      l, ts = math.min(l or burst, burst), now
    end
    if l >= burst or (now - ts) * refill >= (burst - l) * period then
      l, ts = burst, now
    else
      local earned = math.floor((now - ts) * refill / period)
      l = l + earned
      ts = ts + math.ceil(earned * period / refill)
    end
    level[i], last[i], tail[i] = l, ts, tonumber(s[3]) or 0
    local whole = math.floor(l / 1000)
    local need = math.max(cost, 1)
    if whole < need then
      grant = 0
    elseif grant > 0 then
      grant = math.min(grant, math.max(1, math.floor(whole / (2 * askers * need))))
    end
  elseif kind[i] == 'log' then
    local limit, window, cost = p1[i], p2[i], p3[i]
    -- trim first, so the count is of the trailing window only
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
    count[i] = redis.call('ZCARD', KEYS[i])
    local need = math.max(cost, 1)
    if count[i] + need > limit then
      grant = 0
      -- the (count + need - limit)-th oldest event must leave the window first
      local k = count[i] + need - limit - 1
      local oldest = redis.call('ZRANGE', KEYS[i], k, k, 'WITHSCORES')
      retry = math.max(retry, math.max(1, tonumber(oldest[2]) + window - now))
    end
  else
    local limit, window, cost, start = p1[i], p2[i], p3[i], p4[i]
    count[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
    if count[i] + math.max(cost, 1) > limit then
      grant = 0
      retry = math.max(retry, start + window - now)
    end
  end
end
-- a log or a window that denies asks the pod to hold off until it would admit again
local hold = retry

-- the log members' stamp: the store's microsecond, unless a member of that name is on one of this call's logs
-- already (the clock stepped back: a promoted replica behind the old primary). A refund removes the members its
-- call was told, so each call's names must be its own: the next free microsecond is
local stamp = tonumber(micros)
if grant > 0 then
  local taken = true
  while taken do
    taken = false
    for i = 1, n do
      if kind[i] == 'log' and redis.call('ZSCORE', KEYS[i], string.format('%d', stamp) .. ':' .. i .. ':1') then
        taken = true
        stamp = stamp + 1
        break
      end
    end
  end
end
local prefix = string.format('%d', stamp)

local reply = { grant, 0, 0 }
for i = 1, n do
  if kind[i] == 'bucket' then
    local refill, period, burst, cost = p1[i], p2[i], p3[i], p4[i]
    local l, ts = level[i] - grant * cost * 1000, last[i]
    if cost == 0 then
      -- a look takes no place in the deny queue: on a deny it only learns when one token is due
      if grant == 0 then
        retry = math.max(retry, math.max(1, ts + math.ceil((1000 - l) * period / refill) - now))
      end
      redis.call('HSET', KEYS[i], 'tokens_milli', l, 'ts_ms', ts)
    elseif l < cost * 1000 then
      -- the bucket cannot pay for the next request: on a deny this one's, after a grant the caller's next
      local wait = math.max(1, ts + math.ceil((cost * 1000 - l) * period / refill) - now)
      if grant == 0 then
        retry = math.max(retry, wait)
      end
      local slot_us = tail[i] + math.ceil(cost * 1000000 * period / refill) - now_us
      local fill = math.ceil((burst - l) * period / refill) - (now - ts)
      local held_us = math.max(wait * 1000, math.min(slot_us, fill * 1000, MAX_HOLD_MS * 1000))
      hold = math.max(hold, math.ceil(held_us / 1000))
      redis.call('HSET', KEYS[i], 'tokens_milli', l, 'ts_ms', ts, 'q_us', now_us + held_us)
    else
      redis.call('HSET', KEYS[i], 'tokens_milli', l, 'ts_ms', ts)
    end
    if me then
      -- asked, whether granted or not: a denied pod comes back, and its share must be kept for it
      redis.call('HSET', KEYS[i], me, now)
    end
    -- untouched for twice the time it takes to fill from empty, a bucket is full anyway: drop it (from a count-after
    -- debt, once the refill has paid it, as count_after.lua keeps it)
    redis.call('PEXPIRE', KEYS[i], math.ceil((2 * burst - math.min(l, 0)) * period / refill))
    reply[2 * i + 2] = math.floor(l / 1000)
    reply[2 * i + 3] = math.max(0, ts + math.ceil((burst - l) * period / refill) - now)
  elseif kind[i] == 'log' then
    local limit, window, cost = p1[i], p2[i], p3[i]
    local c = count[i]
    if grant > 0 and cost > 0 then
      for j = 1, cost do
        -- members are unique per event: the call's stamp, the key's index and the event's
        redis.call('ZADD', KEYS[i], now, prefix .. ':' .. i .. ':' .. j)
      end
      c = c + cost
      redis.call('PEXPIRE', KEYS[i], window)
    end
    reply[2 * i + 2] = limit - c
    local newest = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
    if newest[2] then
      reply[2 * i + 3] = math.max(0, tonumber(newest[2]) + window - now)
    else
      reply[2 * i + 3] = 0
    end
  else
    local limit, window, cost, start = p1[i], p2[i], p3[i], p4[i]
    local c = count[i]
    if grant > 0 and cost > 0 then
      c = redis.call('INCRBY', KEYS[i], cost)
      redis.call('PEXPIREAT', KEYS[i], start + window + math.min(window, 3600000))
    end
    reply[2 * i + 2] = limit - c
    reply[2 * i + 3] = start + window - now
  end
end
reply[2], reply[3] = retry, hold
reply[2 * n + 4] = stamp
return reply
