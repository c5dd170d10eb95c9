#!/usr/bin/env bash
# Installs what Halley needs to build, run and test on Debian/Ubuntu:
# only the packages that are missing, so it is cheap to run every time.
set -euo pipefail

APT_PACKAGES=(
  # build
  build-essential pkg-config libssl-dev
  # Tauri 2 (WebKitGTK 4.1, tray, SVG icons, xdo for shortcuts)
  libwebkit2gtk-4.1-dev libxdo-dev libayatana-appindicator3-dev librsvg2-dev
  # keyring + notifications
  libsecret-1-dev libdbus-1-dev
  # the managed browser
  chromium
  # the headless desktop session used by tests
  xvfb xauth dbus dbus-x11 gnome-keyring at-spi2-core dunst keyutils imagemagick
  # window lookup (xwininfo), keyring and notification CLIs used by tests
  x11-utils libsecret-tools libnotify-bin
  # kill/pgrep used by tests to stop and find processes
  procps
  # the local API's tests send the user's documented request as written, with curl
  curl
  # the API's Python peers (letta-client, requests) in a venv: scripts/python-peers.sh
  python3 python3-venv
  # drives the real desktop app over WebDriver in tests
  webkit2gtk-driver
  # mksquashfs: the AppImage's filesystem (make dist, its test)
  squashfs-tools
  # text out of the PDFs put into memory's sources (pdftotext, pdfinfo)
  poppler-utils
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: apt packages present"
fi

# tauri-driver: the WebDriver server the desktop e2e tests and
# `make bench-desktop` talk to; it starts Debian's WebKitWebDriver.
if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "install-deps: cargo install tauri-driver"
  cargo install tauri-driver --version "^2" --locked --quiet
fi

# The UI's packages, and the OpenID server the OAuth tests run
# (tests/peers/oidc: oidc-provider; the test helper also does this on demand).
for dir in ui tests/peers/oidc; do
  if [ -f "$dir/package.json" ]; then
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
      echo "install-deps: npm ci in $dir/"
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    fi
  fi
done
