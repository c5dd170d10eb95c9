#!/usr/bin/env bash
# Starts an AppImage of Halley twice in a throwaway desktop session and
# checks that its panel window ("Halley") appears, that it exits cleanly on
# SIGTERM, and that the second start reuses the copy the first extracted:
#
#   scripts/appimage-smoke.sh [dist/Halley_<version>_amd64.AppImage]
#
# The managed browser runs headless (HALLEY_HEADLESS=1) and the data
# directory and the AppImage's extraction cache are inside the session's
# temporary HOME. A screenshot goes to test-artifacts/appimage-smoke.png
# (next to $CARGO_TARGET_DIR, as for the other tests) when ImageMagick's
# `import` is there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ -z "${HALLEY_TEST_SESSION:-}" ]; then
  image="${1:-$(ls dist/Halley_*_amd64.AppImage 2>/dev/null | tail -n 1)}"
  if [ -z "$image" ] || [ ! -f "$image" ]; then
    echo "appimage-smoke: no AppImage given and none in dist/ (run make dist)" >&2
    exit 1
  fi
  exec scripts/with-session.sh "$0" "$(realpath "$image")"
fi

image=$1
artifacts="$(realpath -m "${CARGO_TARGET_DIR:-$PWD/target}/../test-artifacts")"
mkdir -p "$artifacts"
export HALLEY_HEADLESS=1 HALLEY_DATA_DIR="$HOME/halley-data"
log="$artifacts/appimage-smoke.log"

# start_once N: starts the image, waits for its window, SIGTERM, exit 0.
start_once() {
  local n=$1 start pid window="" elapsed rc=0
  start=$(date +%s.%N)
  "$image" >"$log.$n" 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" || rc=$?
      echo "appimage-smoke: the AppImage exited ($rc) before a window appeared; its output:" >&2
      cat "$log.$n" >&2
      exit 1
    fi
    for id in $(xwininfo -root -children | awk '/"Halley":/ { print $1 }'); do
      if xwininfo -id "$id" | grep -q IsViewable; then window=$id; fi
    done
    [ -n "$window" ] && break
    sleep 0.25
  done
  if [ -z "$window" ]; then
    echo "appimage-smoke: no viewable \"Halley\" window within 60 s; output:" >&2
    cat "$log.$n" >&2
    kill "$pid" 2>/dev/null || true
    exit 1
  fi
  elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "appimage-smoke: start $n: window $window \"Halley\" after ${elapsed} s:"
  xwininfo -id "$window" | grep -E 'Absolute upper-left|Width|Height|Map State' | sed 's/^ */  /'
  echo "  process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
  if [ "$n" = 1 ]; then
    sleep 2 # let the panel render before the screenshot
    if command -v import >/dev/null 2>&1; then
      import -window "$window" "$artifacts/appimage-smoke.png" && echo "  screenshot $artifacts/appimage-smoke.png"
    fi
  fi
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  echo "  exit status after SIGTERM: $rc"
  if [ "$rc" -ne 0 ]; then
    echo "appimage-smoke: output:" >&2
    cat "$log.$n" >&2
    exit 1
  fi
}

cache="$HOME/.cache/appimage-runtime"
start_once 1
first=$(stat -c '%n %i %Y' "$cache"/*/)
start_once 2
second=$(stat -c '%n %i %Y' "$cache"/*/)
if [ "$first" != "$second" ]; then
  echo "appimage-smoke: the second start did not reuse the extracted copy: $first / $second" >&2
  exit 1
fi
echo "appimage-smoke: ok; both starts ran from ${first%% *}"
