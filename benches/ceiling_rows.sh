#!/usr/bin/env bash
# refserve against its ceiling (and h2o, where it sends the same body) on
# every 200 row of the load table (benches/load.sh): benches/ceiling.sh once
# a row, each in alternating rounds, then one table of the rows.
#
#   benches/ceiling_rows.sh                      # about 35 minutes
#
# The table goes to standard output; each row's own table and rounds, and
# ceiling.sh's messages, to standard error.
#   ROUNDS=20 CONNECTIONS_LIST=256 benches/ceiling_rows.sh
#
# Settings (environment): ROUNDS=10 DURATION=4s CONNECTIONS_LIST="64 256", and
# those of ceiling.sh, which it passes on (OTHER, WARMUP, SERVER_CPU, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
export ROUNDS=${ROUNDS:-10} DURATION=${DURATION:-4s} REQUESTS=0
CONNECTIONS_LIST=${CONNECTIONS_LIST:-64 256}
# label | path | Accept-Encoding | Accept: the 200 rows of load.sh's table.
ROWS=(
    '`/api/reference.json` br|/api/reference.json|br|'
    '`/api/reference.json` gzip|/api/reference.json|gzip|'
    '`/api/reference/select.json` br|/api/reference/select.json|br|'
    '`/` HTML br|/|br|text/html'
    '`/` Markdown br|/|br|text/markdown'
)
WORK=$(mktemp -d -t refserve-ceiling-rows.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# With OTHER (another build of refserve), a column for refserve against it.
if [[ -n ${OTHER:-} ]]; then
    echo "| Request | Conns | refserve req/s | refserve / ceiling, median of rounds | rounds ≥ 0.97 | refserve / h2o | refserve / OTHER |"
    echo "|---|--:|--:|--:|--:|--:|--:|"
else
    echo "| Request | Conns | refserve req/s | refserve / ceiling, median of rounds | rounds ≥ 0.97 | refserve / h2o |"
    echo "|---|--:|--:|--:|--:|--:|"
fi
for connections in $CONNECTIONS_LIST; do
    for row in "${ROWS[@]}"; do
        IFS='|' read -r label path coding accept <<<"$row"
        REQUEST_PATH=$path HEADER="Accept-Encoding: $coding" ACCEPT=$accept CONNECTIONS=$connections \
            benches/ceiling.sh >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
        # ceiling.sh's table: | server | median | min | max | ratio | rounds | user | kernel |
        cell() { # server column
            awk -F'|' -v s=" $1 " -v c="$2" '$2 == s { gsub(/^ +| +$/, "", $c); print $c }' "$WORK/out"
        }
        # Each row's own table and rounds, for the record.
        { echo "$label, $connections connections:"; grep '^|\|^Rounds' "$WORK/out"; echo; } >&2
        h2o=$(cell "h2o 1 thread" 6)
        other=
        [[ -n ${OTHER:-} ]] && other=" $(cell "refserve (OTHER)" 6) |"
        echo "| $label | $connections | $(cell refserve 3) | $(cell ceiling 6) | $(cell ceiling 7) | ${h2o:-—} |$other"
    done
done
