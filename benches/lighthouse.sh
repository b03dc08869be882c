#!/usr/bin/env bash
# Lighthouse (mobile preset: a mid-range phone, simulated slow 4G) on every
# kind of page it will audit: the homepage, the method index, a method page
# and a search's results page (it refuses a page answered with 404, so error
# pages are left to axe-core in tests/browser.rs). Reports the four category
# scores and the timings behind performance.
# The tests require 100 for accessibility, best practices and SEO
# (tests/browser.rs; the results page, `noindex`, is not to be indexed, so
# not SEO); performance depends on timing, so it is reported here.
#
#   benches/lighthouse.sh               # about a minute after the build
#   RUNS=5 benches/lighthouse.sh        # each page RUNS times, the median kept
#
# Lighthouse and Chromium come from tests/tools/install.sh (pinned), into
# <target dir>/validator-tools, as for the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "lighthouse.sh: RUNS must be a positive integer" >&2; exit 1; }
# The target directory cargo builds into (CARGO_TARGET_DIR, if set).
target=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
tools=$target/validator-tools
bash tests/tools/install.sh "$tools"
echo "building (cargo build --release)" >&2
cargo build --release --quiet

addr=127.0.0.1:18098
"$target/release/refserve" --addr "$addr" 2>/dev/null &
server=$!
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf "http://$addr/healthz" >/dev/null; do :; done

flags="--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run \
--disable-background-networking --disable-component-update --disable-sync"
echo "Lighthouse $("$tools/bin/lighthouse" --version), $(chromium --version), \
$(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), median of $RUNS runs" >&2
echo "| Page | Performance | Accessibility | Best practices | SEO | FCP | LCP | TBT | CLS | Speed Index |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for page in "/ homepage" "/api/ method index" "/api/select method page" \
    "/search?q=count+rows search results"; do
    path=${page%% *}
    name=${page#* }
    for run in $(seq "$RUNS"); do
        CHROME_PATH=$(command -v chromium) "$tools/bin/lighthouse" \
            "http://$addr$path" --quiet --output=json --output-path="$work/$run.json" \
            --chrome-flags="$flags"
    done
    python3 - "$name" "$path" "$work" "$RUNS" <<'PY'
import json, statistics, sys
name, path, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
reports = [json.load(open(f"{work}/{r}.json")) for r in range(1, runs + 1)]
# The run with the median performance score stands for the page.
report = sorted(reports, key=lambda r: r["categories"]["performance"]["score"])[runs // 2]
score = lambda c: round(100 * report["categories"][c]["score"])
audit = lambda a: report["audits"][a]["displayValue"].replace("\u00a0", " ")
print(f"| {name} (`{path}`) | {score('performance')} | {score('accessibility')} | "
      f"{score('best-practices')} | {score('seo')} | {audit('first-contentful-paint')} | "
      f"{audit('largest-contentful-paint')} | {audit('total-blocking-time')} | "
      f"{audit('cumulative-layout-shift')} | {audit('speed-index')} |")
PY
done
