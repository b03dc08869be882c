#!/usr/bin/env bash
# Installs the external validators that tests/validators.rs runs, into DIR:
#
#   DIR/venv    a Python venv: openapi-spec-validator, schemathesis, redbot,
#               mcp, the official MCP Python SDK (tests/mcp_clients.rs), and
#               skills-ref, the Agent Skills reference validator
#               (tests/discovery.rs; its command is `agentskills`)
#   DIR/node    npm packages: @redocly/cli, markdownlint-cli2, sitemap (for
#               schema/sitemap.xsd), vnu-jar (the Nu HTML checker's vnu.jar),
#               lighthouse, axe-core and puppeteer-core (which drives Chromium),
#               and @modelcontextprotocol/client, the official MCP TypeScript
#               SDK (tests/mcp_clients.rs)
#   DIR/node22  Node 22 from npm (`node-linux-<arch>`), for Lighthouse alone:
#               Lighthouse 13, the first that knows robots.txt's Content-Signal
#               line, needs Node 22.19 or newer; every other tool runs on the
#               machine's node
#   DIR/bin/lighthouse  Lighthouse on that Node
#   xmllint     from Debian's libxml2-utils, when it is not on PATH already
#   varnishd    from Debian's varnish (tests/varnish.rs), when it is missing
#   curl        from Debian's curl (deploy/purge, which tests/varnish/purge.rs
#               runs), when it is missing
#   nginx       from Debian's nginx and libnginx-mod-http-brotli-static
#               (tests/export.rs), when they are missing
#   systemd-analyze  from Debian's systemd (tests/deploy.rs), when it is
#               missing; only the tool is used, systemd need not be running
#   php         from Debian's php-cli (tests/reading.rs: php -l on every
#               example), when it is missing
#   chromium    from Debian's chromium (tests/browser.rs: Lighthouse and
#               axe-core, both from npm, drive it), when it is missing, with
#               fonts-noto-cjk for the Chinese pages' screenshots
#   prometheus  from Debian's prometheus, with promtool (tests/metrics.rs: a
#               real server scrapes refserve; deploy/ alert rules are
#               checked), when it is missing
#
# Usage: tests/tools/install.sh DIR
#
# Every version is pinned exactly (the Python packages with their whole
# dependency tree). DIR/.stamp records a hash of this script, so a second run
# with the same script is a no-op and a changed pin reinstalls. Quiet unless it
# fails; then it prints what the failing step said and exits non-zero.
# Needs python3 (3.11+), node 20+ with npm, java 17+, and root for apt-get.
set -euo pipefail

dir=${1:?usage: install.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
script=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
want=$(sha256sum "$script" | cut -d' ' -f1)

# One installer at a time per DIR (parallel test processes share it).
exec 9>"$dir/.lock"
flock 9

# xmllint, varnishd, nginx, systemd-analyze, php, chromium and prometheus are outside DIR, so they are
# checked on every run (Debian puts varnishd in /usr/sbin, which may not be on
# PATH).
have_xmllint() { command -v xmllint >/dev/null 2>&1; }
have_varnishd() { command -v varnishd >/dev/null 2>&1 || [[ -x /usr/sbin/varnishd ]]; }
have_curl() { command -v curl >/dev/null 2>&1; }
have_nginx() { [[ -x /usr/sbin/nginx && -f /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ]]; }
have_systemd_analyze() { command -v systemd-analyze >/dev/null 2>&1; }
have_php() { command -v php >/dev/null 2>&1; }
have_chromium() { command -v chromium >/dev/null 2>&1; }
have_cjk_fonts() { [[ -d /usr/share/fonts/opentype/noto ]] && ls /usr/share/fonts/opentype/noto/NotoSansCJK* >/dev/null 2>&1; }
have_prometheus() { command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; }
if [[ -f $dir/.stamp && $(cat "$dir/.stamp") == "$want" ]] && have_xmllint && have_varnishd && have_nginx \
    && have_systemd_analyze && have_php && have_chromium && have_cjk_fonts && have_prometheus; then
    exit 0
fi

log=$dir/install.log
: >"$log"
step() {
    if ! "$@" >>"$log" 2>&1; then
        echo "install.sh: failed: $*" >&2
        cat "$log" >&2
        exit 1
    fi
}

# Python: the three tools, the MCP SDK, skills-ref and every dependency,
# exactly.
python_pins=(
    openapi-spec-validator==0.9.0
    schemathesis==4.32.5
    redbot==2.7.1
    mcp==2.3.0
    skills-ref==0.1.1
)
python_constraints='
annotated-types==0.8.0
anyio==4.16.0
attrs==26.1.0
babel==2.18.0
brotli==1.2.1
certifi==2026.10.18
cffi==2.1.1
chardet==7.7.0
charset-normalizer==3.5.2
click==8.5.1
cryptography==50.0.2
dnspython==2.9.2
graphql-core==3.3.2
h11==0.16.0
harfile==0.6.0
http-sf==1.5.0
httpcore2==2.16.2
httplint==2026.10.4
httpx2==2.16.2
hypothesis==6.170.15
hypothesis-graphql==0.13.5
idna==3.20
iniconfig==2.3.1
Jinja2==3.1.6
jsonschema==4.26.0
jsonschema-path==0.5.0
jsonschema-specifications==2025.9.1
jsonschema_rs==0.60.3
lazy-object-proxy==1.13.0
Markdown==3.11.3
markdown-it-py==4.3.0
MarkupSafe==3.0.4
mcp-types==2.3.0
mdurl==0.1.2
netaddr==1.3.0
openapi-schema-validator==0.9.0
opentelemetry-api==1.45.2
packaging==26.3
pathable==0.6.0
pluggy==1.7.0
pycparser==3.12
pydantic==2.14.3
pydantic-settings==2.16.3
pydantic_core==2.50.4
Pygments==2.21.0
PyJWT==2.15.1
pyrate-limiter==4.5.1
pytest==9.2.0
python-dateutil==4.0.0
python-dotenv==1.2.4
python-multipart==0.0.34
PyYAML==6.0.3
referencing==0.37.0
requests==2.34.2
rfc3339-validator==0.1.4
rich==15.0.0
rpds-py==2026.9.1
six==1.17.0
sniffpy==1.0.0
sortedcontainers==2.4.0
sse-starlette==3.7.0
starlette==1.10.0
strictyaml==1.7.3
thor==0.17.0
truststore==0.10.5
typing-inspection==0.4.5
typing_extensions==4.16.0
tzdata==2026.6
urllib3==2.8.0
uvicorn==0.54.0
Werkzeug==3.1.9
'

# npm: installed without lifecycle scripts (vnu-jar's would fetch a JDK when
# java looks too old; the machine's java is used instead).
npm_pins=(
    @modelcontextprotocol/client@2.4.0
    @modelcontextprotocol/core@2.4.0
    @redocly/cli@2.77.0
    axe-core@4.11.0
    lighthouse@13.5.0
    markdownlint-cli2@0.22.1
    puppeteer-core@24.43.1
    sitemap@9.0.1
    vnu-jar@26.9.27
)

rm -f "$dir/.stamp"

apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    step apt-get update
    step apt-get install -y --no-install-recommends "$@"
}
have_xmllint || apt_install libxml2-utils
have_varnishd || apt_install varnish
have_curl || apt_install curl
have_nginx || apt_install nginx libnginx-mod-http-brotli-static
have_systemd_analyze || apt_install systemd
have_php || apt_install php-cli
have_chromium || apt_install chromium
have_cjk_fonts || apt_install fonts-noto-cjk
have_prometheus || apt_install prometheus

rm -rf "$dir/venv" "$dir/node" "$dir/node22" "$dir/bin"
if ! python3 -m venv "$dir/venv" >>"$log" 2>&1; then
    # Debian's own python3 keeps ensurepip in python3-venv.
    apt_install python3-venv
    rm -rf "$dir/venv"
    step python3 -m venv "$dir/venv"
fi
printf '%s\n' "$python_constraints" >"$dir/constraints.txt"
step "$dir/venv/bin/python" -m pip install --disable-pip-version-check \
    --no-input -c "$dir/constraints.txt" "${python_pins[@]}"

mkdir -p "$dir/node"
step npm install --prefix "$dir/node" --no-audit --no-fund --no-update-notifier \
    --save-exact --ignore-scripts "${npm_pins[@]}"

case $(uname -m) in
    x86_64) node_arch=x64 ;;
    aarch64) node_arch=arm64 ;;
    *) echo "install.sh: no Node 22 package for $(uname -m)" >&2; exit 1 ;;
esac
mkdir -p "$dir/node22" "$dir/bin"
step npm install --prefix "$dir/node22" --no-audit --no-fund --no-update-notifier \
    --save-exact --ignore-scripts "node-linux-$node_arch@22.23.3"
cat >"$dir/bin/lighthouse" <<EOF
#!/bin/sh
exec "$dir/node22/node_modules/node-linux-$node_arch/bin/node" \\
    "$dir/node/node_modules/lighthouse/cli/index.js" "\$@"
EOF
chmod +x "$dir/bin/lighthouse"

# Each tool must start, and the two files the tests read must be there.
for tool in openapi-spec-validator schemathesis redbot agentskills; do
    [[ -x $dir/venv/bin/$tool ]] || { echo "install.sh: $tool missing" >&2; cat "$log" >&2; exit 1; }
done
step "$dir/venv/bin/schemathesis" --version
step "$dir/node/node_modules/.bin/redocly" --version
step test -x "$dir/node/node_modules/.bin/markdownlint-cli2"
step test -f "$dir/node/node_modules/sitemap/schema/sitemap.xsd"
step java -jar "$dir/node/node_modules/vnu-jar/build/dist/vnu.jar" --version
step xmllint --version
step have_varnishd
step systemd-analyze --version
step php --version
step chromium --version
step prometheus --version
step promtool --version
step "$dir/bin/lighthouse" --version
step test -f "$dir/node/node_modules/axe-core/axe.min.js"
step "$dir/venv/bin/python" -c 'import mcp; mcp.Client'
step env NODE_PATH="$dir/node/node_modules" node -e \
    "require('@modelcontextprotocol/client').StreamableHTTPClientTransport"

echo "$want" >"$dir/.stamp"
