-- For comparison only: the token bucket of Spring Cloud Gateway's RedisRateLimiter, re-implemented from
-- its behaviour (request_rate_limiter.lua in spring-cloud-gateway-server-webflux) so that the bench runs
-- the same arithmetic on the same cluster. Not Tollgate's check; see token_bucket.lua in the limiter.
--
-- KEYS[1]  the bucket's token count, KEYS[2] its last refill time; the gateway names them
--          request_rate_limiter.{<id>}.tokens and .timestamp, so both share a hash tag
-- ARGV[1]  replenish rate, tokens per second
-- ARGV[2]  burst capacity, tokens
-- ARGV[3]  now in whole seconds, or empty for Redis TIME (the gateway sends it empty)
-- ARGV[4]  tokens this request asks for
-- Returns {1 if allowed else 0, tokens left}
--
-- What sets it apart from Tollgate's script: time has whole-second resolution, so a second's refill
-- arrives all at once at the second boundary; tokens are Lua numbers, not integer milli-tokens; a
-- missing timestamp counts as 0 (the epoch), which fills a new bucket; both keys are rewritten with
-- SETEX on every call, allowed or not, and live twice the time to fill (floored to whole seconds).
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if now == nil then
  now = tonumber(redis.call('TIME')[1])
end
local requested = tonumber(ARGV[4])

local ttl = math.floor(capacity / rate * 2)
local tokens = tonumber(redis.call('GET', KEYS[1])) or capacity
local refreshed = tonumber(redis.call('GET', KEYS[2])) or 0

local available = math.min(capacity, tokens + math.max(0, now - refreshed) * rate)
local allowed = available >= requested
local left = available
if allowed then
  left = available - requested
end

if ttl > 0 then
  redis.call('SETEX', KEYS[1], ttl, left)
  redis.call('SETEX', KEYS[2], ttl, now)
end
return { allowed and 1 or 0, left }
