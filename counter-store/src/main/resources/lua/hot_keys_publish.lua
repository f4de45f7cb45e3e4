-- One pod's current top of hot keys and slots, published next to its heartbeat for rules-service to merge with
-- the rest of the fleet's (GET /v1/hot-keys there). A key of its own per pod, with a TTL of a few of the sketch's
-- windows, so that a pod that stops publishing (dead, or cut off from the store) drops out by itself.
--
-- KEYS[1]  tg:{pods}:<region>:hot:<pod>, a string: the report (dev.tollgate.store.read.PodHotKeys#encode)
-- ARGV[1]  the report, bounded by the pod (its top keys and slots only)
-- ARGV[2]  ttl in ms
-- Returns { 1 }.
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
return { 1 }
