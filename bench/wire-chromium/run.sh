#!/usr/bin/env bash
# Chromium's own cost of what the wire gate needs (docs/benchmarks.md,
# "What the page-load cost is made of"): one saved product page of each
# site of products-dev loaded until domcontentloaded by four Chromiums
# taking turns page by page: direct; Fetch enabled on the browser session
# with a pattern that matches nothing; every connection through a minimal
# SOCKS5 relay (relay.py); both. Needs `make playwright-mcp` (its
# playwright-core) and /usr/bin/chromium. Usage: bench/wire-chromium/run.sh [RUNS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
tmp="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
python3 - "$root/../shared/datasets/products-dev" "$tmp" <<'PY'
import gzip, json, sys, urllib.parse
src, out = sys.argv[1], sys.argv[2]
truth = json.load(open(f"{src}/ground-truth.json"))
seen = set()
for id in sorted(truth):
    host = (urllib.parse.urlparse(truth[id]["url"]).hostname or "").removeprefix("www.")
    if host in seen:
        continue
    seen.add(host)
    open(f"{out}/{id[:8]}.html", "wb").write(gzip.open(f"{src}/html.gz/{id}.html.gz").read())
open(f"{out}/blank.html", "w").write("<html><body>blank</body></html>")
PY
http_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
socks_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$tmp" && exec python3 -m http.server "$http_port" --bind 127.0.0.1 >/dev/null 2>&1) &
python3 "$here/relay.py" "$socks_port" >/dev/null 2>&1 &
sleep 1
PAGES="$tmp" HTTP_PORT="$http_port" SOCKS_PORT="$socks_port" \
  NODE_PATH="$root/bench/playwright-mcp/node_modules" node "$here/loads.js" "${1:-3}"
