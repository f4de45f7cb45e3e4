-- Gives back what one check spent on keys that share a slot, when another part of the same check denied
-- the request (a route bucket empty, a login log full on another key): a denied request spends nothing.
-- All KEYS carry the same hash tag {<key>}, so they live in one slot and this runs atomically.
--
-- KEYS[i]  the key the spend wrote: a bucket hash, a fixed window's counter or a sliding log
-- ARGV: three values per key i, starting at ARGV[1 + 3 * (i - 1)]:
--   kind    'bucket', 'window' or 'log'
--   amount  bucket: milli-tokens to give back; window: the count to take back; log: events to remove
--   extra   bucket: the burst in milli-tokens, never exceeded; log: the member prefix the spend used
--           ('<micros>:<i>', members '<prefix>:<j>'); window: unused
-- Returns {keys changed}. A key that expired meanwhile is left alone: it is full (or empty) already.
local changed = 0
for i = 1, #KEYS do
  local a = 3 * (i - 1)
  local kind, amount, extra = ARGV[a + 1], tonumber(ARGV[a + 2]), ARGV[a + 3]
  if kind == 'bucket' then
    local l = tonumber(redis.call('HGET', KEYS[i], 'tokens_milli'))
    if l ~= nil then
      redis.call('HSET', KEYS[i], 'tokens_milli', math.min(tonumber(extra), l + amount))
      changed = changed + 1
    end
  elseif kind == 'window' then
    local count = tonumber(redis.call('GET', KEYS[i]))
    if count ~= nil and count > 0 then
      -- DECRBY keeps the key's expiry
      redis.call('DECRBY', KEYS[i], math.min(count, amount))
      changed = changed + 1
    end
  elseif kind == 'log' then
    for j = 1, amount do
      changed = changed + redis.call('ZREM', KEYS[i], extra .. ':' .. j)
    end
  end
end
return { changed }
