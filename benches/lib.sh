# Shared by the load scripts in benches/ (load.sh, shapes.sh): messages,
# packages, the processes a script starts (all stopped on exit), CPU
# accounting, wrk runs and the idle-connection memory measurement.
# Callers set WORK (a scratch directory) before starting anything.
# shellcheck shell=bash disable=SC2034  # sets variables for its callers


say() { printf '%s\n' "$*" >&2; }
die() {
    say "$(basename "$0"): $*"
    exit 1
}

# "5", "5s", "2m" → seconds
seconds() {
    case $1 in
    *m) echo $((${1%m} * 60)) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
    esac
}

# The settings every load script takes from the environment, checked.
DURATION=${DURATION:-3s}
WARMUP=${WARMUP:-1s}
ROUNDS=${ROUNDS:-2}
IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-1000}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
QUIET=${QUIET:-10}
QUIET_WAIT=${QUIET_WAIT:-10}
DURATION_S=$(seconds "$DURATION")
WARMUP_S=$(seconds "$WARMUP")
[[ $DURATION_S =~ ^[0-9]+$ && $DURATION_S -ge 1 ]] || die "DURATION must be whole seconds (5, 5s, 1m)"
[[ $WARMUP_S =~ ^[0-9]+$ ]] || die "WARMUP must be whole seconds"
# A script that can do without rounds (ceiling.sh: instruction counts alone)
# sets MIN_ROUNDS=0 first.
[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= ${MIN_ROUNDS:-1})) ||
    die "ROUNDS must be a whole number, at least ${MIN_ROUNDS:-1}"
for setting in QUIET QUIET_WAIT IDLE_CONNECTIONS SERVER_CPU LOAD_CPU; do
    [[ ${!setting} =~ ^[0-9]+$ ]] || die "$setting must be a whole number"
done
# Install Debian packages (needs root), refreshing the index only if needed.
install_packages() { # package...
    (($#)) || return 0
    [[ $(id -u) == 0 ]] || die "missing $*; install them (apt-get install $*) or run as root"
    say "installing $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}

# The directory cargo builds into.
target_directory() {
    cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
}

# Build the release binary; REFSERVE := its path.
build_refserve() {
    say "building (cargo build --release)"
    cargo build --release --quiet
    REFSERVE=$(target_directory)/release/refserve
}

# Build the release binary and the ceiling (benches/ceiling.rs); REFSERVE and
# CEILING := their paths.
build_refserve_and_ceiling() {
    say "building (cargo build --release, --example ceiling)"
    cargo build --release --quiet --bin refserve --example ceiling
    local target
    target=$(target_directory)
    REFSERVE=$target/release/refserve
    CEILING=$target/release/examples/ceiling
}

# `refserve export` into $WORK/site, readable by a worker that runs as
# nobody (nginx's, h2o's).
export_site() {
    chmod 755 "$WORK"
    "$REFSERVE" export "$WORK/site" 2>/dev/null
    chmod -R a+rX "$WORK/site"
}

# The user-space instructions the server SERVED (a command, as an array,
# listening on PORT) executes under valgrind's cachegrind while h2load sends
# it REQUESTS requests of PATH over 64 HTTP/1.1 connections: the whole run,
# start and exit included, so the difference of two runs over their
# requests is what one request costs. h2load gets H2LOAD_ARGS... (headers,
# -d FILE); cachegrind's profile goes to PROFILE (/dev/null: none). With
# CACHE_SIM=1 cachegrind also simulates caches of this machine's sizes
# (level 1: 32 KiB, 8-way, for instructions and for data; level 2: 1 MiB,
# 8-way) and counts their misses; COUNT_CONNECTIONS sets h2load's connections (64).
instructions_serving() { # port path requests profile h2load_args...
    local port=$1 path=$2 requests=$3 profile=$4 pid log=$WORK/valgrind.out sim=(--cache-sim=no)
    shift 4
    [[ ${CACHE_SIM:-0} == 1 ]] && sim=(--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,8,64)
    valgrind --tool=cachegrind "${sim[@]}" --cachegrind-out-file="$profile" --log-file="$log" \
        "${SERVED[@]}" >/dev/null 2>"$WORK/access.log" &
    pid=$!
    PIDS+=("$pid")
    # Polls refused before the server listens cost it nothing; the one
    # answered costs one request in every run.
    for _ in $(seq 600); do
        curl -s -o /dev/null -m 5 "http://127.0.0.1:$port/robots.txt" && break
        sleep 0.1
    done
    h2load --h1 -n "$requests" -c "${COUNT_CONNECTIONS:-64}" "$@" "http://127.0.0.1:$port$path" >"$WORK/h2load.out" ||
        die "h2load failed: $(cat "$WORK/h2load.out")"
    grep -q "succeeded, 0 failed, 0 errored" "$WORK/h2load.out" &&
        grep -q "status codes: $requests 2xx" "$WORK/h2load.out" ||
        die "$path: not every request was answered with a 2xx: $(grep -E 'requests:|status codes' "$WORK/h2load.out")"
    kill -TERM "$pid"
    wait "$pid" || true
    forget "$pid"
    awk '/I *refs/ { gsub(",", "", $NF); print $NF }' "$log"
}

# instructions_serving for refserve listening on PORT with ARGS...
instructions_under_load() { # port path requests args... -- h2load_args...
    local port=$1 path=$2 requests=$3 args=()
    shift 3
    while (($#)) && [[ $1 != -- ]]; do
        args+=("$1")
        shift
    done
    shift
    SERVED=("$REFSERVE" --addr "127.0.0.1:$port" "${args[@]}")
    instructions_serving "$port" "$path" "$requests" /dev/null "$@"
}

# The requests of the load table (load.sh; its 200 rows, ceiling_rows.sh):
# scenario → PATH_, LABEL (Markdown for the tables, hence the literal
# backquotes), CODING (its Accept-Encoding), ACCEPT (its Accept; empty: none)
# and WANT_TYPE (the media type of the answer).
ROWS_200=(json-br json-gzip select-br home-html home-md)
# shellcheck disable=SC2016
scenario() { # name
    CODING=br ACCEPT= WANT_TYPE=application/json
    case $1 in
    json-br) PATH_=/api/reference.json LABEL='`/api/reference.json` br' ;;
    json-gzip) PATH_=/api/reference.json LABEL='`/api/reference.json` gzip' CODING=gzip ;;
    select-br) PATH_=/api/reference/select.json LABEL='`/api/reference/select.json` br' ;;
    select-304) PATH_=/api/reference/select.json LABEL='`/api/reference/select.json` 304' ;;
    home-html) PATH_=/ LABEL='`/` HTML br' ACCEPT=text/html WANT_TYPE=text/html ;;
    home-md) PATH_=/ LABEL='`/` Markdown br' ACCEPT=text/markdown WANT_TYPE=text/markdown ;;
    *) die "no scenario '$1'" ;;
    esac
}

# Servers and load generator inherit this.
free_ports() { # count → that many free loopback ports, on one line
    python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
' "$1"
}

raise_fd_limit() { # connections
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true
    (($(ulimit -n) > $1 + 100)) || die "ulimit -n $(ulimit -n) is too low for $1 connections"
}

# --- processes: everything started here is stopped on exit ----------------------
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]+"${PIDS[@]}"}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        # bounded: at most 5 s per process, then SIGKILL
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [[ -z ${WORK:-} ]]; then
        return
    elif [[ ${KEEP:-} == 1 ]]; then
        say "kept $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
forget() { # pid: reaped already, never to be signalled again
    local pid kept=()
    for pid in "${PIDS[@]}"; do
        [[ $pid == "$1" ]] || kept+=("$pid")
    done
    PIDS=("${kept[@]}")
}


HZ=$(getconf CLK_TCK)
start_pinned() { # command... : start it on SERVER_CPU at PORT (ORIGIN), wait until it answers; sets PID
    taskset -c "$SERVER_CPU" "$@" --addr "127.0.0.1:$PORT" >/dev/null 2>"$WORK/server.err" &
    PID=$!
    PIDS+=("$PID")
    for _ in $(seq 600); do
        curl -s -o /dev/null -m 5 "$ORIGIN/robots.txt" && return 0
        sleep 0.1
    done
    die "the server did not answer: $(cat "$WORK/server.err")"
}
stop_pinned() { # the server start_pinned started
    kill -TERM "$PID"
    wait "$PID" || true
    forget "$PID"
}

cpu_ticks() { # pid → utime+stime (clock ticks)
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}
cpu_busy() { # cpu → "busy total" (clock ticks; busy includes steal)
    awk -v cpu="cpu$1" '$1 == cpu { total = 0; for (i = 2; i <= 9; i++) total += $i; print total - $5 - $6, total }' /proc/stat
}
# CHILD_TICKS := CPU time of this shell's finished children (wrk), clock ticks.
# `times` must run in this shell, not in a $(…) subshell.
children_ticks() {
    times >"$WORK/times"
    CHILD_TICKS=$(awk -v hz="$HZ" 'NR == 2 {
        n = 0
        for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += (t[1] * 60 + t[2]) * hz }
        printf "%d\n", n
    }' "$WORK/times")
}
# Wait (at most QUIET_WAIT s) until neither CPU is more than QUIET % busy over
# half a second: other work on a shared machine skews every number.
wait_quiet() {
    local deadline=$((SECONDS + QUIET_WAIT)) b0 t0 b1 t1 c0 d0 c1 d1
    while :; do
        read -r b0 t0 < <(cpu_busy "$SERVER_CPU")
        read -r b1 t1 < <(cpu_busy "$LOAD_CPU")
        sleep 0.5
        read -r c0 d0 < <(cpu_busy "$SERVER_CPU")
        read -r c1 d1 < <(cpu_busy "$LOAD_CPU")
        if (((c0 - b0) * 100 <= QUIET * (d0 - t0 + 1) && (c1 - b1) * 100 <= QUIET * (d1 - t1 + 1))); then
            return 0
        fi
        ((SECONDS < deadline)) || return 1
    done
}

# wrk output → "rps p50_ms p99_ms errors"
parse_wrk() {
    awk '
        function ms(v) {
            if (v ~ /us$/) return v / 1000
            if (v ~ /ms$/) return v + 0
            if (v ~ /m$/) return v * 60000
            if (v ~ /s$/) return v * 1000
            return v + 0
        }
        $1 == "50%" { p50 = ms($2) }
        $1 == "99%" { p99 = ms($2) }
        $1 == "Requests/sec:" { rps = $2 }
        /Non-2xx or 3xx responses:/ { errors += $NF }
        /Socket errors:/ { gsub(/,/, ""); errors += $4 + $6 + $8 + $10 }
        END { printf "%s %s %s %d\n", rps ? rps : 0, p50 ? p50 : 0, p99 ? p99 : 0, errors }
    ' "$1"
}

run_wrk() { # out duration_s connections url headers...
    local out=$1 duration=$2 connections=$3 url=$4
    shift 4
    timeout $((duration + 30)) taskset -c "$LOAD_CPU" \
        wrk -t1 -c"$connections" -d"${duration}s" --timeout 5s --latency "$@" "$url" >"$out" 2>&1 ||
        say "  (wrk exited with $? on $url; see $out)"
}

# --- memory: refserve (and, for context, nginx's worker and the ceiling) ------------
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

hold_connections() { # port → holds IDLE_CONNECTIONS keep-alive connections until $WORK/release exists
    python3 - "$1" "$IDLE_CONNECTIONS" "$WORK/release" <<'PY'
import os, socket, sys, time
port, count, release = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
request = (b"GET /api/reference/select.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           b"Accept-Encoding: br\r\n\r\n")
socks = []
deadline = time.monotonic() + 60
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n")
                   if l.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        body += s.recv(65536)
    socks.append(s)
print("ready", len(socks), flush=True)
while not os.path.exists(release) and time.monotonic() < deadline:
    time.sleep(0.05)
alive = 0
for s in socks:
    s.setblocking(False)
    try:
        alive += s.recv(1) != b""
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
print("alive", alive, flush=True)
PY
}

# Hold IDLE_CONNECTIONS keep-alive connections to a server and read its
# memory: sets RSS_BEFORE, RSS_IDLE, HWM_IDLE (kB) and ALIVE (connections
# still open when released).
idle_memory() { # name port pid
    local name=$1 port=$2 pid=$3 holder
    RSS_BEFORE=$(status_kb "$pid" VmRSS)
    rm -f "$WORK/release"
    hold_connections "$port" >"$WORK/hold.$name" 2>&1 &
    PIDS+=($!)
    holder=$!
    for _ in $(seq 600); do # up to 60 s to open them
        grep -q '^ready' "$WORK/hold.$name" 2>/dev/null && break
        kill -0 "$holder" 2>/dev/null || break
        sleep 0.1
    done
    grep -q '^ready' "$WORK/hold.$name" || {
        cat "$WORK/hold.$name" >&2
        die "could not open $IDLE_CONNECTIONS connections to $name"
    }
    sleep 0.5
    RSS_IDLE=$(status_kb "$pid" VmRSS)
    HWM_IDLE=$(status_kb "$pid" VmHWM)
    touch "$WORK/release"
    wait "$holder" || true
    forget "$holder"
    ALIVE=$(awk '$1 == "alive" { print $2 }' "$WORK/hold.$name")
}
