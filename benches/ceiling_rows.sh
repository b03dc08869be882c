#!/usr/bin/env bash
# refserve against its ceiling (and h2o, where it sends the same body) on
# every 200 row of the load table (lib.sh's ROWS_200, at 64 and 256
# connections): benches/ceiling.sh once a row, each in alternating rounds,
# then one table of the rows on standard output; each row's own table and
# rounds go to standard error (and ceiling.sh's messages, if it fails).
#
#   benches/ceiling_rows.sh                          # about 35 minutes
#   ROUNDS=20 CONNECTIONS_LIST=256 benches/ceiling_rows.sh
#
# Settings (environment): ROUNDS=10 DURATION=4s CONNECTIONS_LIST="64 256", and
# those of ceiling.sh, which it passes on (OTHER adds a column: refserve
# against that build; WARMUP, SERVER_CPU, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
export ROUNDS=${ROUNDS:-10} DURATION=${DURATION:-4s} REQUESTS=0
# shellcheck source=benches/lib.sh
. benches/lib.sh
CONNECTIONS_LIST=${CONNECTIONS_LIST:-64 256}
WORK=$(mktemp -d -t refserve-ceiling-rows.XXXXXX)

cell() { # server column → that cell of ceiling.sh's table in $WORK/out
    awk -F'|' -v s=" $1 " -v c="$2" '$2 == s { gsub(/^ +| +$/, "", $c); print $c }' "$WORK/out"
}
head="| Request | Conns | refserve req/s | refserve / ceiling, median of rounds | rounds ≥ 0.97 | refserve / h2o |"
rule="|---|--:|--:|--:|--:|--:|"
[[ -n ${OTHER:-} ]] && head+=" refserve / OTHER |" rule+="--:|"
echo "$head"
echo "$rule"
for connections in $CONNECTIONS_LIST; do
    for row in "${ROWS_200[@]}"; do
        scenario "$row"
        REQUEST_PATH=$PATH_ HEADER="Accept-Encoding: $CODING" ACCEPT=$ACCEPT CONNECTIONS=$connections \
            benches/ceiling.sh >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
        { echo "$LABEL, $connections connections:"; grep '^|\|^Rounds' "$WORK/out"; echo; } >&2
        h2o=$(cell "h2o 1 thread" 6)
        line="| $LABEL | $connections | $(cell refserve 3) | $(cell ceiling 6) | $(cell ceiling 7) | ${h2o:-—} |"
        [[ -n ${OTHER:-} ]] && line+=" $(cell "refserve (OTHER)" 6) |"
        echo "$line"
    done
done
