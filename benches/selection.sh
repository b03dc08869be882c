#!/usr/bin/env bash
# The whole selection (routing, negotiation, lookup) for three kinds of
# request, measured two ways that stay steady on a shared machine, where
# criterion's means (`cargo bench --bench selection`) move 15-40 % from run
# to run:
#   - instructions per selection: valgrind's cachegrind over 100,000
#     selections, minus a run of none;
#   - ns per selection: the fastest of ROUNDS runs of 2,000,000, pinned to
#     SERVER_CPU.
#
#   benches/selection.sh            # about a minute after the build
#
# Cases (benches/selection_loop.rs): Chrome's navigation to `/` (br), the same
# to `/api/select` from a browser holding the dictionary (dcb), that one with
# its Accept and Accept-Encoding respelled so they are parsed rather than
# recognised, an API client's GET of `/api/reference/select.json` (br), and the
# load table's `/` HTML br row (`Accept: text/html`, `Accept-Encoding: br`).
# Settings: ROUNDS=7 SERVER_CPU=0. Needs root to apt-get valgrind when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
# shellcheck source=benches/lib.sh
. benches/lib.sh

command -v valgrind >/dev/null || install_packages valgrind
for tool in valgrind taskset cargo python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
say "building (cargo build --release --example selection_loop)"
cargo build --release --quiet --example selection_loop
TARGET=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
LOOP=$TARGET/release/examples/selection_loop

instructions() { # count case → instructions executed
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$LOOP" "$1" "$2" 2>&1 |
        awk '/I *refs/ { gsub(",", "", $NF); print $NF }'
}
fastest_ns() { # case → ns per selection, the fastest of ROUNDS runs
    local best= start end ns
    for _ in $(seq "$ROUNDS"); do
        start=$(date +%s%N)
        taskset -c "$SERVER_CPU" "$LOOP" 2000000 "$1"
        end=$(date +%s%N)
        ns=$(((end - start) / 2000000))
        [[ -z $best || $ns -lt $best ]] && best=$ns
    done
    echo "$best"
}

echo "| Request | instructions per selection | ns per selection (fastest of $ROUNDS) |"
echo "|---|--:|--:|"
for case in page-br page-dcb page-dcb-parsed page-zh api home-html; do
    empty=$(instructions 0 "$case")
    full=$(instructions 100000 "$case")
    echo "| $case | $(((full - empty) / 100000)) | $(fastest_ns "$case") |"
done
