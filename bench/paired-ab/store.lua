-- The store-bound mix (bench scenario 8's StoreBoundMix): both rules on one of 20,000 keys drawn uniformly, so each
-- key stays under the route's 5/s and every check is a store call.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local key = "store_" .. math.random(1, 20000)
  return wrk.format(nil, "/v1/ratelimit:check", nil,
    '{"domain":"bench","entries":[{"rule":"enterprise-global","key":"' .. key .. '","cost":1},{"rule":"labels-route","key":"' .. key .. '","cost":1}]}')
end
