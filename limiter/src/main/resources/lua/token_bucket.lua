-- Token bucket check-and-spend over every bucket of one request that shares a key.
-- All KEYS carry the same hash tag {<key>}, so they live in one slot and this runs atomically.
--
-- KEYS[i]  rl:{<key>}:<rule>, a hash {tokens_milli, ts_ms}
-- ARGV[1]  want: requests the caller would like to lease (1 = an exact per-request check)
-- ARGV[2]  pods: live pods in the region; a lease never takes more than 1 / (2 * pods) of what is left
-- then four integers per key i, starting at ARGV[3 + 4 * (i - 1)]:
--   refill  milli-tokens added per period (rate * 1000, times the region's share)
--   period  the refill period in ms (1000 for a per-second rate)
--   burst   capacity in milli-tokens
--   cost    whole tokens one request spends on this bucket
-- Returns {grant, retry_ms, remaining_1, reset_ms_1, remaining_2, reset_ms_2, ...}
--   grant     requests granted (0 = deny; nothing was spent on any key)
--   retry_ms  on deny, ms until every denying bucket holds its cost again
--   remaining whole tokens left after the spend; reset_ms: ms until that bucket is full again
--
-- Arithmetic stays in integers: a refill credits whole milli-tokens only and moves ts_ms forward by
-- exactly the time those milli-tokens took (rounded up), so a fractional rate (5 per minute) never
-- drifts and never credits a milli-token early. The validator keeps every product below 10^15.
local want, pods = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local n = #KEYS
local level, last = {}, {}
local grant, retry = want, 0
for i = 1, n do
  local a = 2 + 4 * (i - 1)
  local refill, period = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local burst, cost = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local s = redis.call('HMGET', KEYS[i], 'tokens_milli', 'ts_ms')
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
  level[i], last[i] = l, ts

  local whole = math.floor(l / 1000)
  if whole < cost then
    grant = 0
    local wait = ts + math.ceil((cost * 1000 - l) * period / refill) - now
    retry = math.max(retry, math.max(1, wait))
  elseif grant > 0 then
    grant = math.min(grant, math.max(1, math.floor(whole / (2 * pods * cost))))
  end
end

local reply = { grant, retry }
for i = 1, n do
  local a = 2 + 4 * (i - 1)
  local refill, period = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local burst, cost = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local l = level[i] - grant * cost * 1000
  redis.call('HSET', KEYS[i], 'tokens_milli', l, 'ts_ms', last[i])
  -- untouched for twice the time it takes to fill from empty, a bucket is full anyway: drop it
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst * period / refill) * 2)
  reply[2 * i + 1] = math.floor(l / 1000)
  reply[2 * i + 2] = math.max(0, last[i] + math.ceil((burst - l) * period / refill) - now)
end
return reply
