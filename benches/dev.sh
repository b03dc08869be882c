#!/usr/bin/env bash
# `refserve dev` as an author meets it: save → visible change in a real
# headless Chromium, and the server's memory over many reloads.
#
#   benches/dev.sh                 # about a minute after the build
#   EDITS=20 RELOADS=200 benches/dev.sh
#
# Starts the release binary's `dev` on a copy of content/ (file events, then
# again with --poll), and drives Chromium with tests/tools/dev.cjs: EDITS
# edits, each of another entry's description, each timed from the write to
# the new text on that entry's open page; then RELOADS edits of one entry,
# each seen on its open page, with the server's resident memory read before
# and after each half. Needs node and the npm packages and Chromium that
# tests/tools/install.sh installs (run here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/lib.sh
. benches/lib.sh

EDITS=${EDITS:-20}
RELOADS=${RELOADS:-200}
for setting in EDITS RELOADS; do
    [[ ${!setting} =~ ^[1-9][0-9]*$ ]] || die "$setting must be a positive integer"
done
HALF=$((RELOADS / 2))

say "building (cargo build --release)"
cargo build --release --quiet
TARGET=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
TOOLS=$TARGET/validator-tools
bash tests/tools/install.sh "$TOOLS" >&2
export NODE_PATH=$TOOLS/node/node_modules CHROME_PATH
CHROME_PATH=$(command -v chromium)

WORK=$(mktemp -d -t refserve-dev.XXXXXX)
RESULTS=$WORK/results.txt
: >"$RESULTS"

# Start `refserve dev` on a fresh copy of content/ with "$@"; sets DEV_PID,
# ORIGIN, CONTENT and LOG once its first render is done.
start_dev() {
    CONTENT=$WORK/content-$#
    rm -rf "$CONTENT"
    cp -r content "$CONTENT"
    LOG=$WORK/dev-$#.log
    read -r port < <(free_ports 1)
    "$TARGET/release/refserve" dev --content "$CONTENT" --addr "127.0.0.1:$port" "$@" 2>"$LOG" &
    DEV_PID=$!
    PIDS+=("$DEV_PID")
    ORIGIN=http://127.0.0.1:$port
    for _ in $(seq 100); do
        grep -q "rendered in" "$LOG" && return 0
        sleep 0.1
    done
    cat "$LOG" >&2
    die "refserve dev did not render"
}

stop_dev() {
    kill "$DEV_PID"
    wait "$DEV_PID" 2>/dev/null || true
    forget "$DEV_PID"
}

for watcher in events poll; do
    if [[ $watcher == poll ]]; then start_dev --poll; else start_dev; fi
    say "$watcher: $EDITS timed edits in Chromium"
    node tests/tools/dev.cjs time "$ORIGIN" "$CONTENT" "$EDITS" >"$WORK/time-$watcher.json"
    echo "time $watcher $(cat "$WORK/time-$watcher.json")" >>"$RESULTS"
    if [[ $watcher == events ]]; then
        say "$watcher: $RELOADS reloads in Chromium, memory read between"
        echo "rss start $(status_kb "$DEV_PID" VmRSS)" >>"$RESULTS"
        node tests/tools/dev.cjs reload "$ORIGIN" "$CONTENT" "$HALF" >/dev/null
        echo "rss half $(status_kb "$DEV_PID" VmRSS)" >>"$RESULTS"
        node tests/tools/dev.cjs reload "$ORIGIN" "$CONTENT" "$((RELOADS - HALF))" >/dev/null
        echo "rss end $(status_kb "$DEV_PID" VmRSS)" >>"$RESULTS"
        echo "rss peak $(status_kb "$DEV_PID" VmHWM)" >>"$RESULTS"
        echo "line $(grep -m1 'select.json changed → rendered' "$LOG" || grep -m1 'changed → rendered' "$LOG")" >>"$RESULTS"
        echo "lines $(grep -c 'changed → rendered' "$LOG")" >>"$RESULTS"
    fi
    stop_dev
done

python3 - "$RESULTS" "$EDITS" "$RELOADS" <<'PY'
import json, statistics, sys
results, edits, reloads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows, rss, line, lines = {}, {}, "", 0
for text in open(results):
    kind, rest = text.rstrip("\n").split(" ", 1)
    if kind == "time":
        watcher, data = rest.split(" ", 1)
        rows[watcher] = json.loads(data)["ms"]
    elif kind == "rss":
        name, kb = rest.split()
        rss[name] = int(kb)
    elif kind == "line":
        line = rest
    elif kind == "lines":
        lines = int(rest)
print("| Watcher | Edits | Median ms | Worst ms | Best ms |")
print("|---|--:|--:|--:|--:|")
names = {"events": "file events", "poll": "`--poll` (every 100 ms)"}
for watcher, ms in rows.items():
    print(f"| {names[watcher]} | {len(ms)} | {statistics.median(ms):.0f} | {max(ms):.0f} | {min(ms):.0f} |")
print()
print(f"Memory of `refserve dev` over {reloads} reloads: RSS {rss['start']} kB before, "
      f"{rss['half']} kB after {reloads // 2}, {rss['end']} kB after {reloads} (peak {rss['peak']} kB).")
print(f"{lines} renders logged, like: `{line.strip()}`")
PY
