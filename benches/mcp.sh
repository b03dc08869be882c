#!/usr/bin/env bash
# What an MCP call costs next to a GET of the same Markdown page: a
# `get_method` (a stored answer, the id spliced in), a `search` (terms
# looked up and summed), a search with three typos (each read as its
# nearest words) and `GET /api/select.md` (br), on one core.
#
#   - requests per second and server CPU per request under wrk (64
#     connections, HTTP/1.1; the server on SERVER_CPU, wrk on LOAD_CPU), the
#     median of ROUNDS runs, each on a fresh process;
#   - user-space instructions per request (valgrind's cachegrind while h2load
#     sends REQUESTS and then 2 × REQUESTS; the difference over REQUESTS),
#     which repeat where times do not.
#
#   benches/mcp.sh        # about three minutes after the build
#
# Settings: ROUNDS=3 DURATION=5s WARMUP=1s REQUESTS=10000 SERVER_CPU=0
# LOAD_CPU=1. Needs wrk, h2load and valgrind (apt-get installs them as root).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
# shellcheck source=benches/lib.sh
. benches/lib.sh
REQUESTS=${REQUESTS:-10000}
[[ $REQUESTS =~ ^[1-9][0-9]*$ ]] || die "REQUESTS must be a positive integer"

command -v wrk >/dev/null || install_packages wrk
command -v h2load >/dev/null || install_packages nghttp2-client
command -v valgrind >/dev/null || install_packages valgrind
for tool in wrk h2load valgrind taskset curl cargo python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
build_refserve
read -r PORT < <(free_ports 1)
ORIGIN=http://127.0.0.1:$PORT

# The two calls, as a 2025-11-25 client sends them after its handshake.
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_method","arguments":{"name":"select"}}}' >"$WORK/get_method.json"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"count the rows that match a condition","limit":5}}}' >"$WORK/search.json"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"selct the avarage of a colum","limit":5}}}' >"$WORK/typos.json"
MCP_HEADERS=(-H "Content-Type: application/json" -H "Accept: application/json, text/event-stream"
    -H "MCP-Protocol-Version: 2025-11-25")
for call in get_method search typos; do
    cat >"$WORK/$call.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$(cat "$WORK/$call.json")]]
LUA
done

case_of() { # name → sets URL_PATH, ARGS (wrk), H2ARGS (h2load)
    case $1 in
    markdown)
        URL_PATH=/api/select.md ARGS=(-H "Accept-Encoding: br") H2ARGS=(-H "Accept-Encoding: br") ;;
    get_method | search | typos)
        URL_PATH=/mcp ARGS=(-s "$WORK/$1.lua" "${MCP_HEADERS[@]}")
        H2ARGS=(-d "$WORK/$1.json" "${MCP_HEADERS[@]}") ;;
    esac
}


timed() { # case → "rps µs_per_request", one fresh process
    local s0 s1 rps
    case_of "$1"
    start_pinned "$REFSERVE"
    run_wrk "$WORK/warmup" "$WARMUP_S" 64 "$ORIGIN$URL_PATH" "${ARGS[@]}"
    s0=$(cpu_ticks "$PID")
    run_wrk "$WORK/wrk.out" "$DURATION_S" 64 "$ORIGIN$URL_PATH" "${ARGS[@]}"
    s1=$(cpu_ticks "$PID")
    stop_pinned
    read -r rps _ _ errors < <(parse_wrk "$WORK/wrk.out")
    ((errors == 0)) || die "$1: $errors errors or unexpected statuses: $(cat "$WORK/wrk.out")"
    python3 -c 'import sys; rps, ticks, hz, d = map(float, sys.argv[1:]); print(f"{rps:.0f} {ticks / hz * 1e6 / (rps * d):.2f}")' \
        "$rps" "$((s1 - s0))" "$HZ" "$DURATION_S"
}

instructions() { # case requests → instructions of the whole run
    case_of "$1"
    instructions_under_load "$PORT" "$URL_PATH" "$2" -- "${H2ARGS[@]}"
}

echo "| Request | req/s (median of $ROUNDS) | CPU µs/req | instructions/req |"
echo "|---|--:|--:|--:|"
for name in markdown get_method search typos; do
    say "measuring $name"
    : >"$WORK/runs"
    for _ in $(seq "$ROUNDS"); do timed "$name" >>"$WORK/runs"; done
    once=$(instructions "$name" "$REQUESTS")
    twice=$(instructions "$name" $((2 * REQUESTS)))
    python3 - "$name" "$WORK/runs" $(((twice - once) / REQUESTS)) <<'PY'
import statistics, sys
name, runs, per = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [tuple(map(float, line.split())) for line in open(runs)]
label = {"markdown": "`GET /api/select.md` (br)", "get_method": "`tools/call get_method select`",
         "search": "`tools/call search` (6 words, 5 results)",
         "typos": "`tools/call search` with typos (6 words, 3 misspelt)"}[name]
rps = statistics.median(r for r, _ in rows)
cpu = statistics.median(c for _, c in rows)
print(f"| {label} | {rps:,.0f} | {cpu:.2f} | {per:,} |")
PY
done
