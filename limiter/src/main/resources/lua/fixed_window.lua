-- Fixed window check-and-spend (daily quotas): at most `limit` per UTC-aligned window.
-- All KEYS carry the same hash tag {<key>}, so they live in one slot and this runs atomically.
--
-- KEYS[i]  q:{<key>}:<rule>:<window start>, a counter for one window (the caller names the window)
-- ARGV: four integers per key i, starting at ARGV[1 + 4 * (i - 1)]:
--   limit   count allowed per window
--   window  the window in ms; windows start at multiples of it since the epoch (UTC midnight for a day)
--   cost    count one request spends
--   start   the window start the caller named KEYS[i] after, in ms since the epoch
-- Returns {allowed, retry_ms, hold_ms, remaining_1, reset_ms_1, ...} (hold_ms = retry_ms), or {-1, now_ms}
-- when the caller's clock put the call in another window than the store's TIME says: the caller renames the keys and retries.
-- A denied call increments nothing. A counter lives one hour past its window (25 h for a day).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local n = #KEYS
local counts = {}
local allowed, retry = 1, 0
for i = 1, n do
  local a = 4 * (i - 1)
  local limit, window = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local cost, start = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  if now - (now % window) ~= start then
    return { -1, now }
  end
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = count
  if count + cost > limit then
    allowed = 0
    retry = math.max(retry, start + window - now)
  end
end

local reply = { allowed, retry, retry }
for i = 1, n do
  local a = 4 * (i - 1)
  local limit, window = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local cost, start = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local count = counts[i]
  if allowed == 1 then
    count = redis.call('INCRBY', KEYS[i], cost)
    redis.call('PEXPIREAT', KEYS[i], start + window + 3600000)
  end
  reply[2 * i + 2] = limit - count
  reply[2 * i + 3] = start + window - now
end
return reply
