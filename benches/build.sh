#!/usr/bin/env bash
# Release build time after a one-word edit of the content, as an author
# meets it: `cargo build --release` after changing the first word of
# content/methods/select.md's description, each time to a word not used
# before (so no compressed body of it is cached). Measured with the
# compression cache (the default), and without it (REFSERVE_BUILD_CACHE=off),
# with cargo's own timings of the three steps that rerun: the build script,
# the library and the binary. Then checks that the cached build's bodies and
# table are byte for byte those of the uncached build of the same content.
#
#   benches/build.sh            # about 8 minutes: a cold build first
#   EDITS=5 benches/build.sh
#
# Works on a copy of the tracked files with a target directory of its own:
# the repository and its target/ are not touched. Needs git, python3, cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/lib.sh
. benches/lib.sh

EDITS=${EDITS:-3}
[[ $EDITS =~ ^[1-9][0-9]*$ ]] || die "EDITS must be a positive integer"
WORDS=(Fetches Reads Returns Gets Loads Pulls Queries Collects Obtains Finds)
((EDITS * 2 <= ${#WORDS[@]})) || die "EDITS must be at most $((${#WORDS[@]} / 2))"

WORK=$(mktemp -d -t refserve-build.XXXXXX)
mkdir "$WORK/repo"
git ls-files -z | tar --null -T - -cf - | tar -C "$WORK/repo" -xf -
cd "$WORK/repo"
export CARGO_TARGET_DIR=$WORK/target
ENTRY=content/methods/select.md
RESULTS=$WORK/results.tsv
: >"$RESULTS"

# Change the first word of the method's description (the first paragraph
# after its front matter) to $1.
edit() {
    python3 - "$ENTRY" "$1" <<'PY'
import re, sys
path, word = sys.argv[1:]
text = open(path).read()
changed = re.sub(r'(\n\+\+\+\n\n)\w+', lambda m: m.group(1) + word, text, count=1)
assert changed != text, "the description did not change"
open(path, "w").write(changed)
PY
}

# One timed `cargo build --release`; appends "label seconds script lib bin".
build() { # label
    wait_quiet || say "  (the machine is busy; measuring anyway)"
    local start end
    start=$(date +%s.%N)
    cargo build --release --quiet --timings 2>"$WORK/build.err" || {
        cat "$WORK/build.err" >&2
        die "cargo build failed"
    }
    end=$(date +%s.%N)
    python3 - "$1" "$start" "$end" "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" >>"$RESULTS" <<'PY'
import json, re, sys
label, start, end, html = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", open(html).read(), re.S).group(1))
units = [u for u in units if u["name"] == "refserve"]
def step(chosen):
    return sum(u["duration"] for u in units if chosen(u["mode"], u["target"].strip()))
script = step(lambda mode, target: mode == "run-custom-build")
library = step(lambda mode, target: mode != "run-custom-build" and target == "")
binary = step(lambda mode, target: target == 'refserve "bin"')
print(label, f"{end - start:.1f}", f"{script:.1f}", f"{library:.1f}", f"{binary:.1f}", sep="\t")
PY
    tail -1 "$RESULTS" | awk -F'\t' '{ printf "  %s: %s s (build script %s s, library %s s, binary %s s)\n", $1, $2, $3, $4, $5 }' >&2
}

out_dir() { dirname "$(ls -t "$CARGO_TARGET_DIR"/release/build/refserve-*/out/table.rs | head -1)"; }

say "cold build (dependencies, the pipeline, every body compressed and cached)"
build cold
say "no change"
build unchanged
for i in $(seq "$EDITS"); do
    word=${WORDS[$((i - 1))]}
    edit "$word"
    say "edit $i: \"$word\", with the cache"
    build cached
done
for i in $(seq "$EDITS"); do
    word=${WORDS[$((EDITS + i - 1))]}
    edit "$word"
    say "edit $i: \"$word\", REFSERVE_BUILD_CACHE=off"
    REFSERVE_BUILD_CACHE=off build uncached
done

say "same content, with the cache and without: comparing OUT_DIR"
build cached-again # the cache's setting changed: the script reruns, from the cache
cp -r "$(out_dir)" "$WORK/cached"
REFSERVE_BUILD_CACHE=off cargo build --release --quiet
if diff -r "$WORK/cached" "$(out_dir)" >/dev/null; then
    identical=yes
else
    identical=NO
fi
stored=$(wc -c <"$WORK/cached/table.bin")

python3 - "$RESULTS" "$identical" "$stored" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
by = {}
for label, *numbers in rows:
    by.setdefault(label, []).append([float(n) for n in numbers])
print("| Build | Runs | Total s | Build script s | Library s | Binary s |")
print("|---|--:|--:|--:|--:|--:|")
names = {"cold": "cold (nothing built)", "unchanged": "no change",
         "cached": "one word changed", "uncached": "one word changed, `REFSERVE_BUILD_CACHE=off`"}
for label in ("cold", "unchanged", "cached", "uncached"):
    runs = by.get(label, [])
    if runs:
        medians = [statistics.median(column) for column in zip(*runs)]
        print(f"| {names[label]} | {len(runs)} | " + " | ".join(f"{m:.1f}" for m in medians) + " |")
print()
print(f"Cached and uncached builds of the same content: OUT_DIR identical (table.bin, {sys.argv[3]} bytes, and table.rs): {sys.argv[2]}")
PY
[[ $identical == yes ]] || exit 1
