#!/usr/bin/env bash
# Assembles an AppImage (type 2) from an AppDir and our runtime
# (tools/appimage-runtime), without linuxdeploy or appimagetool:
#
#   scripts/make-appimage.sh RUNTIME APPDIR OUTPUT
#
# 1. the AppDir is checked: an executable AppRun, a .desktop file at its top
#    and the icon that file's Icon= key names (NAME.png or NAME.svg), as the
#    AppImage specification asks;
# 2. a copy of RUNTIME gets the AppImage type 2 magic "AI\x02" at offset 8
#    (the ELF identification padding, which loaders ignore);
# 3. the AppDir becomes a zstd squashfs image (mksquashfs, squashfs-tools),
#    every file owned by root;
# 4. OUTPUT = runtime + image, and the result's own --appimage-offset must
#    be the runtime's size (the image starts where the ELF ends).
#
# `make dist` uses it when the Tauri bundler cannot build the AppImage, and
# the runtime's integration test builds a tiny AppImage with it.
set -euo pipefail

die() {
  echo "make-appimage: $*" >&2
  exit 1
}

if [ $# -ne 3 ]; then
  echo "usage: $0 RUNTIME APPDIR OUTPUT" >&2
  exit 2
fi
runtime=$1
appdir=${2%/}
out=$3

[ -f "$runtime" ] || die "runtime $runtime not found"
[ "$(head -c 4 "$runtime" | od -An -c | tr -d ' ')" = '177ELF' ] || die "runtime $runtime is not an ELF file"
[ -d "$appdir" ] || die "AppDir $appdir not found"
[ -f "$appdir/AppRun" ] && [ -x "$appdir/AppRun" ] || die "$appdir/AppRun is missing or not executable"

shopt -s nullglob
desktops=("$appdir"/*.desktop)
shopt -u nullglob
[ ${#desktops[@]} -eq 1 ] || die "$appdir needs exactly one .desktop file at its top (found ${#desktops[@]})"
[ -f "${desktops[0]}" ] || die "${desktops[0]} is a dangling link"
icon=$(sed -n 's/^Icon=//p' "${desktops[0]}" | head -n 1)
[ -n "$icon" ] || die "${desktops[0]} has no Icon= key"
[ -f "$appdir/$icon.png" ] || [ -f "$appdir/$icon.svg" ] ||
  die "$appdir has no $icon.png or $icon.svg (the icon ${desktops[0]##*/} names)"

command -v mksquashfs >/dev/null 2>&1 ||
  die "mksquashfs not found: install squashfs-tools (sudo apt install squashfs-tools)"

mkdir -p "$(dirname "$out")"
work=$(mktemp -d "$(dirname "$out")/.make-appimage.XXXXXX")
trap 'rm -rf "$work"' EXIT

cp "$runtime" "$work/runtime"
printf 'AI\002' | dd of="$work/runtime" bs=1 seek=8 conv=notrunc status=none
runtime_size=$(stat -c %s "$work/runtime")

mksquashfs "$appdir" "$work/image.squashfs" -comp zstd -root-owned -noappend -no-xattrs -quiet -no-progress >/dev/null ||
  die "mksquashfs failed"

cat "$work/runtime" "$work/image.squashfs" >"$work/out.AppImage"
chmod 755 "$work/out.AppImage"

offset=$("$work/out.AppImage" --appimage-offset) || die "the new AppImage does not answer --appimage-offset"
[ "$offset" = "$runtime_size" ] ||
  die "the runtime says its image starts at $offset, but the runtime is $runtime_size bytes"
[ "$(tail -c +$((offset + 1)) "$work/out.AppImage" | head -c 4)" = hsqs ] || die "no squashfs image at offset $offset"

mv -f "$work/out.AppImage" "$out"
echo "make-appimage: $out ($(du -h "$out" | cut -f1): runtime $runtime_size bytes + squashfs $(stat -c %s "$work/image.squashfs") bytes, zstd)"
