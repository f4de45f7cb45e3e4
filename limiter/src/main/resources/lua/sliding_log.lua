-- Sliding log check-and-spend (login attempts): at most `limit` accepted events in any trailing window.
-- All KEYS carry the same hash tag {<key>}, so they live in one slot and this runs atomically.
--
-- KEYS[i]  rl:{<key>}:<rule>, a sorted set: one member per accepted event, scored by its time in ms
-- ARGV: three integers per key i, starting at ARGV[1 + 3 * (i - 1)]:
--   limit   events allowed per window
--   window  the window in ms
--   cost    events one request counts for
-- Returns {allowed, retry_ms, hold_ms, remaining_1, reset_ms_1, ..., stamp}; hold_ms = retry_ms
--   allowed   1 or 0 (0: nothing was added to any log)
--   retry_ms  on deny, ms until enough old events have left every denying window
--   remaining events left in the window; reset_ms: ms until the log is empty again
--   stamp     the store's microsecond clock that named this call's members ('<stamp>:<i>:<j>'), so that
--             the spend can be taken back (refund.lua) when another part of the check denies it
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local micros = t[1] .. string.format('%06d', tonumber(t[2]))

local n = #KEYS
local counts = {}
local allowed, retry = 1, 0
for i = 1, n do
  local a = 3 * (i - 1)
  local limit, window, cost = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  -- trim first, so the count is of the trailing window only
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[i])
  counts[i] = count
  if count + cost > limit then
    allowed = 0
    -- the (count + cost - limit)-th oldest event must leave the window first
    local oldest = redis.call('ZRANGE', KEYS[i], count + cost - limit - 1, count + cost - limit - 1, 'WITHSCORES')
    retry = math.max(retry, math.max(1, tonumber(oldest[2]) + window - now))
  end
end

local reply = { allowed, retry, retry }
for i = 1, n do
  local a = 3 * (i - 1)
  local limit, window, cost = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local count = counts[i]
  if allowed == 1 then
    for j = 1, cost do
      -- members are unique per event: the store's microsecond clock, the key and the event's index
      local member = micros .. ':' .. i .. ':' .. j
      while redis.call('ZADD', KEYS[i], 'NX', now, member) == 0 do
        member = member .. '+'
      end
    end
    count = count + cost
    -- expire one window after the newest event
    redis.call('PEXPIRE', KEYS[i], window)
  end
  reply[2 * i + 2] = limit - count
  local newest = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  if newest[2] then
    reply[2 * i + 3] = math.max(0, tonumber(newest[2]) + window - now)
  else
    reply[2 * i + 3] = 0
  end
end
reply[2 * n + 4] = tonumber(micros)
return reply
