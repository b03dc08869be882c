#!/usr/bin/env bash
# What a `GET /search` costs next to a page: a browser's navigation to
# `/api/select` (br, from the table) and to `/search?q=…` (the query
# ranked, the answer put together in identity), and the same search as JSON
# and as Markdown, on one core.
#
#   - requests per second and server CPU per request under wrk (64
#     connections, HTTP/1.1; the server on SERVER_CPU, wrk on LOAD_CPU), the
#     median of ROUNDS runs, each on a fresh process;
#   - user-space instructions per request (valgrind's cachegrind while h2load
#     sends REQUESTS and then 2 × REQUESTS; the difference over REQUESTS),
#     which repeat where times do not.
#
#   benches/search.sh        # about four minutes after the build
#
# Settings: ROUNDS=3 DURATION=5s WARMUP=1s REQUESTS=10000 SERVER_CPU=0
# LOAD_CPU=1 QUERY="count the rows that match a condition". Needs wrk, h2load
# and valgrind (apt-get installs them as root).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
# shellcheck source=benches/lib.sh
. benches/lib.sh
REQUESTS=${REQUESTS:-10000}
[[ $REQUESTS =~ ^[1-9][0-9]*$ ]] || die "REQUESTS must be a positive integer"
QUERY=${QUERY:-count the rows that match a condition}
Q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote_plus(sys.argv[1]))' "$QUERY")

command -v wrk >/dev/null || install_packages wrk
command -v h2load >/dev/null || install_packages nghttp2-client
command -v valgrind >/dev/null || install_packages valgrind
for tool in wrk h2load valgrind taskset curl cargo python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
build_refserve
read -r PORT < <(free_ports 1)
ORIGIN=http://127.0.0.1:$PORT

# Chrome's navigation headers (the table's common values).
BROWSER=(-H "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
    -H "Accept-Encoding: gzip, deflate, br, zstd")

case_of() { # name → sets URL_PATH and HEADERS
    case $1 in
    page) URL_PATH=/api/select HEADERS=("${BROWSER[@]}") ;;
    search) URL_PATH="/search?q=$Q" HEADERS=("${BROWSER[@]}") ;;
    json) URL_PATH="/search?q=$Q" HEADERS=(-H "Accept: application/json") ;;
    markdown) URL_PATH="/search?q=$Q" HEADERS=(-H "Accept: text/markdown") ;;
    esac
}


timed() { # case → "rps µs_per_request bytes", one fresh process
    local s0 s1 rps bytes
    case_of "$1"
    start_pinned "$REFSERVE"
    bytes=$(curl -s -o /dev/null -w '%{size_download}' "${HEADERS[@]}" "$ORIGIN$URL_PATH")
    run_wrk "$WORK/warmup" "$WARMUP_S" 64 "$ORIGIN$URL_PATH" "${HEADERS[@]}"
    s0=$(cpu_ticks "$PID")
    run_wrk "$WORK/wrk.out" "$DURATION_S" 64 "$ORIGIN$URL_PATH" "${HEADERS[@]}"
    s1=$(cpu_ticks "$PID")
    stop_pinned
    read -r rps _ _ errors < <(parse_wrk "$WORK/wrk.out")
    ((errors == 0)) || die "$1: $errors errors or unexpected statuses: $(cat "$WORK/wrk.out")"
    python3 -c 'import sys; rps, ticks, hz, d, b = map(float, sys.argv[1:]); print(f"{rps:.0f} {ticks / hz * 1e6 / (rps * d):.2f} {b:.0f}")' \
        "$rps" "$((s1 - s0))" "$HZ" "$DURATION_S" "$bytes"
}

instructions() { # case requests → instructions of the whole run
    case_of "$1"
    instructions_under_load "$PORT" "$URL_PATH" "$2" -- "${HEADERS[@]}"
}

say "query: $QUERY"
echo "| Request | body bytes | req/s (median of $ROUNDS) | CPU µs/req | instructions/req | × the page's instructions |"
echo "|---|--:|--:|--:|--:|--:|"
PAGE_INSTRUCTIONS=
for name in page search json markdown; do
    say "measuring $name"
    : >"$WORK/runs"
    for _ in $(seq "$ROUNDS"); do timed "$name" >>"$WORK/runs"; done
    once=$(instructions "$name" "$REQUESTS")
    twice=$(instructions "$name" $((2 * REQUESTS)))
    per=$(((twice - once) / REQUESTS))
    [[ -n $PAGE_INSTRUCTIONS ]] || PAGE_INSTRUCTIONS=$per
    python3 - "$name" "$WORK/runs" "$per" "$PAGE_INSTRUCTIONS" <<'PY'
import statistics, sys
name, runs, per, page = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [tuple(map(float, line.split())) for line in open(runs)]
label = {"page": "`GET /api/select`, a browser's (br)", "search": "`GET /search?q=…`, a browser's (HTML)",
         "json": "`GET /search?q=…` as JSON", "markdown": "`GET /search?q=…` as Markdown"}[name]
rps = statistics.median(r for r, _, _ in rows)
cpu = statistics.median(c for _, c, _ in rows)
size = int(rows[0][2])
print(f"| {label} | {size:,} | {rps:,.0f} | {cpu:.2f} | {per:,} | {per / page:.2f} |")
PY
done
