#!/usr/bin/env bash
# Install the real, unmodified MCP peers the MCP tests talk to, once, into
# tests/mcp-peers (gitignored): the MCP Inspector, server-filesystem and
# the Gemini CLI from npm (package-lock.json pins them), the Python `mcp` SDK and
# mcp-server-fetch from PyPI into a venv (requirements.txt pins them).
# Idempotent: does nothing when both are installed and up to date.
set -euo pipefail
dir="$(cd "$(dirname "$0")/../tests/mcp-peers" && pwd)"
cd "$dir"
exec 9>"$dir/.install.lock"
flock 9

if [ ! -x node_modules/.bin/mcp-inspector ] || [ ! -x node_modules/.bin/gemini ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "mcp-peers: npm ci (MCP Inspector, server-filesystem, Gemini CLI)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

stamp=.venv/.requirements
if [ ! -x .venv/bin/python ] || ! cmp -s requirements.txt "$stamp"; then
  echo "mcp-peers: pip install (mcp, mcp-server-fetch) into tests/mcp-peers/.venv" >&2
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt >&2
  cp requirements.txt "$stamp"
fi
