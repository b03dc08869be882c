#!/usr/bin/env bash
# Soak: drive a few million requests with a realistic mix (codings, pages as
# HTML and Markdown, 304 revalidations, errors, redirects) at refserve, and report
# its memory before, after a warm-up and after the soak. Memory should stay flat.
#
# Usage: benches/soak.sh            (DURATION=120s CONNECTIONS=64 by default)
# Traffic goes to 127.0.0.1 only; every process started here is stopped on exit.
# (No HEAD in the mix: wrk's parser would wait for the body a HEAD response
# announces but never sends. tests/ cover HEAD.)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-120s}
connections=${CONNECTIONS:-64}
port=${PORT:-18471}

command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
cargo build --release --quiet

work=$(mktemp -d)
cleanup() { [[ -n ${server:-} ]] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || true
taskset -c 0 ./target/release/refserve --addr "127.0.0.1:$port" 2>"$work/log" &
server=$!
for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; done
kb() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$server/status"; }

etag=$(curl -sI -H 'Accept-Encoding: br' "http://127.0.0.1:$port/api/reference/select.json" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" { print $2 }')
cat >"$work/mix.lua" <<LUA
-- One request in twelve of each kind, in a fixed rotation.
local mix = {
  wrk.format("GET", "/api/reference.json", { ["Accept-Encoding"] = "br" }),
  wrk.format("GET", "/api/reference.json", { ["Accept-Encoding"] = "gzip, deflate" }),
  wrk.format("GET", "/api/reference.json", {}),
  wrk.format("GET", "/api/reference/select.json", { ["Accept-Encoding"] = "gzip, deflate, br, zstd" }),
  wrk.format("GET", "/api/reference/select.json", { ["Accept-Encoding"] = "br", ["If-None-Match"] = '$etag' }),
  wrk.format("GET", "/", { ["Accept"] = "text/html,application/xhtml+xml,*/*;q=0.8", ["Accept-Encoding"] = "br" }),
  wrk.format("GET", "/api/update", { ["Accept"] = "text/markdown", ["Accept-Encoding"] = "gzip" }),
  wrk.format("GET", "/api/reference/selct.json", { ["Accept-Encoding"] = "br" }),
  wrk.format("GET", "/nope", { ["Accept"] = "text/html" }),
  wrk.format("GET", "/llms-full.txt", { ["Accept-Encoding"] = "gzip" }),
  wrk.format("DELETE", "/api/reference.json", {}),
  wrk.format("GET", "/API/Select/", {}),
}
local i = 0
request = function()
  i = i % #mix + 1
  return mix[i]
end
LUA

printf 'refserve RSS at start:        %6s kB\n' "$(kb VmRSS)"
taskset -c 1 wrk -t1 -c"$connections" -d10s -s "$work/mix.lua" "http://127.0.0.1:$port" >/dev/null
warm=$(kb VmRSS)
printf 'after a 10 s warm-up:         %6s kB\n' "$warm"
taskset -c 1 wrk -t1 -c"$connections" -d"$duration" -s "$work/mix.lua" "http://127.0.0.1:$port" >"$work/wrk"
after=$(kb VmRSS)
requests=$(awk '/requests in/ { print $1 }' "$work/wrk")
errors=$(awk '/Socket errors|Non-2xx/ { print }' "$work/wrk")
printf 'after %s requests (%s): %6s kB (peak %s kB)\n' "$requests" "$duration" "$after" "$(kb VmHWM)"
printf 'growth after the warm-up:     %6s kB\n' "$((after - warm))"
[[ -n $errors ]] && printf 'wrk: %s\n' "$errors"
grep -E 'Requests/sec|Latency' "$work/wrk"
