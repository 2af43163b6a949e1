-- wrk script: pipelined load. Each write carries `depth` GET / requests (script argument,
-- default 16); wrk counts every response. The WRK_JSON report comes from wrk_report.lua,
-- loaded from this file's own folder so the two cannot drift apart.
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "wrk_report.lua")

local batch

init = function(args)
  local depth = tonumber(args[1]) or 16
  local one = wrk.format("GET", "/")
  batch = string.rep(one, depth)
end

request = function()
  return batch
end
