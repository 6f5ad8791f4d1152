-- wrk script: each connection waits 2 ms before its next request, so both servers see the same offered
-- load (at most 500 req/s per connection) and p99 measures the server, not a CPU-starved load generator.
function delay()
  return 2
end
