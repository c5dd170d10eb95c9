#!/usr/bin/env bash
# Draws the Halley logo (a comet: a bright head with a tail, on a night-blue
# rounded square) with ImageMagick and writes every icon size the app needs.
# Usage: scripts/make-icons.sh   (from anywhere; writes assets/icons/ and ui/public/)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/assets/icons"
UI_PUBLIC="$ROOT/ui/public"
mkdir -p "$OUT" "$UI_PUBLIC"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

S=1024
# Background: rounded night-blue square with a faint diagonal sheen.
convert -size ${S}x${S} xc: -sparse-color Barycentric '0,0 #22386b 1023,1023 #0a1126' "$TMP/grad.png"
convert -size ${S}x${S} xc:none -fill white -draw "roundrectangle 0,0 $((S-1)),$((S-1)) 210,210" "$TMP/mask.png"
convert "$TMP/grad.png" "$TMP/mask.png" -alpha off -compose CopyOpacity -composite "$TMP/bg.png"

# A few stars.
convert -size ${S}x${S} xc:none -fill 'rgba(255,255,255,0.8)' \
  -draw "circle 220,190 228,190" -draw "circle 860,720 866,720" \
  -draw "circle 330,420 334,420" -draw "circle 900,180 905,180" \
  -draw "circle 560,860 565,860" "$TMP/stars.png"

# The tail: three nested wedges from the head towards the lower left, blurred.
convert -size ${S}x${S} xc:none \
  -fill 'rgba(255,170,60,0.45)' -draw "polygon 560,222 800,458 120,910" \
  -fill 'rgba(255,205,110,0.70)' -draw "polygon 610,272 752,410 210,830" \
  -fill 'rgba(255,240,200,0.90)' -draw "polygon 648,310 712,372 300,750" \
  -blur 0x22 "$TMP/tail.png"

# The head: a soft glow and a bright disc.
convert -size ${S}x${S} xc:none -fill 'rgba(255,214,120,0.85)' \
  -draw "circle 680,340 680,545" -blur 0x45 "$TMP/glow.png"
convert -size ${S}x${S} xc:none -fill '#fff3cf' -draw "circle 680,340 680,490" \
  -fill '#ffffff' -draw "circle 668,326 668,430" -blur 0x3 "$TMP/head.png"

convert "$TMP/bg.png" "$TMP/stars.png" -composite "$TMP/tail.png" -composite \
  "$TMP/glow.png" -composite "$TMP/head.png" -composite \
  "$TMP/mask.png" -compose DstIn -composite "$TMP/logo.png"

icon() { # size file
  convert "$TMP/logo.png" -filter Lanczos -resize "$1x$1" -strip -define png:color-type=6 "PNG32:$2"
}
icon 512 "$OUT/icon.png"
icon 256 "$OUT/128x128@2x.png"
icon 128 "$OUT/128x128.png"
icon 32 "$OUT/32x32.png"
icon 64 "$UI_PUBLIC/logo.png"
echo "make-icons: wrote $OUT/{icon,128x128@2x,128x128,32x32}.png and ui/public/logo.png"
