-- wrk: /v1/weather over a spread of 100 points in southern Finland (their cells are warmed first).
local points = {}
for i = 0, 99 do
    points[i + 1] = string.format("/v1/weather?lat=%.3f&lon=%.3f", 60.1 + (i % 10) * 0.05, 24.0 + math.floor(i / 10) * 0.1)
end
local n = 0
request = function()
    n = n + 1
    return wrk.format("GET", points[(n % 100) + 1])
end
