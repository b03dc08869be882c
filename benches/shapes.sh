#!/usr/bin/env bash
# Server-shape benchmark: refserve's request handling behind four
# hyper/tokio shapes (benches/shapes.rs): hyper-util's auto builder
# (HTTP/1.1 + h2c) or hyper's http1 builder, on tokio's multi-thread or
# current-thread runtime; and the refserve binary itself (multi-thread, the
# http1 builder unless a connection's first byte may start the h2c preface).
# Each is pinned to SERVER_CPU, wrk to LOAD_CPU, as in load.sh.
#
#   benches/shapes.sh                   # about 4 minutes after the build
#
# Settings (environment): DURATION=3s WARMUP=1s ROUNDS=2 CONNECTIONS=64
# IDLE_CONNECTIONS=1000 SERVER_CPU=0 LOAD_CPU=1 QUIET=10 QUIET_WAIT=10 KEEP=1.
# Reports req/s and p99 per request and shape, and peak RSS with
# IDLE_CONNECTIONS keep-alive connections open.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/lib.sh
. benches/lib.sh

CONNECTIONS=${CONNECTIONS:-64}
# builder and runtime for benches/shapes.rs; "refserve" is the binary
SHAPES=("auto multi" "http1 multi" "auto current" "http1 current" refserve)

command -v wrk >/dev/null || install_packages wrk
for tool in curl python3 taskset wrk cargo; do
    command -v "$tool" >/dev/null || die "$tool is required"
done

say "building (cargo build --release, --example shapes)"
cargo build --release --quiet
cargo build --release --quiet --example shapes
TARGET=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
WORK=$(mktemp -d -t refserve-shapes.XXXXXX)
raise_fd_limit "$IDLE_CONNECTIONS"

PORTS=()
read -r -a PORTS < <(free_ports "${#SHAPES[@]}")
SERVER_PIDS=()
for i in "${!SHAPES[@]}"; do
    if [[ ${SHAPES[i]} == refserve ]]; then
        command=("$TARGET/release/refserve" --addr "127.0.0.1:${PORTS[i]}")
    else
        # shellcheck disable=SC2206 # "builder runtime" is two arguments
        command=("$TARGET/release/examples/shapes" "127.0.0.1:${PORTS[i]}" ${SHAPES[i]})
    fi
    taskset -c "$SERVER_CPU" "${command[@]}" >"$WORK/shape.$i.log" 2>&1 &
    PIDS+=($!)
    SERVER_PIDS+=($!)
done
for i in "${!SHAPES[@]}"; do
    for _ in $(seq 100); do
        [[ $(curl -s -o /dev/null -m 1 -w '%{http_code}' "http://127.0.0.1:${PORTS[i]}/healthz" || true) == 200 ]] && break
        sleep 0.1
    done
done
ETAG=$(curl -s -o /dev/null -D - -H 'Accept-Encoding: br' "http://127.0.0.1:${PORTS[0]}/api/reference/select.json" |
    tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
[[ -n $ETAG ]] || die "no ETag from the first shape"

SCENARIOS=(select-br home-html select-304)
request() { # scenario: sets PATH_, HEADERS, WANT
    HEADERS=(-H "Accept-Encoding: br")
    case $1 in
    select-br) PATH_=/api/reference/select.json WANT=200 ;;
    home-html) PATH_=/ WANT=200 HEADERS+=(-H "Accept: text/html") ;;
    select-304) PATH_=/api/reference/select.json WANT=304 HEADERS+=(-H "If-None-Match: $ETAG") ;;
    esac
}
for scenario in "${SCENARIOS[@]}"; do
    request "$scenario"
    for i in "${!SHAPES[@]}"; do
        got=$(curl -s -o /dev/null -w '%{http_code}' "${HEADERS[@]}" "http://127.0.0.1:${PORTS[i]}$PATH_")
        [[ $got == "$WANT" ]] || die "shape '${SHAPES[i]}' answered $got to $scenario, want $WANT"
    done
done

RESULTS=$WORK/results.tsv
: >"$RESULTS"
say "measuring: $((ROUNDS * ${#SCENARIOS[@]} * ${#SHAPES[@]})) runs of ${WARMUP_S}s + ${DURATION_S}s at $CONNECTIONS connections"
for round in $(seq "$ROUNDS"); do
    for scenario in "${SCENARIOS[@]}"; do
        request "$scenario"
        for i in "${!SHAPES[@]}"; do
            url=http://127.0.0.1:${PORTS[i]}$PATH_
            wait_quiet || true
            ((WARMUP_S == 0)) || run_wrk "$WORK/warmup" "$WARMUP_S" "$CONNECTIONS" "$url" "${HEADERS[@]}"
            run_wrk "$WORK/wrk.$round.$scenario.$i" "$DURATION_S" "$CONNECTIONS" "$url" "${HEADERS[@]}"
            read -r rps p50 p99 errors < <(parse_wrk "$WORK/wrk.$round.$scenario.$i")
            printf '%s\t%s\t%s\t%s\t%s\n' "$scenario" "$i" "$rps" "$p99" "$errors" >>"$RESULTS"
            say "  [$round] $scenario '${SHAPES[i]}': $rps req/s, p50 $p50 ms, p99 $p99 ms"
        done
    done
done

MEMORY=$WORK/memory.tsv
: >"$MEMORY"
say "memory: $IDLE_CONNECTIONS keep-alive connections per shape"
for i in "${!SHAPES[@]}"; do
    idle_memory "shape$i" "${PORTS[i]}" "${SERVER_PIDS[i]}"
    printf '%s\t%s\t%s\t%s\n' "$i" "$RSS_BEFORE" "$HWM_IDLE" "$ALIVE" >>"$MEMORY"
done

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "Machine: $(nproc) CPUs, $CPU_MODEL, Linux $(uname -r), $(rustc --version | cut -d' ' -f1-2);" \
    "shapes on CPU $SERVER_CPU, \`wrk -t1 -c$CONNECTIONS\` on CPU $LOAD_CPU, ${DURATION_S}s runs, best of $ROUNDS."
echo
python3 - "$RESULTS" "$MEMORY" "$IDLE_CONNECTIONS" "${SHAPES[@]}" <<'PY'
import sys
results, memory, idle, *shapes = sys.argv[1:]
labels = {"select-br": "`/api/reference/select.json` br", "home-html": "`/` HTML br",
          "select-304": "`/api/reference/select.json` 304"}
best = {}
for line in open(results):
    scenario, i, rps, p99, errors = line.split("\t")
    key = (scenario, int(i))
    if key not in best or float(rps) > best[key][0]:
        best[key] = (float(rps), float(p99), int(errors))
names = [s.replace(" ", " + ") for s in shapes]
print("| Request | " + " | ".join(names) + " |")
print("|---|" + "--:|" * len(shapes))
for scenario, label in labels.items():
    base = best[(scenario, 0)][0]
    cells = []
    for i in range(len(shapes)):
        rps, p99, errors = best[(scenario, i)]
        cell = f"{rps:,.0f} req/s ({rps / base:.2f}), p99 {p99 * 1000:.0f} µs"
        cells.append(cell + (f", {errors} errors" if errors else ""))
    print(f"| {label} | " + " | ".join(cells) + " |")
rows = {}
for line in open(memory):
    i, before, hwm, alive = line.split()
    rows[int(i)] = (int(before), int(hwm), alive)
print(f"| Peak RSS, {idle} idle keep-alive connections | " + " | ".join(
    f"{rows[i][1] / 1024:.1f} MiB (from {rows[i][0] / 1024:.1f}; {rows[i][2]} open)" for i in range(len(shapes))) + " |")
PY
