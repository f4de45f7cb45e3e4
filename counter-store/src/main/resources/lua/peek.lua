#!lua flags=no-writes
-- Reads, without writing anything, what spend.lua would read for the same call: the store's clock and each
-- limit's stored state, so that a pod can say how a key stands (check-service's explain) and a look leaves no
-- trace (no refill written, no log trimmed, no expiry moved). The arithmetic is the pod's: a bucket's level is
-- refilled in Java by BucketLevel, the one copy of spend.lua's refill outside it. no-writes also lets Redis run
-- it on a replica, and refuses it, rather than running it, if it ever wrote.
--
-- KEYS and ARGV as spend.lua takes them (want, pods, then five values per key), so one builder names both.
-- Returns {now_ms, then three values per key i}:
--   'bucket'  tokens_milli, ts_ms (both 0 when absent), 1 when the bucket is stored (a count-after debt makes
--             tokens_milli negative, so no value of it can mean "absent")
--   'log'     events inside the trailing window, the newest event's ms (-1: none), 0
--   'window'  the window's count (0 when absent), the window start the call named, 1 when the store's clock is
--             in that window (0: the caller's clock named another one)
local t = redis.call('TIME')
local now = math.floor((tonumber(t[1]) * 1000000 + tonumber(t[2])) / 1000)
local reply = { now }
for i = 1, #KEYS do
  local a = 3 + 5 * (i - 1)
  local kind = ARGV[a]
  if kind == 'bucket' then
    local s = redis.call('HMGET', KEYS[i], 'tokens_milli', 'ts_ms')
    local l, ts = tonumber(s[1]), tonumber(s[2])
    reply[#reply + 1] = l or 0
    reply[#reply + 1] = ts or 0
    reply[#reply + 1] = (l ~= nil and ts ~= nil) and 1 or 0
  elseif kind == 'log' then
    local window = tonumber(ARGV[a + 2])
    reply[#reply + 1] = redis.call('ZCOUNT', KEYS[i], '(' .. (now - window), '+inf')
    local newest = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
    reply[#reply + 1] = newest[2] and tonumber(newest[2]) or -1
    reply[#reply + 1] = 0
  elseif kind == 'window' then
    local window, start = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 4])
    reply[#reply + 1] = tonumber(redis.call('GET', KEYS[i]) or '0')
    reply[#reply + 1] = start
    reply[#reply + 1] = (now - (now % window) == start) and 1 or 0
  else
    return redis.error_reply('peek: unknown kind ' .. tostring(kind))
  end
end
return reply
