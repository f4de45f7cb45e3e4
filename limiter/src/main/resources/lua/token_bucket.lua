-- Token bucket check-and-spend over every bucket of one request that shares a key.
-- All KEYS carry the same hash tag {<key>}, so they live in one slot and this runs atomically.
--
-- KEYS[i]  rl:{<key>}:<rule>, a hash {tokens_milli, ts_ms, q_us}
-- ARGV[1]  want: requests the caller would like to lease (1 = an exact per-request check)
-- ARGV[2]  pods: live pods in the region; a lease never takes more than 1 / (2 * pods) of what is left
-- then four integers per key i, starting at ARGV[3 + 4 * (i - 1)]:
--   refill  milli-tokens added per period (rate * 1000, times the region's share)
--   period  the refill period in ms (1000 for a per-second rate)
--   burst   capacity in milli-tokens
--   cost    whole tokens one request spends on this bucket
-- Returns {grant, retry_ms, hold_ms, remaining_1, reset_ms_1, remaining_2, reset_ms_2, ...}
--   grant     requests granted (0 = deny; nothing was spent on any key)
--   retry_ms  on deny, ms until every denying bucket holds its cost again
--   hold_ms   how long the asking pod should answer this key from its deny cache: on a deny retry_ms,
--             or later when other callers were denied just before and the next tokens are theirs; on a
--             grant that left a bucket unable to pay for another request, the same for the next request
--             (0 otherwise)
--   remaining whole tokens left after the spend; reset_ms: ms until that bucket is full again
--
-- Arithmetic stays in integers: a refill credits whole milli-tokens only and moves ts_ms forward by
-- exactly the time those milli-tokens took (rounded up), so a fractional rate (5 per minute) never
-- drifts and never credits a milli-token early. The validator keeps every product below 10^15.
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
local MAX_HOLD_MS = 1000
local want, pods = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(now_us / 1000)

local n = #KEYS
local level, last, tail = {}, {}, {}
local grant = want
for i = 1, n do
  local a = 2 + 4 * (i - 1)
  local refill, period = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local burst, cost = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local s = redis.call('HMGET', KEYS[i], 'tokens_milli', 'ts_ms', 'q_us')
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
  if whole < cost then
    grant = 0
  elseif grant > 0 then
    grant = math.min(grant, math.max(1, math.floor(whole / (2 * pods * cost))))
  end
end

local reply = { grant, 0, 0 }
local retry, hold = 0, 0
for i = 1, n do
  local a = 2 + 4 * (i - 1)
  local refill, period = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local burst, cost = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local l, ts = level[i] - grant * cost * 1000, last[i]
  if l < cost * 1000 then
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
  -- untouched for twice the time it takes to fill from empty, a bucket is full anyway: drop it
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst * period / refill) * 2)
  reply[2 * i + 2] = math.floor(l / 1000)
  reply[2 * i + 3] = math.max(0, ts + math.ceil((burst - l) * period / refill) - now)
end
reply[2], reply[3] = retry, hold
return reply
