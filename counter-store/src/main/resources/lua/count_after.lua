#!lua flags=allow-cross-slot-keys
-- Count after: adds what one pod admitted on its own, per key, since its last flush to each key's bucket or
-- window, and answers which of them are now over and for how long. One call per shard per flush carries many
-- keys of many slots (each key's hash tag is its own), all owned by the primary this call is sent to:
-- allow-cross-slot-keys lets the script touch them, and the keys other than the routing key and the call's marker
-- travel in ARGV, or Redis Cluster would refuse the call (CROSSSLOT). A key whose slot moved away fails the call.
--
-- A call is applied once. The pod resends a call that failed or timed out (a timed-out call may have run) with the
-- same id; the marker, set here in the routing key's slot with the call's first run and kept longer than the pod
-- resends, holds that run's verdicts (entry:until_ms, ...), so a resend counts nothing, touches no other key (a
-- struggling shard pays one GET for it) and answers those verdicts with their waits as of now. The marker is set
-- before any count: a call that fails half-way (a slot moved during a reshard) is never counted twice, at the cost
-- of the rest of its counts.
--
-- KEYS[1]  the first entry's key: it routes the call to the primary that owns the batch
-- KEYS[2]  the call's marker, tg:{<KEYS[1]'s hash tag>}:flush:<call id>
-- ARGV[1]  n, the entries
-- ARGV[2]  how long the marker lives (ms)
-- then seven values per entry i, starting at ARGV[3 + 7 * (i - 1)]:
--   'bucket'  key rl:{<key>}:<rule> (the hash spend.lua keeps, {tokens_milli, ts_ms, q_us}), refill (milli-tokens
--             per period), period (ms), burst (milli-tokens), units (tokens admitted), need (tokens the next
--             request needs)
--   'window'  key q:{<key>}:<rule>:<window> (named by the pod's clock, as spend.lua's caller names it), limit,
--             window (ms), start (the window start the key is named after), units (count admitted), need
-- A bucket may go into debt, all of it kept: admitted after the fact, the tokens are owed, and the key stays
-- over until the refill pays them back. A window counts past its limit for the same reason.
-- Returns {now_ms, replayed, i_1, wait_ms_1, i_2, wait_ms_2, ...}: replayed is 1 when the call had run before (this
-- run counted nothing), then for each entry over (it cannot pay for one more request of `need`), its index and the
-- ms until it can.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n, ttl = tonumber(ARGV[1]), ARGV[2]
local seen = redis.call('GET', KEYS[2])
if seen then
  local reply = { now, 1 }
  for i, until_ms in string.gmatch(seen, '(%d+):(%d+)') do
    local wait = tonumber(until_ms) - now
    if wait > 0 then
      reply[#reply + 1] = tonumber(i)
      reply[#reply + 1] = wait
    end
  end
  return reply
end
redis.call('SET', KEYS[2], '', 'PX', ttl)
local reply = { now, 0 }
local verdicts = {}
for i = 1, n do
  local a = 3 + 7 * (i - 1)
  local kind, key = ARGV[a], ARGV[a + 1]
  local p1, p2, p3 = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local units, need = tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6])
  if kind == 'bucket' then
    local refill, period, burst = p1, p2, p3
    local s = redis.call('HMGET', key, 'tokens_milli', 'ts_ms')
    local l, ts = tonumber(s[1]), tonumber(s[2])
    -- refilled exactly as spend.lua refills
    if l == nil or ts == nil or ts > now then
      l, ts = math.min(l or burst, burst), now
    end
    if l >= burst or (now - ts) * refill >= (burst - l) * period then
      l, ts = burst, now
    else
      local earned = math.floor((now - ts) * refill / period)
      l = l + earned
      ts = ts + math.ceil(earned * period / refill)
    end
    -- the whole debt is kept: a floor would forgive what the pods admitted past it, and the fleet's overshoot would
    -- grow past its bound once pods x allowance exceeds the burst; the debt itself is bounded by that overshoot
    l = l - units * 1000
    redis.call('HSET', key, 'tokens_milli', l, 'ts_ms', ts)
    -- kept until the refill has paid the debt and filled the bucket, and as long again (spend.lua's rule at l >= 0)
    redis.call('PEXPIRE', key, math.ceil((2 * burst - math.min(l, 0)) * period / refill))
    if l < need * 1000 then
      reply[#reply + 1] = i
      reply[#reply + 1] = math.max(1, ts + math.ceil((need * 1000 - l) * period / refill) - now)
      verdicts[#verdicts + 1] = string.format('%d:%d', i, now + reply[#reply])
    end
  elseif kind == 'window' then
    local limit, window, start = p1, p2, p3
    local c
    if units > 0 then
      c = redis.call('INCRBY', key, units)
      redis.call('PEXPIREAT', key, start + window + math.min(window, 3600000))
    else
      c = tonumber(redis.call('GET', key) or '0')
    end
    if c + need > limit and start + window > now then
      reply[#reply + 1] = i
      reply[#reply + 1] = start + window - now
      verdicts[#verdicts + 1] = string.format('%d:%d', i, start + window)
    end
  else
    return redis.error_reply('count_after: unknown kind ' .. tostring(kind))
  end
end
if #verdicts > 0 then
  redis.call('SET', KEYS[2], table.concat(verdicts, ','), 'PX', ttl)
end
return reply
