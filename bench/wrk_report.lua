-- wrk script: at the end of a run, print one line "WRK_JSON {...}" with the totals the
-- load runner needs (wrk's text report rounds; this does not). Latencies in microseconds.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"duration_us": %d, "requests": %d, "bytes": %d, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, ' ..
    '"latency_us": {"p50": %d, "p99": %d, "max": %d, "mean": %.1f}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, latency.mean))
end
