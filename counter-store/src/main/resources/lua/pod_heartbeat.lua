-- One pod's heartbeat in its region's registry, and the count of live pods.
--
-- KEYS[1]  tg:{pods}:<region>, a sorted set: member = pod id, score = its last heartbeat in ms (store TIME)
-- ARGV[1]  the pod's id
-- ARGV[2]  ttl in ms: a pod whose last heartbeat is older than this is no longer counted
-- Returns the number of live pods, this one included.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
redis.call('PEXPIRE', KEYS[1], ttl * 10)
return { redis.call('ZCARD', KEYS[1]) }
