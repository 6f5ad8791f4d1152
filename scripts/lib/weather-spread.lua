-- wrk: /v1/weather for POINTS distinct points spread over Finland (lat 59.8–70.0, lon 20.0–31.5), each asked
-- once; every thread takes its own slice. CLIENTS=one: all from wrk's own address (one scraper walking a grid);
-- CLIENTS=many: each point from its own address, named in X-Forwarded-For (pier trusts loopback as a proxy),
-- like an app population behind Caddy. A thread that has its answers writes DONE_DIR/<id>; scripts/bench
-- then stops wrk with SIGINT (wrk's own thread:stop does not end the run early). Prints the answers by status.
local total = tonumber(os.getenv("POINTS") or "50000")
local many = os.getenv("CLIENTS") == "many"
local doneDir = os.getenv("DONE_DIR")
local threads = {}

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

function init(args)
    count = 0
    answered = 0
    statuses = {}
    nthreads = tonumber(os.getenv("WRK_THREADS") or "2")
    mine = math.floor(total / nthreads)
end

-- A fixed, well-spread sequence (golden-ratio steps), so runs are comparable.
local function point(i)
    local a = (i * 0.6180339887498949) % 1
    local b = (i * 0.7548776662466927) % 1
    return 59.8 + a * 10.2, 20.0 + b * 11.5
end

function request()
    local i = id + count * nthreads + 1
    count = count + 1
    local lat, lon = point(i)
    local headers = {}
    if many then
        headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256)
    end
    return wrk.format("GET", string.format("/v1/weather?lat=%.5f&lon=%.5f", lat, lon), headers)
end

function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
    answered = answered + 1
    if answered == mine and doneDir then
        local file = io.open(doneDir .. "/" .. id, "w")
        if file then file:close() end
    end
end

function done(summary, latency, requests)
    local merged = {}
    for _, thread in ipairs(threads) do
        local s = thread:get("statuses")
        for status, n in pairs(s) do merged[status] = (merged[status] or 0) + n end
    end
    local parts = {}
    for status, n in pairs(merged) do table.insert(parts, status .. "=" .. n) end
    table.sort(parts)
    io.write("statuses " .. table.concat(parts, " ") .. "\n")
end
