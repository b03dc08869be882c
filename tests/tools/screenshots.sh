#!/usr/bin/env bash
# Take the README's screenshots with headless Chromium: the homepage and a
# method page, light and dark, desktop and phone widths, a search's results,
# and the method page in Chinese on a phone.
# Usage: tests/tools/screenshots.sh [OUT_DIR]   (default: tests/screenshots)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-tests/screenshots}
mkdir -p "$out"
command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
cargo build --release --quiet
# The target directory cargo builds into (CARGO_TARGET_DIR, if set).
target=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
addr=127.0.0.1:18099
"$target/release/refserve" --addr "$addr" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null' EXIT
until curl -sf "http://$addr/robots.txt" >/dev/null; do :; done
shot() { # path width,height name [extra chromium flags]
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$2" ${4:-} \
    --screenshot="$out/$3.png" "http://$addr$1" >/dev/null 2>&1
  rm -rf "$profile"
}
dark="--force-dark-mode --blink-settings=preferredColorScheme=0"
shot / 1280,900 home-light
shot / 1280,900 home-dark "$dark"
shot /api/quote 1280,1000 method-light
shot /api/quote 1280,1000 method-dark "$dark"
shot /api/quote 390,2300 method-phone "$dark"
shot "/search?q=count+rows" 1280,1000 search-light
shot /zh-hans/api/quote 390,1400 method-zh-phone
ls -1 "$out"
