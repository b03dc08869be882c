#!/usr/bin/env bash
# The cost of observing, counted in instructions: refserve plain, with
# `--metrics-addr` and with `--access-log-format json` (lines written to a
# file), each run under valgrind's cachegrind while h2load sends it REQUESTS
# and then 2 × REQUESTS requests over CONNECTIONS HTTP/1.1 connections. The
# difference of the two counts over REQUESTS is what one request costs in
# user-space instructions: start, table, connections and exit cancel out.
#
# CPU time per request (benches/load.sh) moves by several percent between two
# processes of one binary on this machine and its VM has no hardware counters
# for `perf stat`; the count repeats to a few instructions. What it leaves
# out: the kernel's share (the same socket calls in all three, plus the log
# writer's one write(2) per 50 ms) and cache effects.
#
#   benches/observing.sh        # about five minutes after the build
#
# Settings: REQUESTS=10000 CONNECTIONS=64. Needs valgrind and h2load
# (apt-get installs them when run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
# shellcheck source=benches/lib.sh
. benches/lib.sh
REQUESTS=${REQUESTS:-10000}
CONNECTIONS=${CONNECTIONS:-64}
for setting in REQUESTS CONNECTIONS; do
    [[ ${!setting} =~ ^[1-9][0-9]*$ ]] || die "$setting must be a positive integer"
done

command -v valgrind >/dev/null || install_packages valgrind
command -v h2load >/dev/null || install_packages nghttp2-client
for tool in valgrind h2load curl cargo; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
say "building (cargo build --release)"
cargo build --release --quiet
REFSERVE=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/refserve

read -r PORT PORT_METRICS < <(free_ports 2)

instructions() { # mode path requests header... → user-space instructions of the whole run
    local mode=$1 path=$2 requests=$3 args=() pid
    shift 3
    case $mode in
    metrics) args=(--metrics-addr "127.0.0.1:$PORT_METRICS") ;;
    json-log) args=(--access-log-format json) ;;
    esac
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        --log-file="$WORK/valgrind.out" "$REFSERVE" --addr "127.0.0.1:$PORT" "${args[@]}" \
        >/dev/null 2>"$WORK/access.log" &
    pid=$!
    PIDS+=("$pid")
    # Polls refused before the server listens cost it nothing; the one
    # answered costs one request in every run.
    for _ in $(seq 600); do
        curl -s -o /dev/null -m 5 "http://127.0.0.1:$PORT/robots.txt" && break
        sleep 0.1
    done
    h2load --h1 -n "$requests" -c "$CONNECTIONS" "$@" "http://127.0.0.1:$PORT$path" >"$WORK/h2load.out" ||
        die "h2load failed: $(cat "$WORK/h2load.out")"
    grep -q "succeeded, 0 failed, 0 errored" "$WORK/h2load.out" ||
        die "$mode $path: not every request succeeded: $(grep 'requests:' "$WORK/h2load.out")"
    kill -TERM "$pid"
    wait "$pid" || true
    forget "$pid"
    awk '/I *refs/ { gsub(",", "", $NF); print $NF }' "$WORK/valgrind.out"
}

per_request() { # mode path header... → instructions per request
    local mode=$1 path=$2 once twice
    shift 2
    once=$(instructions "$mode" "$path" "$REQUESTS" "$@")
    twice=$(instructions "$mode" "$path" $((2 * REQUESTS)) "$@")
    echo $(((twice - once) / REQUESTS))
}

echo "| Request | plain | metrics | change | JSON log | change |"
echo "|---|--:|--:|--:|--:|--:|"
row() { # label path header...
    local label=$1 plain metrics log
    shift
    say "measuring $label"
    plain=$(per_request plain "$@")
    metrics=$(per_request metrics "$@")
    log=$(per_request json-log "$@")
    python3 -c '
import sys
label, plain, metrics, log = sys.argv[1], *map(int, sys.argv[2:])
change = lambda n: f"{(n / plain - 1) * 100:+.1f}%"
print(f"| {label} | {plain:,} | {metrics:,} | {change(metrics)} | {log:,} | {change(log)} |")
' "$label" "$plain" "$metrics" "$log"
}
row '`/api/reference/select.json` br' /api/reference/select.json -H "Accept-Encoding: br"
row '`/` HTML br' / -H "Accept: text/html" -H "Accept-Encoding: br"
