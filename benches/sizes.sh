#!/usr/bin/env bash
# Bytes on the wire: every exported file's identity, gzip and brotli sizes,
# against the reference CLI tools run on the same identity bytes.
#
#   benches/sizes.sh          # every resource file, largest first, and the total
#   benches/sizes.sh 8        # the 8 largest and the total (the check covers all)
#   benches/sizes.sh 8 --alternatives   # and the dictionaries that were not chosen
#
# Builds release, runs `refserve export` into a scratch directory, and prints a
# Markdown table: per file the identity, gzip and br bytes, our gzip size over
# `gzip -9 -n`'s and our br size over `brotli -q 11`'s on the same identity
# bytes. When the build dropped a variant because it was not smaller than
# identity, the column reads `id` and the ratio counts the identity bytes: what
# a client accepting that coding receives.
#
# Every .br and .gz is also decoded with the CLIs and compared with its identity
# file. Exits 1 when that fails or a target is missed: every br body within 1%
# of `brotli -q 11`, every gzip body no larger than `gzip -9`. Installs the
# `brotli` and `gzip` CLIs with apt-get when they are missing.
#
# Then the compression dictionary (RFC 9842), which an export cannot show:
# the script starts the server, asks for every HTML page as Chromium does
# once it holds the dictionary (dcb only, then dcz only), and prints each
# page's dcb and dcz bytes against its br bytes, and the bytes of a reader's
# visit of / and every method page with the dictionary (its own fetch
# included) against the same visit in plain br. Reported, not asserted.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
limit="${1:-0}"
alternatives="${2:-}"
case "$limit" in
'' | *[!0-9]*)
    echo "usage: $0 [N [--alternatives]]   (show the N largest resource files; 0: all)" >&2
    exit 2
    ;;
esac
case "$alternatives" in
'' | --alternatives) ;;
*)
    echo "usage: $0 [N [--alternatives]]" >&2
    exit 2
    ;;
esac

missing=()
command -v brotli >/dev/null || missing+=(brotli)
command -v gzip >/dev/null || missing+=(gzip)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get" >&2
    apt-get install -y -qq "${missing[@]}" >/dev/null ||
        { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null; }
fi

cargo build --release --quiet
target="${CARGO_TARGET_DIR:-target}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
if ! log="$("$target/release/refserve" export "$scratch/site" 2>&1)"; then
    echo "$log" >&2
    exit 1
fi

size() { if [[ -e "$1" ]]; then wc -c <"$1" | tr -d ' '; else echo -; fi; }

# One tab-separated line per identity file: name, identity, gzip, br, gzip -9, brotli -q 11.
rows="$scratch/rows"
: >"$rows"
cd "$scratch/site"
while IFS= read -r -d '' file; do
    file="${file#./}"
    # The reference decoders must give back the identity bytes.
    if [[ -e "$file.gz" ]] && ! gzip -d -c -- "$file.gz" | cmp -s - "$file"; then
        echo "FAIL: gzip -d $file.gz differs from $file" >&2
        exit 1
    fi
    if [[ -e "$file.br" ]] && ! brotli -d -c -- "$file.br" | cmp -s - "$file"; then
        echo "FAIL: brotli -d $file.br differs from $file" >&2
        exit 1
    fi
    gzip -9 -n -c -- "$file" >"$scratch/ref.gz"
    brotli -q 11 -c -- "$file" >"$scratch/ref.br"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$(size "$file")" "$(size "$file.gz")" \
        "$(size "$file.br")" "$(size "$scratch/ref.gz")" "$(size "$scratch/ref.br")" >>"$rows"
done < <(find . -type f ! -name '*.br' ! -name '*.gz' -print0)
cd "$root"

dictionary_report() {
    local port available path name br dcb dcz sent
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "$target/release/refserve" --addr "127.0.0.1:$port" 2>"$scratch/server.log" &
    server=$!
    trap 'kill "$server" 2>/dev/null; rm -rf "$scratch"' EXIT
    curl -s -o /dev/null --retry 50 --retry-delay 0 --retry-connrefused --retry-max-time 10 \
        "http://127.0.0.1:$port/healthz"
    local dictionary
    dictionary="$(find "$scratch/site/dictionaries" -type f ! -name '*.br' ! -name '*.gz')"
    available=":$(openssl dgst -sha256 -binary "$dictionary" | base64 -w0):"
    local method_br=0 method_sent=0 compressed=0 methods=0 home_br
    home_br="$(size "$scratch/site/index.html.br")"
    {
        echo "| Page | br | dcb | dcz | sent | sent ÷ br |"
        echo "|---|---:|---:|---:|---:|---:|"
        local pages=("$scratch/site/index.html" "$scratch/site/api/index.html")
        for file in "$scratch"/site/api/*.html; do
            [[ $file == */index.html ]] || pages+=("$file")
        done
        for file in "${pages[@]}"; do
            name="${file#"$scratch/site"}"
            case "$name" in
            /index.html) path=/ ;;
            /api/index.html) path=/api/ ;;
            *) path="${name%.html}" ;;
            esac
            br="$(size "$file.br")"
            for coding in dcb dcz; do
                curl -s -o "$scratch/$coding" -H 'accept: text/html' -H "accept-encoding: $coding, br" \
                    -H "available-dictionary: $available" "http://127.0.0.1:$port$path"
            done
            dcb="$(size "$scratch/dcb")" dcz="$(size "$scratch/dcz")"
            sent="$(printf '%s\n' "$br" "$dcb" "$dcz" | sort -n | head -1)"
            printf '| `%s` | %d | %d | %d | %d | %.3f |\n' "$path" "$br" "$dcb" "$dcz" "$sent" "$(awk -v a="$sent" -v b="$br" 'BEGIN { print a / b }')"
            if [[ $path == /api/?* ]]; then
                methods=$((methods + 1)) method_br=$((method_br + br)) method_sent=$((method_sent + sent))
                ((sent < br)) && compressed=$((compressed + 1))
            fi
        done
    }
    local dictionary_br plain with
    dictionary_br="$(size "$dictionary.br")"
    plain=$((home_br + method_br))
    with=$((home_br + dictionary_br + method_sent))
    echo
    printf 'Dictionary `%s`: %d bytes, %d in br.\n' "${dictionary#"$scratch/site"}" "$(size "$dictionary")" "$dictionary_br"
    printf 'A visit of / and the %d method pages: %d bytes in plain br; %d with the dictionary (/ %d + dictionary %d + pages %d), %.1f%% of plain br; %d of %d method pages dictionary-compressed.\n' \
        "$methods" "$plain" "$with" "$home_br" "$dictionary_br" "$method_sent" "$(awk -v a="$with" -v b="$plain" 'BEGIN { print 100 * a / b }')" "$compressed" "$methods"
    kill "$server"
}

sort -t $'\t' -k2,2nr -k1,1 "$rows" | awk -F '\t' -v limit="$limit" '
    function wire(v, id) { return v == "-" ? id : v }
    function shown(v) { return v == "-" ? "id" : v }
    {
        gz = wire($3, $2); br = wire($4, $2)
        gr = gz / $5; brr = br / $6
        ti += $2; tg += gz; tb += br; tgr += $5; tbr += $6
        if (gz > $5) { bad++; why = why sprintf("  %s: gzip %d > gzip -9 %d\n", $1, gz, $5) }
        if (br > $6 * 1.01) { bad++; why = why sprintf("  %s: br %d > 1.01 x brotli -q 11 %d\n", $1, br, $6) }
        if (n == 0 || gr > worstg) { worstg = gr; worstgf = $1 }
        if (n == 0 || brr > worstb) { worstb = brr; worstbf = $1 }
        if ($3 == "-" || $4 == "-") dropped = dropped " " $1
        n++
        if (limit == 0 || n <= limit)
            out = out sprintf("| `%s` | %d | %s | %s | %.3f | %.3f |\n", $1, $2, shown($3), shown($4), gr, brr)
    }
    END {
        print "| File | identity | gzip | br | gzip ÷ `gzip -9` | br ÷ `brotli -q 11` |"
        print "|---|---:|---:|---:|---:|---:|"
        printf "%s", out
        if (limit > 0 && n > limit) printf "| … %d more | | | | | |\n", n - limit
        printf "| **total, %d files** | **%d** | **%d** | **%d** | **%.3f** | **%.3f** |\n", n, ti, tg, tb, tg / tgr, tb / tbr
        print ""
        printf "References on the same bytes: gzip -9 -n %d, brotli -q 11 %d.\n", tgr, tbr
        printf "Worst gzip ratio %.4f (%s); worst br ratio %.4f (%s).\n", worstg, worstgf, worstb, worstbf
        if (dropped != "") printf "Served as identity (variant not smaller, shown as `id`):%s.\n", dropped
        if (bad) { printf "\nFAIL: %d target(s) missed:\n%s", bad, why > "/dev/stderr"; exit 1 }
        print "All targets hold: every br within 1% of brotli -q 11, every gzip no larger than gzip -9."
    }'
echo
dictionary_report
if [[ -n $alternatives ]]; then
    echo
    cargo run --release --quiet --example dictionaries -- "$scratch/site"
fi
