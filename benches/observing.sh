#!/usr/bin/env bash
# The cost of observing, counted in instructions: refserve plain, with
# `--metrics-addr` and with `--access-log-format json` (lines written to a
# file), each run under valgrind's cachegrind while h2load sends it REQUESTS
# and then 2 × REQUESTS requests over 64 HTTP/1.1 connections. The
# difference of the two counts over REQUESTS is what one request costs in
# user-space instructions: start, table, connections and exit cancel out.
# Each request carries the User-Agent of a browser or of an agent, as the
# metrics count requests by client class; BEFORE=path/to/refserve adds a
# column for another build with metrics (the cost of a change to them).
#
# CPU time per request (benches/load.sh) moves by several percent between two
# processes of one binary on this machine and its VM has no hardware counters
# for `perf stat`; the count repeats to a few instructions. What it leaves
# out: the kernel's share (the same socket calls in all three, plus the log
# writer's one write(2) per 50 ms) and cache effects.
#
#   benches/observing.sh        # about five minutes after the build
#
# Settings: REQUESTS=10000, BEFORE (unset). Needs valgrind and h2load (apt-get installs
# them when run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
# shellcheck source=benches/lib.sh
. benches/lib.sh
REQUESTS=${REQUESTS:-10000}
[[ $REQUESTS =~ ^[1-9][0-9]*$ ]] || die "REQUESTS must be a positive integer"

command -v valgrind >/dev/null || install_packages valgrind
command -v h2load >/dev/null || install_packages nghttp2-client
for tool in valgrind h2load curl cargo; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
build_refserve
read -r PORT PORT_METRICS < <(free_ports 2)

per_request() { # mode path header... → instructions per request
    local mode=$1 path=$2 args=() once twice
    shift 2
    case $mode in
    metrics) args=(--metrics-addr "127.0.0.1:$PORT_METRICS") ;;
    json-log) args=(--access-log-format json) ;;
    esac
    once=$(instructions_under_load "$PORT" "$path" "$REQUESTS" "${args[@]}" -- "$@")
    twice=$(instructions_under_load "$PORT" "$path" $((2 * REQUESTS)) "${args[@]}" -- "$@")
    echo $(((twice - once) / REQUESTS))
}

CHROME='Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'
CHATGPT='Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)'
if [[ -n ${BEFORE:-} ]]; then
    [[ -x $BEFORE ]] || die "BEFORE must be a refserve binary"
    echo "| Request | plain | metrics | change | JSON log | change | metrics, BEFORE | change |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|"
else
    echo "| Request | plain | metrics | change | JSON log | change |"
    echo "|---|--:|--:|--:|--:|--:|"
fi
row() { # label path header...
    local label=$1 plain metrics log before=0
    shift
    say "measuring $label"
    plain=$(per_request plain "$@")
    metrics=$(per_request metrics "$@")
    log=$(per_request json-log "$@")
    if [[ -n ${BEFORE:-} ]]; then
        before=$(REFSERVE=$BEFORE per_request metrics "$@")
    fi
    python3 -c '
import sys
label, plain, metrics, log, before = sys.argv[1], *map(int, sys.argv[2:])
change = lambda n, of: f"{(n / of - 1) * 100:+.1f}%"
cells = [f"{plain:,}", f"{metrics:,}", change(metrics, plain), f"{log:,}", change(log, plain)]
if before:
    cells += [f"{before:,}", change(metrics, before)]
print(f"| {label} | " + " | ".join(cells) + " |")
' "$label" "$plain" "$metrics" "$log" "$before"
}
row '`/api/reference/select.json` br, browser' /api/reference/select.json -H "Accept-Encoding: br" -H "User-Agent: $CHROME"
row '`/` HTML br, browser' / -H "Accept: text/html" -H "Accept-Encoding: br" -H "User-Agent: $CHROME"
row '`/api/select.md` br, ChatGPT-User' /api/select.md -H "Accept-Encoding: br" -H "User-Agent: $CHATGPT"
