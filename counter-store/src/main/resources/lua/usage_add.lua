-- Usage report: adds one pod's admitted cost per (rule, key) to one usage window of its region.
-- Advisory data for the budget rebalancer, written off the request path once a second per pod.
-- One call carries many fields, so a pod's flush costs one command per window hash it touches,
-- not one per key.
--
-- KEYS[1]  u:{<shard>}:<window start s>, a hash; see dev.tollgate.limiter.usage.UsageKeys
-- ARGV[1]  time to live in ms, renewed by every write (the rebalancer reads a window once it closed)
-- then two per field, starting at ARGV[2]:
--   field  <rule>:<key> (a rule id holds no ':', so the first ':' splits them)
--   cost   whole units admitted for it since the pod's last flush (> 0)
-- Returns {fields}: how many fields were added.
for i = 2, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return { (#ARGV - 1) / 2 }
