wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local key = "acct_" .. math.random(1, 10000)
  return wrk.format(nil, "/v1/ratelimit:check", nil,
    '{"domain":"public-api","entries":[{"rule":"bench-global","key":"' .. key .. '","cost":1},{"rule":"bench-global","key":"' .. key .. '-b","cost":1}]}')
end
