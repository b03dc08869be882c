#!/usr/bin/env bash
# Fuzz every target for SECONDS each (default 60); exits non-zero on the
# first crash, leak, timeout or failed property (libFuzzer saves the input
# in fuzz/artifacts/<target>/).
#
#   fuzz/run.sh [SECONDS]
#
# SANITIZER (default `address`) is cargo-fuzz's `--sanitizer`: CI's short run
# uses `none`, as the long runs in fuzz/README.md do. The workspace forbids
# `unsafe`, so AddressSanitizer only watches the dependencies, and without it
# the targets build in less time and run two to three times as fast.
#
# Needs only the stable toolchain: cargo-fuzz is installed if missing, and
# RUSTC_BOOTSTRAP=1 lets stable rustc take the sanitizer flags. The seeds
# (fuzz/seeds/<target>, committed) are copied into the working corpus
# (fuzz/corpus/<target>, not committed), which keeps what earlier runs found.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
case "$seconds" in
  '' | *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS]" >&2; exit 2 ;;
esac
targets=(select service mcp)

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: installing cargo-fuzz" >&2
  cargo install --locked cargo-fuzz
fi

export RUSTC_BOOTSTRAP=1
# The build script's compressed bodies are the same in this build as in the
# main one: share its cache rather than compress everything again.
export REFSERVE_BUILD_CACHE=${REFSERVE_BUILD_CACHE:-$PWD/target/refserve-build-cache}
sanitizer=${SANITIZER:-address}
cargo fuzz build --sanitizer "$sanitizer"
for target in "${targets[@]}"; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  cp fuzz/seeds/"$target"/* "$corpus"/
  echo "fuzz/run.sh: $target for ${seconds}s" >&2
  # -timeout: one input taking 20 s is a hang, and fails the run.
  # -max_len: the service target's pipe is sized for inputs up to 4096 bytes.
  cargo fuzz run --sanitizer "$sanitizer" "$target" "$corpus" "fuzz/seeds/$target" -- \
    -max_total_time="$seconds" -max_len=4096 -timeout=20 -print_final_stats=1
done
echo "fuzz/run.sh: ${#targets[@]} targets, ${seconds}s each, no crash" >&2
