-- wrk script: one client (one X-Forwarded-For address) asking a new places point on every request — a flood of cold
-- keys; once its share is spent, every request is refused from memory. FLOOD_FIXED=1: the same point every time (a
-- cache hit), so that both runs pay wrk the same for writing their requests.
local fixed = os.getenv("FLOOD_FIXED") == "1"
request = function()
  local lat, lon = 47.05, 8.3
  if not fixed then lat, lon = 40 + math.random() * 10, 2 + math.random() * 15 end
  local path = string.format("/v1/places?lat=%.5f&lon=%.5f&radius=1000&categories=tourism.attraction", lat, lon)
  return wrk.format("GET", path, { ["X-Forwarded-For"] = "203.0.113.66" })
end
