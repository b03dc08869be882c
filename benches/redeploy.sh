#!/usr/bin/env bash
# Redeploy benchmark: SWAPS generation swaps of the release binary under
# CLIENTS busy keep-alive clients, one listening socket held across them as
# systemd holds refserve.socket (benches/redeploy.rs; the harness is
# tests/generations.rs). Both ways to swap are measured: "overlap" (start the
# next generation, wait for READY=1, SIGTERM the current one) and "restart"
# (SIGTERM, wait for the exit, start the next: what `systemctl restart
# refserve.service` does).
#
#   benches/redeploy.sh                 # about a minute after the build
#   SWAPS=50 CLIENTS=64 benches/redeploy.sh
#
# Prints one Markdown table row per way to swap.
set -euo pipefail
cd "$(dirname "$0")/.."

SWAPS=${SWAPS:-20}
CLIENTS=${CLIENTS:-16}
[[ $SWAPS =~ ^[1-9][0-9]*$ && $CLIENTS =~ ^[1-9][0-9]*$ ]] || {
    echo "redeploy.sh: SWAPS and CLIENTS must be positive integers" >&2
    exit 1
}

echo "building (cargo build --release, --example redeploy)" >&2
cargo build --release --quiet
cargo build --release --quiet --example redeploy

echo "$(nproc) CPUs, $(uname -sr), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| Swap | Swaps | Clients | Requests during the swaps | Failed | Retried | Longest response in a swap | Longest in steady load | Longest swap | req/s in the swaps | req/s steady |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for mode in overlap restart; do
    target/release/examples/redeploy target/release/refserve "$SWAPS" "$CLIENTS" "$mode"
done
