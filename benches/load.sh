#!/usr/bin/env bash
# Load benchmark: refserve against nginx serving `refserve export` (the same
# bytes as static files, brotli_static/gzip_static) and against the ceiling
# (benches/ceiling.rs: hyper answering every request with one fixed response,
# one process per measured request, each sending what refserve sends for it).
#
#   benches/load.sh                     # about 7 minutes after the build
#   DURATION=10s WARMUP=2s benches/load.sh
#
# Each server is pinned to SERVER_CPU (0), wrk to LOAD_CPU (1); traffic goes to
# 127.0.0.1 only. Settings (environment):
#   DURATION=3s        length of each measured wrk run (N, Ns or Nm)
#   WARMUP=1s          unmeasured wrk run before each measurement
#   CONNECTIONS="64 256"
#   IDLE_CONNECTIONS=1000   keep-alive connections for the memory measurement
#   SERVER_CPU=0 LOAD_CPU=1
#   ROUNDS=2           measure everything ROUNDS times, interleaved; each cell keeps its best run
#   QUIET=10 QUIET_WAIT=10  before each run, wait up to QUIET_WAIT s for both CPUs
#                      to be at most QUIET % busy (a shared machine skews numbers)
#   NOISE=10 RETRIES=2 retry a run (at most RETRIES times) when work other than the
#                      server and wrk took more than NOISE % of a core during it
#   KEEP=1             keep the work directory (export, configs, wrk outputs)
#   HTTPS_SCENARIOS="select-br home-html"   also measured over HTTPS (TLS 1.2/1.3,
#                      keep-alive, one certificate made here with openssl) against
#                      nginx with the same certificate; "" to skip
#   HTTPS_PHASES=1     also measure the first HTTPS scenario with h2load, which opens
#                      its connections (handshakes) during the warm-up and times the
#                      requests after it apart: the handshakes apart from the steady
#                      state; 0 to skip
#   OBSERVED_SCENARIOS="select-br home-html"   also measured on three more refserve
#                      processes: plain, with --metrics-addr, and with
#                      --access-log-format json (to a file): the cost of each; "" to skip
#   OBSERVED_ROUNDS=8  runs of each of those, each on a fresh process (two processes
#                      of one binary differ by several % for their whole life), and
#                      the median reported
# Needs root to apt-get nginx, libnginx-mod-http-brotli-static, wrk, openssl and
# nghttp2-client (h2load) when they are missing; python3 and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/lib.sh
. benches/lib.sh

CONNECTIONS=${CONNECTIONS:-64 256}
NOISE=${NOISE:-10}
RETRIES=${RETRIES:-2}
BROTLI_MODULE=/usr/lib/nginx/modules/ngx_http_brotli_static_module.so

for setting in NOISE RETRIES; do
    [[ ${!setting} =~ ^[0-9]+$ ]] || die "$setting must be a whole number"
done

# --- tools -------------------------------------------------------------------
missing=()
command -v nginx >/dev/null || missing+=(nginx)
[[ -f $BROTLI_MODULE ]] || missing+=(libnginx-mod-http-brotli-static)
command -v wrk >/dev/null || missing+=(wrk)
command -v openssl >/dev/null || missing+=(openssl)
HTTPS_PHASES=${HTTPS_PHASES:-1}
[[ $HTTPS_PHASES == 1 ]] && ! command -v h2load >/dev/null && missing+=(nghttp2-client)
install_packages "${missing[@]}"
for tool in curl python3 taskset nginx wrk cargo openssl; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
if command -v oha >/dev/null; then
    say "(oha is installed; this benchmark uses wrk for every server)"
fi

# --- build and export ----------------------------------------------------------
build_refserve_and_ceiling
WORK=$(mktemp -d -t refserve-load.XXXXXX)
export_site

# Servers and load generator inherit this; 1,000 connections need more than 1024.
raise_fd_limit "$IDLE_CONNECTIONS"

SERVERS=(refserve nginx ceiling)
read -r -a HTTPS_SCENARIOS <<<"${HTTPS_SCENARIOS-select-br home-html}"
HTTPS_SERVERS=(refserve-tls nginx-tls)
read -r -a OBSERVED_SCENARIOS <<<"${OBSERVED_SCENARIOS-select-br home-html}"
OBSERVED_SERVERS=(refserve-off refserve-metrics refserve-log)
SCENARIOS=("${ROWS_200[@]}" select-304)

# Ports: refserve, nginx, their HTTPS ports, then one ceiling per scenario.
read -r PORT_REFSERVE PORT_NGINX PORT_REFSERVE_TLS PORT_NGINX_TLS \
    PORT_REFSERVE_OFF PORT_REFSERVE_METRICS PORT_METRICS PORT_REFSERVE_LOG CEILING_PORTS \
    < <(free_ports $((8 + ${#SCENARIOS[@]})))
read -r -a CEILING_PORTS <<<"$CEILING_PORTS"
declare -A PORT_CEILING PID_CEILING
for i in "${!SCENARIOS[@]}"; do
    PORT_CEILING[${SCENARIOS[$i]}]=${CEILING_PORTS[$i]}
done

taskset -c "$SERVER_CPU" "$REFSERVE" --addr "127.0.0.1:$PORT_REFSERVE" >"$WORK/refserve.log" 2>&1 &
PIDS+=($!)
PID_REFSERVE=$!

# The cost of observing: the same binary plain, counting metrics (served on a
# port of their own), and writing the JSON access log (to a file, O_APPEND, so
# it can be emptied between runs). Each measured run gets a fresh process.
OBSERVED_ROUNDS=${OBSERVED_ROUNDS:-8}
[[ $OBSERVED_ROUNDS =~ ^[1-9][0-9]*$ ]] || die "OBSERVED_ROUNDS must be a positive integer"
declare -A PID_OBSERVED
start_observed() { # server: (re)start it on its port
    local args=()
    case $1 in
    refserve-metrics) args=(--metrics-addr "127.0.0.1:$PORT_METRICS") ;;
    refserve-log) args=(--access-log-format json) ;;
    esac
    if [[ -n ${PID_OBSERVED[$1]:-} ]]; then
        kill "${PID_OBSERVED[$1]}" 2>/dev/null || true
        wait "${PID_OBSERVED[$1]}" 2>/dev/null || true
        forget "${PID_OBSERVED[$1]}"
    fi
    taskset -c "$SERVER_CPU" "$REFSERVE" --addr "127.0.0.1:$(port_of "$1")" "${args[@]}" \
        >"$WORK/$1.out" 2>>"$WORK/access.log" &
    PIDS+=($!)
    PID_OBSERVED[$1]=$!
}

# One certificate for both HTTPS servers (P-256, as a CDN's origin
# certificate commonly is); curl trusts it.
mkdir -p "$WORK/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -keyout "$WORK/tls/key.pem" -out "$WORK/tls/cert.pem" -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 2>/dev/null
chmod a+r "$WORK/tls/key.pem"
taskset -c "$SERVER_CPU" "$REFSERVE" --addr "127.0.0.1:$PORT_REFSERVE_TLS" \
    --tls-cert "$WORK/tls/cert.pem" --tls-key "$WORK/tls/key.pem" >"$WORK/refserve-tls.log" 2>&1 &
PIDS+=($!)
PID_REFSERVE_TLS=$!

mkdir -p "$WORK/nginx"
sed -e "s|@MODULE@|load_module $BROTLI_MODULE;|" \
    -e "s|@PREFIX@|$WORK/nginx|g" \
    -e "s|@ROOT@|$WORK/site|g" \
    -e "s|@PORT@|$PORT_NGINX|g" \
    -e "s|@TLS@|listen 127.0.0.1:$PORT_NGINX_TLS ssl; ssl_certificate $WORK/tls/cert.pem; ssl_certificate_key $WORK/tls/key.pem; ssl_protocols TLSv1.2 TLSv1.3;|" \
    benches/nginx.conf.template >"$WORK/nginx/nginx.conf"
taskset -c "$SERVER_CPU" nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" \
    >"$WORK/nginx/stdout.log" 2>&1 &
PIDS+=($!)
PID_NGINX_MASTER=$!

port_of() { # server [scenario]: the ceiling has one port per scenario
    case $1 in
    refserve) echo "$PORT_REFSERVE" ;;
    nginx) echo "$PORT_NGINX" ;;
    refserve-tls) echo "$PORT_REFSERVE_TLS" ;;
    nginx-tls) echo "$PORT_NGINX_TLS" ;;
    refserve-off) echo "$PORT_REFSERVE_OFF" ;;
    refserve-metrics) echo "$PORT_REFSERVE_METRICS" ;;
    refserve-log) echo "$PORT_REFSERVE_LOG" ;;
    ceiling) echo "${PORT_CEILING[$2]}" ;;
    esac
}
origin_of() { # server [scenario]: scheme, host and port
    case $1 in
    *-tls) echo "https://127.0.0.1:$(port_of "$@")" ;;
    *) echo "http://127.0.0.1:$(port_of "$@")" ;;
    esac
}
# curl trusts the benchmark's certificate.
curl() { command curl --cacert "$WORK/tls/cert.pem" "$@"; }

wait_ready() { # server [scenario]: up to 10 s for any HTTP answer
    local url code
    url=$(origin_of "$1" "${2:-}")/api/reference.json
    for _ in $(seq 100); do
        code=$(curl -s -o /dev/null -m 1 -w '%{http_code}' "$url" || true)
        [[ $code =~ ^[1-5][0-9][0-9]$ ]] && return 0
        sleep 0.1
    done
    cat "$WORK"/*.log "$WORK"/nginx/*.log >&2 2>/dev/null || true
    die "$1 ${2:-} did not answer on $url within 10 s"
}
for server in "${OBSERVED_SERVERS[@]}"; do
    start_observed "$server"
done
for server in refserve nginx refserve-tls nginx-tls "${OBSERVED_SERVERS[@]}"; do
    wait_ready "$server"
done
# The process holding nginx's connections: its one worker.
PID_NGINX=
for _ in $(seq 50); do
    PID_NGINX=$(pgrep -P "$PID_NGINX_MASTER" | head -n1 || true)
    [[ -n $PID_NGINX ]] && break
    sleep 0.1
done
[[ -n $PID_NGINX ]] || die "no nginx worker under pid $PID_NGINX_MASTER"
pid_of() { # server [scenario]
    case $1 in
    refserve) echo "$PID_REFSERVE" ;;
    nginx | nginx-tls) echo "$PID_NGINX" ;;
    refserve-tls) echo "$PID_REFSERVE_TLS" ;;
    refserve-off | refserve-metrics | refserve-log) echo "${PID_OBSERVED[$1]}" ;;
    ceiling) echo "${PID_CEILING[$2]}" ;;
    esac
}

# --- the requests ------------------------------------------------------------------

etag_of() { # server path accept-encoding
    curl -s -o /dev/null -D - -H "Accept-Encoding: $3" "http://127.0.0.1:$(port_of "$1")$2" |
        tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }' || true
}
ETAG_REFSERVE=$(etag_of refserve /api/reference/select.json br)
ETAG_NGINX=$(etag_of nginx /api/reference/select.json br)
[[ -n $ETAG_REFSERVE && -n $ETAG_NGINX ]] || die "no ETag for /api/reference/select.json (refserve: '$ETAG_REFSERVE', nginx: '$ETAG_NGINX')"

# Sets what lib.sh's `scenario` sets, and HEADERS (array), WANT_STATUS and
# WANT_CODING; select-304 is select-br revalidated with the server's ETag.
request() { # server scenario
    local server=$1 etag
    scenario "$2"
    HEADERS=(-H "Accept-Encoding: $CODING")
    [[ -n $ACCEPT ]] && HEADERS+=(-H "Accept: $ACCEPT")
    WANT_STATUS=200 WANT_CODING=$CODING
    if [[ $2 == select-304 ]]; then
        etag=$ETAG_REFSERVE
        [[ $server == nginx* ]] && etag=$ETAG_NGINX
        HEADERS+=(-H "If-None-Match: $etag")
        WANT_STATUS=304 WANT_CODING=- WANT_TYPE=-
    fi
}

# One ceiling per scenario, answering everything with refserve's answer to it.
for scenario in "${SCENARIOS[@]}"; do
    request refserve "$scenario"
    fields=()
    for ((i = 1; i < ${#HEADERS[@]}; i += 2)); do
        fields+=("${HEADERS[$i]}")
    done
    taskset -c "$SERVER_CPU" "$CEILING" "127.0.0.1:${PORT_CEILING[$scenario]}" "$PATH_" "${fields[@]}" \
        >"$WORK/ceiling.$scenario.log" 2>&1 &
    PIDS+=($!)
    PID_CEILING[$scenario]=$!
done
for scenario in "${SCENARIOS[@]}"; do
    wait_ready ceiling "$scenario"
done

# --- verify every measured request before measuring ----------------------------
say "verifying each server's answer to each request"
failed=0
in_list() { # word list...: whether word is one of the list
    local word=$1
    shift
    for item; do [[ $item == "$word" ]] && return 0; done
    return 1
}
for scenario in "${SCENARIOS[@]}"; do
    servers=("${SERVERS[@]}")
    in_list "$scenario" "${HTTPS_SCENARIOS[@]}" && servers+=("${HTTPS_SERVERS[@]}")
    in_list "$scenario" "${OBSERVED_SCENARIOS[@]}" && servers+=("${OBSERVED_SERVERS[@]}")
    for server in "${servers[@]}"; do
        request "$server" "$scenario"
        body=$WORK/body.$server.$scenario
        got=$(curl -s -m 5 -o "$body" -D - "${HEADERS[@]}" "$(origin_of "$server" "$scenario")$PATH_" |
            tr -d '\r' | awk '
                NR == 1 { status = $2 }
                tolower($1) == "content-encoding:" { coding = $2 }
                tolower($1) == "content-type:" { sub(/;.*/, "", $2); type = $2 }
                END { printf "%s %s %s", status, coding ? coding : "-", type ? type : "-" }' || true)
        want="$WANT_STATUS $WANT_CODING $WANT_TYPE"
        if [[ $got != "$want" ]]; then
            say "  FAIL $server $scenario ($PATH_): got '$got', want '$want'"
            failed=1
        fi
    done
    # all must send the same bytes (the export is the table; the ceiling
    # replays refserve's answer)
    request refserve "$scenario"
    for server in "${servers[@]:1}"; do
        if [[ $WANT_STATUS == 200 ]] && ! cmp -s "$WORK/body.refserve.$scenario" "$WORK/body.$server.$scenario"; then
            say "  FAIL $scenario: refserve and $server bodies differ"
            failed=1
        fi
    done
done
((failed == 0)) || die "a server answered a measured request wrongly; nothing measured"
say "  all ${#SCENARIOS[@]} requests × ${#SERVERS[@]} servers (and ${#HTTPS_SCENARIOS[@]} × ${#HTTPS_SERVERS[@]} over HTTPS, ${#OBSERVED_SCENARIOS[@]} × ${#OBSERVED_SERVERS[@]} observed) answer as expected"
[[ -s $WORK/access.log ]] || die "refserve-log wrote no access log"

# --- measurement helpers ---------------------------------------------------------------
say "memory: $IDLE_CONNECTIONS keep-alive connections per server"
MEMORY=$WORK/memory.tsv
: >"$MEMORY"
for server in "${SERVERS[@]}"; do
    wait_quiet || true
    pid=$(pid_of "$server" select-br)
    idle_memory "$server" "$(port_of "$server" select-br)" "$pid"
    # then all of them busy at once
    request "$server" select-br
    run_wrk "$WORK/wrk.memory.$server" "$DURATION_S" "$IDLE_CONNECTIONS" \
        "http://127.0.0.1:$(port_of "$server" select-br)$PATH_" "${HEADERS[@]}"
    read -r rps _ _ errors < <(parse_wrk "$WORK/wrk.memory.$server")
    hwm_busy=$(status_kb "$pid" VmHWM)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$RSS_BEFORE" "$RSS_IDLE" "$HWM_IDLE" "$ALIVE" \
        "$hwm_busy" "$rps" "$errors" >>"$MEMORY"
done

# --- throughput and latency -----------------------------------------------------------
RESULTS=$WORK/results.tsv
: >"$RESULTS"

# One measured wrk run (after a warm-up); appends a row to $RESULTS and sets OTHER,
# the CPU (% of one core) that neither the server nor wrk used on the two CPUs:
# other processes, or kernel work outside them.
measure() { # tag (for the log) id (for file names) server scenario connections
    local tag=$1 id=$2 server=$3 scenario=$4 connections=$5 url pid quiet=1 out
    local s0 s1 w0 w1 b0 t0 b1 t1 c0 d0 c1 d1 rps p50 p99 errors span server_cpu wrk_cpu
    request "$server" "$scenario"
    url=$(origin_of "$server" "$scenario")$PATH_
    wait_quiet || quiet=0
    if ((WARMUP_S > 0)); then
        run_wrk "$WORK/warmup" "$WARMUP_S" "$connections" "$url" "${HEADERS[@]}"
    fi
    pid=$(pid_of "$server" "$scenario")
    out=$WORK/wrk.$id.$scenario.$connections.$server
    : >"$WORK/access.log" # emptied: a file of every run's lines would fill the disk
    s0=$(cpu_ticks "$pid")
    children_ticks
    w0=$CHILD_TICKS
    read -r b0 t0 < <(cpu_busy "$SERVER_CPU")
    read -r b1 t1 < <(cpu_busy "$LOAD_CPU")
    run_wrk "$out" "$DURATION_S" "$connections" "$url" "${HEADERS[@]}"
    read -r c0 d0 < <(cpu_busy "$SERVER_CPU")
    read -r c1 d1 < <(cpu_busy "$LOAD_CPU")
    s1=$(cpu_ticks "$pid")
    children_ticks
    w1=$CHILD_TICKS
    read -r rps p50 p99 errors < <(parse_wrk "$out")
    span=$(((d0 - t0 + d1 - t1) / 2 + 1)) # clock ticks in the run, per CPU
    server_cpu=$(((s1 - s0) * 100 / span))
    wrk_cpu=$(((w1 - w0) * 100 / span))
    OTHER=$(((c0 - b0 + c1 - b1 - (s1 - s0) - (w1 - w0)) * 100 / span))
    ((OTHER >= 0)) || OTHER=0
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$scenario" "$LABEL" \
        "$connections" "$server" "$rps" "$p50" "$p99" "$errors" "$server_cpu" "$wrk_cpu" "$OTHER" "$quiet" \
        "$(((s1 - s0) * 1000000 / HZ))" >>"$RESULTS"
    say "  [$tag] $scenario c=$connections $server: $rps req/s, p50 $p50 ms, p99 $p99 ms;" \
        "CPU: server $server_cpu%, wrk $wrk_cpu%, other $OTHER%$( ((quiet)) || echo ' (machine busy before the run)')"
}

read -r -a CONNS <<<"$CONNECTIONS"
runs=$((ROUNDS * ${#CONNS[@]} * (${#SCENARIOS[@]} * ${#SERVERS[@]} + ${#HTTPS_SCENARIOS[@]} * ${#HTTPS_SERVERS[@]})))
say "measuring: $runs runs of ${WARMUP_S}s warm-up + ${DURATION_S}s (about $((runs * (DURATION_S + WARMUP_S + 1) / 60 + 1)) min on a quiet machine)"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
n=0
for _ in $(seq "$ROUNDS"); do
    for scenario in "${SCENARIOS[@]}" "${HTTPS_SCENARIOS[@]/%/ https}"; do
        servers=("${SERVERS[@]}")
        if [[ $scenario == *" https" ]]; then
            scenario=${scenario% https}
            servers=("${HTTPS_SERVERS[@]}")
        fi
        for connections in "${CONNS[@]}"; do
            # servers interleaved, so drift in the machine's load hits all alike
            for server in "${servers[@]}"; do
                n=$((n + 1))
                # a run that other work disturbed is retried (RETRIES times at most)
                for attempt in $(seq 0 "$RETRIES"); do
                    tag="$n/$runs"
                    ((attempt == 0)) || tag+=", retry $attempt"
                    measure "$tag" "$n.$attempt" "$server" "$scenario" "$connections"
                    ((OTHER > NOISE)) || break
                done
            done
        done
    done
done

# --- the cost of observing: fresh processes, interleaved ---------------------------
OBSERVED=$WORK/observed.tsv
: >"$OBSERVED"
if ((${#OBSERVED_SCENARIOS[@]})); then
    runs=$((OBSERVED_ROUNDS * ${#CONNS[@]} * ${#OBSERVED_SCENARIOS[@]} * ${#OBSERVED_SERVERS[@]}))
    say "the cost of observing: $runs runs, each on a fresh process"
    n=0
    all_results=$RESULTS
    RESULTS=$OBSERVED # measure() appends here
    for _ in $(seq "$OBSERVED_ROUNDS"); do
        for scenario in "${OBSERVED_SCENARIOS[@]}"; do
            for connections in "${CONNS[@]}"; do
                for server in "${OBSERVED_SERVERS[@]}"; do
                    n=$((n + 1))
                    start_observed "$server"
                    wait_ready "$server"
                    measure "$n/$runs" "o$n" "$server" "$scenario" "$connections"
                done
            done
        done
    done
    RESULTS=$all_results
fi

# --- HTTPS: the handshakes apart from the steady state ----------------------------
# wrk opens its connections as it starts measuring, so its latencies include the
# requests that wait behind every connection's handshake. h2load measures the two
# phases apart: first N connections opened at once, one request each (its "time
# for connect" is TCP + TLS handshake, "time to 1st byte" adds the first answer);
# then N connections opened during a warm-up and every request of the DURATION
# after it timed from h2load's log.
PHASES=$WORK/phases.tsv
: >"$PHASES"
if [[ $HTTPS_PHASES == 1 ]] && ((${#HTTPS_SCENARIOS[@]})); then
    say "HTTPS phases: h2load, ${HTTPS_SCENARIOS[0]}: N handshakes at once, then ${DURATION_S}s after a ${WARMUP_S}s warm-up"
    for _ in $(seq "$ROUNDS"); do
        for connections in "${CONNS[@]}"; do
            for server in "${HTTPS_SERVERS[@]}"; do
                request "$server" "${HTTPS_SCENARIOS[0]}"
                url=$(origin_of "$server")$PATH_
                out=$WORK/h2load.$server.$connections
                wait_quiet || true
                taskset -c "$LOAD_CPU" timeout 60 h2load --h1 -t1 -c"$connections" -n"$connections" \
                    "${HEADERS[@]}" "$url" >"$out.handshakes" 2>&1 ||
                    say "  (h2load exited with $? for $server; see $out.handshakes)"
                wait_quiet || true
                taskset -c "$LOAD_CPU" timeout $((DURATION_S + WARMUP_S + 60)) h2load --h1 -t1 \
                    -c"$connections" -D"$DURATION_S" --warm-up-time="$((WARMUP_S > 0 ? WARMUP_S : 1))" \
                    --log-file="$out.log" "${HEADERS[@]}" "$url" >"$out" 2>&1 ||
                    say "  (h2load exited with $? for $server; see $out)"
                python3 - "$out.handshakes" "$out.log" "$DURATION_S" "$server" "$connections" \
                    >>"$PHASES" <<'PY'
import re, sys
handshakes, log, duration, server, connections = sys.argv[1:]
duration = float(duration)
def ms(value):  # h2load's "345us", "1.07ms", "1.2s"
    number = float(re.match(r"[0-9.]+", value).group())
    if value.endswith("us"):
        return number / 1000
    return number if value.endswith("ms") else number * 1000
def stats(name):  # min, max, mean of an h2load summary line
    line = next((l for l in open(handshakes) if l.startswith(name + ":")), None)
    return [ms(v) for v in line.split(":")[1].split()[:3]] if line else [0, 0, 0]
_, connect_max, connect_mean = stats("time for connect")
_, first_max, _ = stats("time to 1st byte")
rows = [line.split("\t") for line in open(log) if line.strip()]
last = max((int(row[0]) for row in rows), default=0)
measured = [row for row in rows if int(row[0]) >= last - duration * 1e6]
steady = sorted(int(row[2]) for row in measured if row[1] == "200")
errors = len(measured) - len(steady)
pick = lambda q: steady[min(len(steady) - 1, int(q * len(steady)))] / 1000 if steady else 0
print("\t".join(map(str, [server, connections, connect_mean, connect_max, first_max,
                          len(steady) / duration, pick(0.5), pick(0.99), errors])))
PY
                say "  [h2load] $server c=$connections: $(tail -n1 "$PHASES" | cut -f3-9)"
            done
        done
    done
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report -----------------------------------------------------------------------------
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
MACHINE="$(nproc) CPUs, $CPU_MODEL, Linux $(uname -r); $(nginx -v 2>&1 | sed 's/^nginx version: //'), wrk $(wrk --version 2>&1 | head -n1 | cut -d' ' -f2), $(rustc --version | cut -d' ' -f1-2)"
SETUP="servers on CPU $SERVER_CPU, \`wrk -t1\` on CPU $LOAD_CPU; ${DURATION_S}s per run after ${WARMUP_S}s warm-up, best of $ROUNDS round(s), runs disturbed by other work (> $NOISE% of a core) retried up to $RETRIES times; load average $LOAD_BEFORE before, $LOAD_AFTER after"
python3 - "$RESULTS" "$MEMORY" "$MACHINE" "$SETUP" "$IDLE_CONNECTIONS" "$DURATION_S" "$NOISE" "$PHASES" "$OBSERVED" <<'PY'
import statistics, sys

results, memory, machine, setup, idle, duration, noise, phases, observed_runs = sys.argv[1:]
duration, noise = float(duration), int(noise)
SERVERS = ("refserve", "nginx", "ceiling")
cells = {}  # (label, conns) -> server -> best run
for line in open(results):
    (_round, _scenario, label, conns, server, rps, p50, p99, errors,
     scpu, wcpu, other, quiet, server_us) = line.rstrip("\n").split("\t")
    run = dict(rps=float(rps), p50=float(p50), p99=float(p99), errors=int(errors),
               server=int(scpu), wrk=int(wcpu), other=int(other), quiet=quiet == "1",
               # server CPU per request, µs (wrk's count of requests is rps × duration)
               per_request=int(server_us) / max(float(rps) * duration, 1))
    run["clean"] = run["other"] <= noise
    by = cells.setdefault((label, int(conns)), {})
    # each cell keeps its best undisturbed run, or its best run if all were disturbed
    if server not in by or (run["clean"], run["rps"]) > (by[server]["clean"], by[server]["rps"]):
        by[server] = run

def lat(ms):
    return f"{ms * 1000:.0f} µs" if ms < 1 else f"{ms:.2f} ms"

def ratio(a, b):
    return f"{a / b:.2f}" if b else "–"

print(f"Machine: {machine}.  ")
print(f"Setup: {setup}.")
print()
print("| Request | Conns | refserve req/s | p50 | p99 | nginx req/s | p50 | p99 "
      "| ceiling req/s | p50 | p99 | refserve/nginx | refserve/ceiling |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
warnings = []
for (label, conns), by in cells.items():
    row = [label, str(conns)]
    for server in SERVERS:
        run = by[server]
        row += [f"{run['rps']:,.0f}", lat(run["p50"]), lat(run["p99"])]
        if run["errors"]:
            warnings.append(f"{server}, {label}, {conns} connections: {run['errors']} errors or unexpected statuses")
        if not run["clean"]:
            warnings.append(f"{server}, {label}, {conns} connections: other work took "
                            f"{run['other']}% of a core during the best run")
    row += [ratio(by["refserve"]["rps"], by["nginx"]["rps"]),
            ratio(by["refserve"]["rps"], by["ceiling"]["rps"])]
    print("| " + " | ".join(row) + " |")
print()
print("CPU during those runs: each server's CPU time per request, its use of its core, and "
      "wrk's use of its core (a server below ~95% while wrk is near 100% is limited by the "
      "load generator, not by itself):")
print()
print("| Request | Conns | refserve µs/req | CPU | wrk | nginx µs/req | CPU | wrk "
      "| ceiling µs/req | CPU | wrk |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for (label, conns), by in cells.items():
    print(f"| {label} | {conns} | " + " | ".join(
        f"{by[s]['per_request']:.1f} | {by[s]['server']}% | {by[s]['wrk']}%" for s in SERVERS) + " |")
TLS = ("refserve-tls", "nginx-tls")
https = [(key, by) for key, by in cells.items() if all(server in by for server in TLS)]
if https:
    print()
    print("HTTPS: the same requests over TLS, one handshake per keep-alive connection (TLS 1.3, "
          "the highest both sides speak); one P-256 certificate for both; nginx with "
          "`ssl_protocols TLSv1.2 TLSv1.3`:")
    print()
    print("| Request | Conns | refserve req/s | p50 | p99 | µs/req | nginx req/s | p50 | p99 | µs/req "
          "| refserve/nginx |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for (label, conns), by in https:
        row = [label, str(conns)]
        for server in TLS:
            run = by[server]
            row += [f"{run['rps']:,.0f}", lat(run["p50"]), lat(run["p99"]), f"{run['per_request']:.1f}"]
            if run["errors"]:
                warnings.append(f"{server}, {label}, {conns} connections: {run['errors']} errors or unexpected statuses")
            if not run["clean"]:
                warnings.append(f"{server}, {label}, {conns} connections: other work took "
                                f"{run['other']}% of a core during the best run")
        row.append(ratio(by["refserve-tls"]["rps"], by["nginx-tls"]["rps"]))
        print("| " + " | ".join(row) + " |")
best = {}  # (server, conns) -> the h2load run with the highest steady req/s
for line in open(phases):
    server, conns, c_mean, c_max, first_max, rps, p50, p99, errors = line.rstrip("\n").split("\t")
    run = dict(c_mean=float(c_mean), c_max=float(c_max), first_max=float(first_max), rps=float(rps),
               p50=float(p50), p99=float(p99), errors=int(errors))
    key = (server, int(conns))
    if key not in best or run["rps"] > best[key]["rps"]:
        best[key] = run
if best:
    print()
    print("HTTPS, the handshakes apart (h2load, the first HTTPS request): *handshakes*, that many "
          "connections opened at once with one request each (TCP + TLS handshake, and until the first "
          "answer's first byte); *steady*, as many connections opened during a warm-up, then every "
          "request of the measured seconds; best of the rounds by steady req/s:")
    print()
    print("| Server | Conns | handshake mean | slowest | slowest first byte | steady req/s | p50 | p99 |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for (server, conns), run in sorted(best.items(), key=lambda item: (item[0][1], item[0][0])):
        print(f"| {server} | {conns} | {lat(run['c_mean'])} | {lat(run['c_max'])} | {lat(run['first_max'])} "
              f"| {run['rps']:,.0f} | {lat(run['p50'])} | {lat(run['p99'])} |")
        if run["errors"]:
            warnings.append(f"{server} (h2load), {conns} connections: {run['errors']} errors")
OBSERVED = ("refserve-off", "refserve-metrics", "refserve-log")
samples = {}  # (label, conns) -> server -> [(µs per request, req/s)]
for line in open(observed_runs):
    (_round, _scenario, label, conns, server, rps, _p50, _p99, errors,
     _scpu, _wcpu, _other, _quiet, server_us) = line.rstrip("\n").split("\t")
    per_request = int(server_us) / max(float(rps) * duration, 1)
    samples.setdefault((label, int(conns)), {}).setdefault(server, []).append((per_request, float(rps)))
    if int(errors):
        warnings.append(f"{server}, {label}, {conns} connections: {errors} errors or unexpected statuses")
if samples:
    runs = min(len(runs) for by in samples.values() for runs in by.values())
    print()
    print("The cost of observing: refserve plain, with `--metrics-addr` (counting every request and "
          "connection), and with `--access-log-format json` (every line written, to a file); each run "
          f"on a fresh process, {runs} runs of each interleaved; the median server CPU per request "
          "(and the range), and the medians' change against plain:")
    print()
    print("| Request | Conns | plain µs/req | metrics µs/req | change | JSON log µs/req | change |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for (label, conns), by in samples.items():
        if not all(server in by for server in OBSERVED):
            continue
        medians = {s: statistics.median(cpu for cpu, _ in by[s]) for s in OBSERVED}
        spread = {s: f"{min(c for c, _ in by[s]):.2f}–{max(c for c, _ in by[s]):.2f}" for s in OBSERVED}
        row = [label, str(conns), f"{medians['refserve-off']:.2f} ({spread['refserve-off']})"]
        for server in OBSERVED[1:]:
            change = (medians[server] / medians["refserve-off"] - 1) * 100
            row += [f"{medians[server]:.2f} ({spread[server]})", f"{change:+.1f}%"]
        print("| " + " | ".join(row) + " |")
print()
print(f"Memory: {idle} keep-alive connections that have each made one request and stay "
      f"open, then {idle} connections under load (`wrk -c{idle}`, "
      "`/api/reference/select.json` br). Peak RSS is `VmHWM` from `/proc/PID/status`.")
print()
print(f"| Server | RSS at start | peak RSS, {idle} idle connections | still open | "
      f"peak RSS after {idle} busy | req/s at {idle} |")
print("|---|--:|--:|--:|--:|--:|")
for line in open(memory):
    server, before, _idle_rss, hwm_idle, alive, hwm_busy, rps, errors = line.rstrip("\n").split("\t")
    name = "nginx (its worker)" if server == "nginx" else server
    print(f"| {name} | {int(before) / 1024:.1f} MiB | {int(hwm_idle) / 1024:.1f} MiB | {alive} "
          f"| {int(hwm_busy) / 1024:.1f} MiB | {float(rps):,.0f} |")
    if int(errors):
        warnings.append(f"{server} at {idle} connections: {errors} errors")
if warnings:
    print()
    for warning in warnings:
        print(f"- Warning: {warning}")
PY
