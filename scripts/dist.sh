#!/usr/bin/env bash
# `make dist`: Linux packages of the desktop app, built by the Tauri bundler
# (`cargo tauri`, installed here when missing) from a release build, copied
# into dist/: a .deb always, an AppImage when its tools can be fetched.
#
# tauri.conf.json lives at the repo root (build.rs and main.rs point at it),
# but the Tauri CLI wants it next to the app's Cargo.toml: a copy with its
# paths rebased onto src-tauri/ is written to src-tauri/tauri.conf.json for
# the duration of the build (the app itself is still compiled with the root
# file).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

if ! cargo tauri --version >/dev/null 2>&1; then
  echo "dist: cargo install tauri-cli (a long compile, once)"
  cargo install tauri-cli --version "^2" --locked
fi
echo "dist: $(cargo tauri --version)"

conf="src-tauri/tauri.conf.json"
if [ -e "$conf" ]; then
  echo "dist: $conf exists; remove it (the config lives in ./tauri.conf.json)" >&2
  exit 1
fi
trap 'rm -f "$root/$conf"' EXIT
python3 - "$conf" <<'PY'
import json, sys
with open("tauri.conf.json") as f:
    c = json.load(f)
up = lambda p: "../" + p
c["build"]["frontendDist"] = up(c["build"]["frontendDist"])
c["bundle"]["icon"] = [up(p) for p in c["bundle"].get("icon", [])]
with open(sys.argv[1], "w") as f:
    json.dump(c, f, indent=2)
PY

target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
bundle="$target/release/bundle"
rm -rf "$bundle/deb" "$bundle/appimage"
mkdir -p dist

(cd src-tauri && cargo tauri build --bundles deb --ci)
deb="$(ls "$bundle"/deb/*.deb)"
cp "$deb" dist/
echo
echo "dist: $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb"
echo "dist: contents:"
dpkg-deb --contents "$deb"

# The AppImage step downloads linuxdeploy, its GTK plugin and AppRun from
# GitHub; offline that fails and only the .deb is produced.
echo
echo "dist: trying the AppImage (needs linuxdeploy from github.com)"
appimage_log="$target/appimage-build.log"
if (cd src-tauri && cargo tauri bundle --bundles appimage --ci) >"$appimage_log" 2>&1; then
  img="$(ls "$bundle"/appimage/*.AppImage)"
  cp "$img" dist/
  echo "dist: $(basename "$img") ($(du -h "$img" | cut -f1))"
else
  echo "dist: the AppImage could NOT be built: the Tauri bundler downloads linuxdeploy," >&2
  echo "      linuxdeploy-plugin-gtk/-gstreamer and AppRun from github.com, which is not" >&2
  echo "      reachable from here. Last lines of $appimage_log:" >&2
  tail -n 5 "$appimage_log" | sed 's/^/      /' >&2
fi
echo
echo "dist: done:"
ls -l dist/
