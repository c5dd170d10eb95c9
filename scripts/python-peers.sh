#!/usr/bin/env bash
# The Python peers of the API tests (tests/peers/requirements.txt: the
# official letta-client SDK, requests) in a venv under the repository,
# tests/peers/.venv (gitignored). Idempotent: installs only when the venv is
# missing or the requirements changed since; prints the venv's python.
# Several tests may call it at once: they take turns (flock).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peers="$here/tests/peers"
venv="$peers/.venv"
stamp="$venv/.installed"
python="${PYTHON:-python3}"
exec 9>"$peers/.venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ] || [ ! -f "$stamp" ] || [ "$peers/requirements.txt" -nt "$stamp" ]; then
  echo "python-peers: installing $(grep -v '^#' "$peers/requirements.txt" | xargs) into $venv" >&2
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$peers/requirements.txt" >&2
  touch "$stamp"
fi
echo "$venv/bin/python"
