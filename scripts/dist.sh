#!/usr/bin/env bash
# `make dist`: Linux packages of the desktop app from a release build, into
# dist/: the .deb, built by the Tauri bundler (`cargo tauri`, installed here
# when missing), and an AppImage named like the bundler names it
# (Halley_<version>_amd64.AppImage), made one of two ways:
#
# 1. by the Tauri bundler, the primary path. It downloads linuxdeploy, its
#    GTK plugin and AppRun from github.com into ~/.cache/tauri (files already
#    there are used as they are; TAURI_BUNDLER_TOOLS_GITHUB_MIRROR or
#    TAURI_BUNDLER_TOOLS_GITHUB_MIRROR_TEMPLATE point it at a mirror), and
#    linuxdeploy bundles WebKitGTK and GTK into the image.
# 2. when that fails (no access to GitHub): assembled here from the
#    bundler's own output. The .deb's files (binary, desktop file, icons) go
#    into an AppDir with scripts/appimage/AppRun, and scripts/make-appimage.sh
#    turns it into an AppImage with our runtime (tools/appimage-runtime).
#    That image does NOT bundle WebKitGTK 4.1 or GTK 3: it uses the
#    system's, as the .deb does, and its AppRun says so when they are missing.
#
# HALLEY_DIST_APPIMAGE: auto (the default: 1, else 2), bundler (1 only; an
# error when it fails), own (2 only; nothing downloaded) or none.
#
# tauri.conf.json lives at the repo root (build.rs and main.rs point at it),
# but the Tauri CLI wants it next to the app's Cargo.toml: a copy with its
# paths rebased onto src-tauri/ is written to src-tauri/tauri.conf.json for
# the duration of the build (the app itself is still compiled with the root
# file).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

appimage_mode="${HALLEY_DIST_APPIMAGE:-auto}"
case "$appimage_mode" in
  auto | bundler | own | none) ;;
  *)
    echo "dist: HALLEY_DIST_APPIMAGE must be auto, bundler, own or none (not '$appimage_mode')" >&2
    exit 2
    ;;
esac

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
app_bin="$target/release/halley-desktop"
rm -rf "$bundle/deb" "$bundle/appimage" "$bundle/appimage-own"
mkdir -p dist

# The bundler writes the package type into the binary before each package
# (for the updater) and puts the original back only after a package that
# succeeded: a failed AppImage step leaves the release binary marked
# "appimage", and the next .deb would carry that mark. set_bundle_type FILE
# TYPE rewrites the mark (UNK = none, DEB, APP).
set_bundle_type() {
  python3 - "$1" "$2" <<'PY'
import re, sys
path, kind = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    data = f.read()
new, n = re.subn(rb"__TAURI_BUNDLE_TYPE_VAR_[A-Z]{3}", b"__TAURI_BUNDLE_TYPE_VAR_" + kind.encode(), data)
if n != 1:
    sys.exit(f"dist: {path}: expected one bundle type mark, found {n}")
if new != data:
    with open(path, "wb") as f:
        f.write(new)
PY
}
if [ -f "$app_bin" ]; then set_bundle_type "$app_bin" UNK; fi

(cd src-tauri && cargo tauri build --bundles deb --ci)
deb="$(ls "$bundle"/deb/*.deb)"
cp "$deb" dist/
echo
echo "dist: $(basename "$deb") ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb"
echo "dist: contents:"
dpkg-deb --contents "$deb"

appimage_name="$(basename "$deb" .deb).AppImage"
appimage_out="dist/$appimage_name"
rm -f "$appimage_out"
appimage_how=""

if [ "$appimage_mode" = auto ] || [ "$appimage_mode" = bundler ]; then
  echo
  echo "dist: AppImage: trying the Tauri bundler (linuxdeploy from github.com, cached in ~/.cache/tauri)"
  appimage_log="$target/appimage-build.log"
  if (cd src-tauri && cargo tauri bundle --bundles appimage --ci) >"$appimage_log" 2>&1; then
    img="$(ls "$bundle"/appimage/*.AppImage)"
    cp "$img" "$appimage_out"
    appimage_how="built by the Tauri bundler (linuxdeploy; WebKitGTK and GTK bundled)"
  else
    set_bundle_type "$app_bin" UNK
    echo "dist: the Tauri bundler could not build the AppImage: it downloads linuxdeploy," >&2
    echo "      its plugins and AppRun from github.com. Last lines of $appimage_log:" >&2
    tail -n 3 "$appimage_log" | sed 's/^/      /' >&2
    if [ "$appimage_mode" = bundler ]; then
      echo "dist: HALLEY_DIST_APPIMAGE=bundler: no AppImage" >&2
      exit 1
    fi
  fi
fi

if [ -z "$appimage_how" ] && [ "$appimage_mode" != none ]; then
  echo
  echo "dist: AppImage: assembling it from the .deb's files with our runtime (nothing downloaded)"
  cargo build --release -p halley-appimage-runtime --bin appimage-runtime
  runtime="$target/release/appimage-runtime"

  # The AppDir the bundler hands to linuxdeploy: the .deb's usr/ tree (with
  # the binary marked "appimage"), AppRun, the desktop file and the largest
  # square icon at the top, .DirIcon pointing at it.
  own="$bundle/appimage-own"
  appdir="$own/Halley.AppDir"
  mkdir -p "$own/deb" "$appdir"
  dpkg-deb -x "$deb" "$own/deb"
  cp -a "$own/deb/usr" "$appdir/usr"
  cp "$app_bin" "$appdir/usr/bin/halley-desktop"
  set_bundle_type "$appdir/usr/bin/halley-desktop" APP
  install -m 755 scripts/appimage/AppRun "$appdir/AppRun"

  shopt -s nullglob
  desktop_files=("$appdir"/usr/share/applications/*.desktop)
  shopt -u nullglob
  if [ ${#desktop_files[@]} -ne 1 ]; then
    echo "dist: expected one desktop file in the .deb, found ${#desktop_files[@]}" >&2
    exit 1
  fi
  desktop="$(basename "${desktop_files[0]}")"
  ln -s "usr/share/applications/$desktop" "$appdir/$desktop"
  icon_name="$(sed -n 's/^Icon=//p' "${desktop_files[0]}" | head -n 1)"
  # hicolor/<W>x<H>[@scale]/apps/<icon>.png, the widest square one.
  icon="$(cd "$appdir/usr/share/icons/hicolor" && for d in *x*/apps/"$icon_name.png"; do
    [ -f "$d" ] || continue
    size="${d%%/*}"
    w="${size%%x*}"
    h="${size#*x}"
    h="${h%%@*}"
    if [ "$w" = "$h" ]; then echo "$w $d"; fi
  done | sort -n | tail -n 1 | cut -d' ' -f2)"
  if [ -z "$icon" ]; then
    echo "dist: no square $icon_name.png icon in the .deb" >&2
    exit 1
  fi
  cp "$appdir/usr/share/icons/hicolor/$icon" "$appdir/$icon_name.png"
  ln -s "$icon_name.png" "$appdir/.DirIcon"
  echo "dist: AppDir $appdir:"
  (cd "$appdir" && find . -mindepth 1 -maxdepth 1 -printf '  %P %l\n' | sort)

  scripts/make-appimage.sh "$runtime" "$appdir" "$appimage_out"
  appimage_how="assembled by scripts/make-appimage.sh with our runtime (extract-and-run, no FUSE);"
  appimage_how+=" it uses the system's WebKitGTK 4.1 and GTK 3, which it does not bundle"
fi

echo
echo "dist: done:"
echo "  $(basename "$deb"): built by the Tauri bundler"
if [ -n "$appimage_how" ]; then
  echo "  $appimage_name ($(du -h "$appimage_out" | cut -f1)): $appimage_how"
else
  echo "  no AppImage (HALLEY_DIST_APPIMAGE=none)"
fi
ls -l dist/
