#!/usr/bin/env bash
# refserve against its ceiling and against h2o, in alternating rounds, on one
# request the three serve alike: by default the br body of /api/reference.json.
# Any other request of the load table's can be put the same way (REQUEST_PATH,
# HEADER, ACCEPT).
#
# - the ceiling (benches/ceiling.rs): hyper in refserve's shape sending the
#   bytes refserve sends for that request (status, every header, the body),
#   and doing nothing else: no routing, no negotiation, no clocks;
# - h2o, one thread, serving `refserve export` with its precompressed files
#   (`file.send-compressed`): the same body, its own headers.
#
# Each round runs wrk (-t1, CONNECTIONS connections, after a warm-up) on
# every server in turn, the order rotated each round; every server is pinned
# to SERVER_CPU, wrk to LOAD_CPU. Two processes side by side on a shared
# machine drift by several percent over a minute; alternating short rounds
# puts each comparison on the same minute. The table reports each server's
# median, and the median of the rounds' refserve/ceiling ratios.
#
# Then the user-space instructions one request costs refserve and the
# ceiling (cachegrind while h2load sends REQUESTS and 2 x REQUESTS requests
# over 64 connections; the difference over REQUESTS), and the functions
# where refserve spends more than the ceiling (cg_diff of the two).
#
#   benches/ceiling.sh                  # about 4 minutes after the build
#   OTHER=path/to/refserve benches/ceiling.sh   # also another build, e.g. before a change
#
#   ROUNDS=0 benches/ceiling.sh        # the instruction counts alone, about 1 minute
#   ROUNDS=0 CACHE_SIM=1 COUNT_CONNECTIONS=256 benches/ceiling.sh
#                                      # and cache misses a request, 256 connections
#
# Settings (environment): ROUNDS=10 (0: no rounds) DURATION=5s WARMUP=1s
# REQUEST_PATH=/api/reference.json HEADER='Accept-Encoding: br' (the one request;
# every server must send refserve's body in refserve's coding, but h2o, which
# picks its files by path alone, is left out where it sends another, as for
# ACCEPT=text/markdown on /) ACCEPT= (an Accept field for the request too)
# CONNECTIONS=64 REQUESTS=10000 (0: no instruction counts) CACHE_SIM=0 (1:
# also the misses a request of simulated caches the size of this machine's:
# lib.sh) COUNT_CONNECTIONS=64 (h2load's, for the counts) SERVER_CPU=0
# LOAD_CPU=1 KEEP=1 REFSERVE_BIN= (a refserve binary to measure instead of
# this checkout's) CEILING_RUNTIME=multi-thread (current-thread: the ceiling
# on tokio's current-thread runtime, see ceiling.rs). Needs wrk, h2o (for the rounds), valgrind and h2load
# (for the counts); apt-get installs them as root.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-10}
MIN_ROUNDS=0
DURATION=${DURATION:-5s}
# shellcheck source=benches/lib.sh
. benches/lib.sh
CONNECTIONS=${CONNECTIONS:-64}
REQUESTS=${REQUESTS:-10000}
OTHER=${OTHER:-}
[[ $CONNECTIONS =~ ^[1-9][0-9]*$ ]] || die "CONNECTIONS must be a positive integer"
[[ $REQUESTS =~ ^[0-9]+$ ]] || die "REQUESTS must be a whole number"
[[ -z $OTHER || -x $OTHER ]] || die "OTHER must be an executable refserve"
REQUEST_PATH=${REQUEST_PATH:-/api/reference.json}
HEADER=${HEADER:-Accept-Encoding: br}
ACCEPT=${ACCEPT:-}
# The request's fields: for curl, wrk and h2load (-H each), and for the ceiling.
FIELDS=("$HEADER")
[[ -n $ACCEPT ]] && FIELDS+=("Accept: $ACCEPT")
CURL_FIELDS=()
for field in "${FIELDS[@]}"; do
    CURL_FIELDS+=(-H "$field")
done
[[ $REQUEST_PATH == /* ]] || die "REQUEST_PATH must start with /"

missing=()
if ((ROUNDS > 0)); then
    command -v wrk >/dev/null || missing+=(wrk)
    command -v h2o >/dev/null || missing+=(h2o)
fi
if ((REQUESTS > 0)); then
    command -v valgrind >/dev/null || missing+=(valgrind)
    command -v h2load >/dev/null || missing+=(nghttp2-client)
fi
install_packages "${missing[@]}"
# The package may start its own server; only ours runs here.
systemctl stop h2o 2>/dev/null || true

build_refserve_and_ceiling
REFSERVE=${REFSERVE_BIN:-$REFSERVE}
[[ -x $REFSERVE ]] || die "REFSERVE_BIN must be an executable refserve"
WORK=$(mktemp -d -t refserve-ceiling.XXXXXX)

# Without rounds, only the two servers whose instructions are counted.
SERVERS=(refserve ceiling)
if ((ROUNDS > 0)); then
    export_site
    SERVERS+=(h2o)
    [[ -n $OTHER ]] && SERVERS+=(other)
fi
read -r -a ports < <(free_ports 4)
declare -A PORT=([refserve]=${ports[0]} [ceiling]=${ports[1]} [h2o]=${ports[2]} [other]=${ports[3]})

cat >"$WORK/h2o.conf" <<EOF
num-threads: 1
listen:
  host: 127.0.0.1
  port: ${PORT[h2o]}
hosts:
  default:
    paths:
      /:
        file.dir: $WORK/site
        file.send-compressed: ON
access-log: /dev/null
error-log: $WORK/h2o.log
EOF

declare -A PID
start() { # server
    local port=${PORT[$1]} command
    case $1 in
    refserve) command=("$REFSERVE" --addr "127.0.0.1:$port") ;;
    other) command=("$OTHER" --addr "127.0.0.1:$port") ;;
    ceiling) command=("$CEILING" "127.0.0.1:$port" "$REQUEST_PATH" "${FIELDS[@]}") ;;
    h2o) command=(h2o -c "$WORK/h2o.conf") ;;
    esac
    taskset -c "$SERVER_CPU" "${command[@]}" >"$WORK/$1.out" 2>&1 &
    PIDS+=($!)
    PID[$1]=$!
}
for server in "${SERVERS[@]}"; do
    start "$server"
done
coding() { # server → the Content-Encoding line of its answer, lower-cased
    grep -i '^content-encoding:' "$WORK/$1.head" | tr -d '\r' | tr '[:upper:]' '[:lower:]'
}
for server in "${SERVERS[@]}"; do
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:${PORT[$server]}/healthz" && break
        sleep 0.1
    done
    # Every server sends the same body, in the same coding.
    curl -s -D "$WORK/$server.head" -o "$WORK/$server.body" "${CURL_FIELDS[@]}" \
        "http://127.0.0.1:${PORT[$server]}$REQUEST_PATH" || die "$server does not answer"
    if [[ $(coding "$server") != "$(coding refserve)" ]] || ! cmp -s "$WORK/refserve.body" "$WORK/$server.body"; then
        [[ $server == h2o ]] || die "$server sends another body or coding than refserve"
        say "h2o sends another body or coding for this request: left out of the rounds"
        kill "${PID[h2o]}"
        kept=()
        for other in "${SERVERS[@]}"; do
            [[ $other == h2o ]] || kept+=("$other")
        done
        SERVERS=("${kept[@]}")
    fi
done
fields=$(printf '%s; ' "${FIELDS[@]}")
say "the request: GET $REQUEST_PATH (${fields%; }) → $(head -1 "$WORK/refserve.head" | tr -d '\r'), $(coding refserve)"
cmp -s "$WORK/refserve.head" "$WORK/ceiling.head" ||
    { grep -vi '^date:' "$WORK/refserve.head" | cmp -s - <(grep -vi '^date:' "$WORK/ceiling.head") ||
        die "the ceiling sends other headers than refserve"; }

user_system() { # pid → its user and system CPU time so far, in clock ticks
    awk '{ sub(/^.*\) /, ""); print $12, $13 }' "/proc/$1/stat"
}
if ((ROUNDS > 0)); then
    say "measuring: $ROUNDS rounds of ${DURATION_S} s per server, ${#SERVERS[@]} servers"
    : >"$WORK/rounds"
    for round in $(seq "$ROUNDS"); do
        # Rotate the order: no server always runs first or after the same one.
        order=("${SERVERS[@]:$((round % ${#SERVERS[@]}))}" "${SERVERS[@]:0:$((round % ${#SERVERS[@]}))}")
        for server in "${order[@]}"; do
            url="http://127.0.0.1:${PORT[$server]}$REQUEST_PATH"
            wait_quiet || say "  (the machine is busy; measuring anyway)"
            ((WARMUP_S > 0)) && run_wrk "$WORK/warmup" "$WARMUP_S" "$CONNECTIONS" "$url" "${CURL_FIELDS[@]}"
            read -r user0 system0 < <(user_system "${PID[$server]}")
            run_wrk "$WORK/wrk" "$DURATION_S" "$CONNECTIONS" "$url" "${CURL_FIELDS[@]}"
            read -r user1 system1 < <(user_system "${PID[$server]}")
            read -r rps _ _ errors < <(parse_wrk "$WORK/wrk")
            ((errors == 0)) || die "$server: $errors errors in round $round"
            requests=$(awk '/requests in/ { print $1 }' "$WORK/wrk")
            echo "$round $server $rps $((user1 - user0)) $((system1 - system0)) $requests" >>"$WORK/rounds"
        done
    done

    python3 - "$WORK/rounds" "$HZ" <<'PY'
import statistics, sys
runs, cpu = {}, {}
hz = int(sys.argv[2])
for line in open(sys.argv[1]):
    round_, server, rps, user, system, requests = line.split()
    runs.setdefault(server, {})[int(round_)] = float(rps)
    # CPU time a request, in µs: user space, kernel.
    per = 1e6 / hz / int(requests)
    cpu.setdefault(server, []).append((int(user) * per, int(system) * per))
ref = runs["refserve"]
def ratios(other):
    return [ref[r] / runs[other][r] for r in ref]
print("| Server | median req/s | min | max | refserve / it, median of rounds | rounds at or above 0.97 | CPU µs a request: user | kernel |")
print("|---|--:|--:|--:|--:|--:|--:|--:|")
for server, label in [("refserve", "refserve"), ("other", "refserve (OTHER)"), ("ceiling", "ceiling"), ("h2o", "h2o 1 thread")]:
    if server not in runs:
        continue
    values = list(runs[server].values())
    if server == "refserve":
        cells = "—", "—"
    else:
        rs = ratios(server)
        cells = f"{statistics.median(rs):.3f}", f"{sum(r >= 0.97 for r in rs)} of {len(rs)}"
    user = statistics.median(u for u, _ in cpu[server])
    system = statistics.median(k for _, k in cpu[server])
    print(f"| {label} | {statistics.median(values):,.0f} | {min(values):,.0f} | {max(values):,.0f} | {cells[0]} | {cells[1]} | {user:.2f} | {system:.2f} |")
print()
print("Rounds (req/s):", "; ".join(
    f"{r}: " + ", ".join(f"{s} {runs[s][r]:,.0f}" for s in runs) for r in sorted(ref)))
PY
fi

((REQUESTS > 0)) || exit 0
for server in "${SERVERS[@]}"; do
    kill "${PID[$server]}"
    wait "${PID[$server]}" 2>/dev/null || true
    forget "${PID[$server]}"
done

# Instructions of a whole run (lib.sh's instructions_serving), its profile
# kept in $WORK/<server>.<requests>.cg.
profile() { # server requests → instructions
    local port=${PORT[$1]}
    case $1 in
    refserve) SERVED=("$REFSERVE" --addr "127.0.0.1:$port") ;;
    ceiling) SERVED=("$CEILING" "127.0.0.1:$port" "$REQUEST_PATH" "${FIELDS[@]}") ;;
    esac
    instructions_serving "$port" "$REQUEST_PATH" "$2" "$WORK/$1.$2.cg" "${CURL_FIELDS[@]}"
}
say "counting instructions (cachegrind, $REQUESTS and $((2 * REQUESTS)) requests)"
declare -A PER_REQUEST
for server in refserve ceiling; do
    once=$(profile "$server" "$REQUESTS")
    twice=$(profile "$server" $((2 * REQUESTS)))
    PER_REQUEST[$server]=$(((twice - once) / REQUESTS))
    cg_diff "$WORK/$server.$REQUESTS.cg" "$WORK/$server.$((2 * REQUESTS)).cg" >"$WORK/$server.diff.cg" 2>/dev/null
done
echo
echo "Instructions a request: refserve ${PER_REQUEST[refserve]}, ceiling ${PER_REQUEST[ceiling]}" \
    "(+$((PER_REQUEST[refserve] - PER_REQUEST[ceiling])))"
if [[ ${CACHE_SIM:-0} == 1 ]]; then
    # The diff profiles' totals: the misses of REQUESTS requests.
    for server in refserve ceiling; do
        python3 - "$WORK/$server.diff.cg" "$REQUESTS" "$server" <<'PY'
import sys
events, totals = None, None
for line in open(sys.argv[1]):
    if line.startswith("events:"):
        events = line.split()[1:]
    elif line.startswith("summary:"):
        totals = dict(zip(events, map(int, line.split()[1:])))
requests = int(sys.argv[2])
data = (totals["D1mr"] + totals["D1mw"]) / requests
level2 = (totals["DLmr"] + totals["DLmw"]) / requests
print(f"Cache misses a request, {sys.argv[3]}: level 1 data {data:.0f}, "
      f"level 1 instructions {totals['I1mr'] / requests:.0f}, level 2 data {level2:.0f}")
PY
    done
fi
echo
python3 - "$WORK" "$REQUESTS" <<'PY'
import re, subprocess, sys
work, requests = sys.argv[1], int(sys.argv[2])
def per_function(server):
    out = subprocess.run(["cg_annotate", "--auto=no", "--threshold=0", f"{work}/{server}.diff.cg"],
                         capture_output=True, text=True, check=True).stdout
    counts = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            name = m.group(2).split(":", 1)[-1]
            counts[name] = counts.get(name, 0) + int(m.group(1).replace(",", "")) / requests
    return counts
ours, ceiling = per_function("refserve"), per_function("ceiling")
rows = sorted(((ours.get(k, 0) - ceiling.get(k, 0), k) for k in set(ours) | set(ceiling)), reverse=True)
print("| refserve − ceiling | refserve | ceiling | function |")
print("|--:|--:|--:|---|")
for diff, name in rows[:25]:
    short = name if len(name) <= 90 else name[:87] + "…"
    print(f"| {diff:+,.0f} | {ours.get(name, 0):,.0f} | {ceiling.get(name, 0):,.0f} | `{short}` |")
PY
