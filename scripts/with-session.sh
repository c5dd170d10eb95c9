#!/usr/bin/env bash
# Runs a command inside a throwaway desktop session for tests: its own HOME
# and XDG dirs, an Xvfb display, a D-Bus session bus, an unlocked GNOME
# keyring and a notification daemon (dunst). Everything is stopped and the
# temp dir removed on exit; the exit status is the command's.
#
#   scripts/with-session.sh CMD [ARGS...]
#
# Cargo and rustup keep the real CARGO_HOME/RUSTUP_HOME, and CARGO_TARGET_DIR
# is passed through, so builds inside the session reuse the normal caches.
# Inside, HALLEY_TEST_SESSION=1 is set.
set -euo pipefail

if [ "${1:-}" = "--inner" ]; then
  # Second stage, inside dbus-run-session: keyring, notifications, then CMD.
  shift
  pids=()
  cleanup_inner() {
    local p
    for p in "${pids[@]}"; do
      if kill "$p" 2>/dev/null; then wait "$p" 2>/dev/null || true; fi
    done
  }
  trap cleanup_inner EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  # The login keyring is created in $XDG_DATA_HOME/keyrings with password
  # "pw" and unlocked; --foreground keeps it our child so we can stop it.
  keyring_out="$HALLEY_SESSION_DIR/keyring.env"
  printf 'pw' | gnome-keyring-daemon --foreground --unlock --components=secrets \
    >"$keyring_out" 2>"$HALLEY_SESSION_DIR/keyring.log" &
  pids+=("$!")
  # Ready when its control socket exists (it prints nothing when the socket
  # is in the default place, $XDG_RUNTIME_DIR/keyring).
  for _ in $(seq 1 100); do
    [ -S "$XDG_RUNTIME_DIR/keyring/control" ] && break
    sleep 0.05
  done
  # Anything it printed is VAR=value lines (GNOME_KEYRING_CONTROL, SSH_AUTH_SOCK).
  while IFS='=' read -r name value; do
    case "$name" in [A-Z_]*) export "$name=$value" ;; esac
  done <"$keyring_out"

  # dunst's context menu (`dunstctl context`) offers every button of the
  # notifications on screen, one line each (`#Label (Summary) [ID,key]`),
  # to its "dmenu": here a script that picks the line a test named in
  # $HALLEY_SESSION_DIR/dmenu-choice (e.g. `[12,stop]`), once. So a test
  # presses a notification's button through the daemon itself, which then
  # sends the app its real ActionInvoked signal.
  cat >"$HALLEY_SESSION_DIR/dmenu" <<EOS
#!/bin/sh
choice="$HALLEY_SESSION_DIR/dmenu-choice"
if [ ! -s "\$choice" ]; then cat >/dev/null; exit 1; fi
want="\$(cat "\$choice")"
rm -f "\$choice"
grep -F -m1 -- "\$want"
EOS
  chmod +x "$HALLEY_SESSION_DIR/dmenu"
  mkdir -p "$XDG_CONFIG_HOME/dunst"
  if [ -f /etc/xdg/dunst/dunstrc ]; then
    sed "s|^\([[:space:]]*\)dmenu = .*|\1dmenu = $HALLEY_SESSION_DIR/dmenu|" /etc/xdg/dunst/dunstrc
  else
    printf '[global]\n    dmenu = %s\n' "$HALLEY_SESSION_DIR/dmenu"
  fi >"$XDG_CONFIG_HOME/dunst/dunstrc"
  dunst >"$HALLEY_SESSION_DIR/dunst.log" 2>&1 &
  pids+=("$!")

  export HALLEY_TEST_SESSION=1
  status=0
  "$@" || status=$?
  exit "$status"
fi

if [ $# -eq 0 ]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

for tool in Xvfb dbus-run-session gnome-keyring-daemon dunst xwininfo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "with-session: '$tool' is missing; run scripts/install-deps.sh (or make deps)" >&2
    exit 127
  fi
done

# Keep the real toolchain locations before HOME moves.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
if [ -z "${NPM_CONFIG_USERCONFIG:-}" ] && [ -f "$HOME/.npmrc" ]; then
  export NPM_CONFIG_USERCONFIG="$HOME/.npmrc"
fi
if [ -z "${npm_config_cache:-}${NPM_CONFIG_CACHE:-}" ] && ! grep -qs '^cache' "$HOME/.npmrc"; then
  export npm_config_cache="$HOME/.npm"
fi

SESSION_DIR="$(mktemp -d "${TMPDIR:-/tmp}/halley-session.XXXXXX")"
xvfb_pid=""
cleanup() {
  if [ -n "$xvfb_pid" ]; then
    kill "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
  fi
  rm -rf "$SESSION_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export HALLEY_SESSION_DIR="$SESSION_DIR"
export HOME="$SESSION_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config"
export XDG_DATA_HOME="$HOME/.local/share"
export XDG_CACHE_HOME="$HOME/.cache"
export XDG_STATE_HOME="$HOME/.local/state"
export XDG_RUNTIME_DIR="$SESSION_DIR/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$SESSION_DIR" "$HOME" "$XDG_RUNTIME_DIR"
# Nothing from the caller's desktop may leak in.
unset DBUS_SESSION_BUS_ADDRESS WAYLAND_DISPLAY GNOME_KEYRING_CONTROL SSH_AUTH_SOCK XAUTHORITY

# Xvfb picks a free display itself and writes its number to fd 3 once it
# accepts connections.
display_file="$SESSION_DIR/display"
Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp -noreset \
  3>"$display_file" >"$SESSION_DIR/xvfb.log" 2>&1 &
xvfb_pid=$!
display_num=""
for _ in $(seq 1 200); do # 10 s
  display_num="$(tr -dc '0-9' <"$display_file" 2>/dev/null || true)"
  [ -n "$display_num" ] && break
  if ! kill -0 "$xvfb_pid" 2>/dev/null; then break; fi
  sleep 0.05
done
if [ -z "$display_num" ]; then
  echo "with-session: Xvfb did not start:" >&2
  cat "$SESSION_DIR/xvfb.log" >&2 || true
  exit 1
fi
export DISPLAY=":$display_num"
for _ in $(seq 1 100); do
  xwininfo -root >/dev/null 2>&1 && break
  sleep 0.05
done
if ! xwininfo -root >/dev/null 2>&1; then
  echo "with-session: display $DISPLAY does not accept connections" >&2
  exit 1
fi

# The session runs in its own process group (setsid) so that a signal to
# this script reaches everything in it: CMD, the app it started, the bus.
session_pid=""
stop_session() { # exit status
  if [ -n "$session_pid" ]; then
    kill -TERM -- "-$session_pid" 2>/dev/null || true
    wait "$session_pid" 2>/dev/null || true
  fi
  exit "$1"
}
trap 'stop_session 130' INT
trap 'stop_session 143' TERM
# A background job's stdin would be /dev/null: hand CMD ours explicitly.
exec 9<&0
setsid dbus-run-session -- bash "${BASH_SOURCE[0]}" --inner "$@" <&9 9<&- &
session_pid=$!
exec 9<&-
status=0
wait "$session_pid" || status=$?
exit "$status"
