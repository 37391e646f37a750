#!/bin/bash
# Install (or update) the tafl museum kiosk as a system service.
#
#   sudo systemd/install.sh                 # from a checkout of the repository
#   sudo make install                       # the same
#
# What it does, every step safe to repeat (running it again updates in place):
#   1. the user `tafl` (groups video, render, input, dialout) via sysusers.d
#   2. copies the repository to /opt/tafl-kiosk and builds /opt/tafl-kiosk/.venv
#   3. writes /etc/tafl-kiosk/config.toml from the defaults if it is missing
#      (an existing config, with its calibration, is never touched)
#   4. installs tafl-kiosk.service, the udev rules 99-tafl.rules, and the
#      lock-down pieces: no magic SysRq keys, Ctrl+Alt+Del masked
#   5. reloads udev and systemd, enables the service and (re)starts it
#
# Options:
#   --root DIR     install into DIR instead of / (also: DESTDIR=DIR); runs no
#                  systemctl, udevadm, sysctl or chown, so it is safe for tests
#                  and image builds
#   --src DIR      the repository to install (default: this script's parent)
#   --python PY    the Python 3.11+ to build the venv with (default: python3)
#   --wheels DIR   install Python packages from wheel files in DIR only
#                  (no network; DIR needs every dependency and setuptools)
#   --no-venv      do not build the venv (it is managed some other way)
#   --no-start     enable the service but do not (re)start it now
#   --desktop-user NAME
#                  a Debian desktop that keeps its desktop: run the kiosk in
#                  NAME's desktop session (user service + autostart entry)
#                  instead of the system service; see docs/install.md
set -euo pipefail

NAME=tafl-kiosk
USER_NAME=tafl
APP=/opt/tafl-kiosk
CONF_DIR=/etc/tafl-kiosk
CONF=$CONF_DIR/config.toml
UNIT=/etc/systemd/system/$NAME.service
WANTS=/etc/systemd/system/multi-user.target.wants/$NAME.service
CAD_MASK=/etc/systemd/system/ctrl-alt-del.target
RULES=/etc/udev/rules.d/99-tafl.rules
SYSUSERS=/etc/sysusers.d/$NAME.conf
SYSCTL=/etc/sysctl.d/90-$NAME.conf
STATE=/var/lib/$NAME
LOGS=/var/log/$NAME
BOOKKEEPING=$APP/.install       # what this installer changed, for uninstall.sh
# The device units of /dev/tafl-gantry and /dev/tafl-camera (systemd-escape --path).
DEVICE_UNITS=('dev-tafl\x2dgantry.device' 'dev-tafl\x2dcamera.device')
DEVICE_TIMEOUT=50-tafl-device-timeout.conf

ARGS="$*"
ROOT=${DESTDIR:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=python3
WHEELS=""
MAKE_VENV=1
START=1
DESKTOP_USER=""

say() { printf '%s install: %s\n' "$NAME" "$*"; }
die() { printf '%s install: error: %s\n' "$NAME" "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT=$2; shift 2 ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        --src) [ $# -ge 2 ] || die "--src needs a directory"; SRC=$2; shift 2 ;;
        --python) [ $# -ge 2 ] || die "--python needs a program"; PYTHON=$2; shift 2 ;;
        --wheels) [ $# -ge 2 ] || die "--wheels needs a directory"; WHEELS=$2; shift 2 ;;
        --no-venv) MAKE_VENV=0; shift ;;
        --no-start) START=0; shift ;;
        --desktop-user) [ $# -ge 2 ] || die "--desktop-user needs a user name"; DESKTOP_USER=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

case "$PYTHON" in
    */*) [ -e "$PYTHON" ] && PYTHON=$(cd "$(dirname "$PYTHON")" && pwd)/$(basename "$PYTHON") ;;
esac
if [ -n "$ROOT" ]; then
    mkdir -p "$ROOT"
    ROOT=$(cd "$ROOT" && pwd)
    [ "$ROOT" != / ] || ROOT=""
fi
LIVE=1                            # acting on the running system?
[ -z "$ROOT" ] || LIVE=0

[ -f "$SRC/pyproject.toml" ] && [ -d "$SRC/kiosk" ] && [ -f "$SRC/systemd/$NAME.service" ] \
    || die "$SRC is not the tafl-kiosk repository (no pyproject.toml, kiosk/ or systemd/$NAME.service)"
if [ "$LIVE" = 1 ] && [ "$(id -u)" != 0 ]; then
    die "run as root: sudo $0 $ARGS"
fi
DESKTOP_HOME=""
if [ -n "$DESKTOP_USER" ]; then
    if [ "$LIVE" = 1 ]; then
        entry=$(getent passwd "$DESKTOP_USER" || true)
    else
        entry=$(grep "^$DESKTOP_USER:" "$ROOT/etc/passwd" 2>/dev/null || true)
    fi
    [ -n "$entry" ] || die "--desktop-user $DESKTOP_USER: no such user in $ROOT/etc/passwd"
    DESKTOP_HOME=$(printf '%s' "$entry" | cut -d: -f6)
    [ -n "$DESKTOP_HOME" ] && [ -d "$ROOT$DESKTOP_HOME" ] \
        || die "--desktop-user $DESKTOP_USER: home directory '$DESKTOP_HOME' does not exist"
fi
if [ "$MAKE_VENV" = 1 ]; then
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found: install Python 3.11 or newer, or pass --python"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$PYTHON is $("$PYTHON" -V 2>&1): the kiosk needs Python 3.11 or newer"
fi

# --- 1. the user -------------------------------------------------------------
install -d -m 0755 "$ROOT/etc/sysusers.d"
install -m 0644 "$SRC/systemd/$NAME.sysusers" "$ROOT$SYSUSERS"
if command -v systemd-sysusers >/dev/null 2>&1; then
    if [ "$LIVE" = 1 ]; then
        systemd-sysusers "$(basename "$SYSUSERS")"
    else
        systemd-sysusers --root="$ROOT" "$(basename "$SYSUSERS")"
    fi
elif [ "$LIVE" = 1 ]; then
    # No systemd-sysusers (very old systemd): the same with shadow's tools.
    for group in video render input dialout; do
        getent group "$group" >/dev/null || groupadd --system "$group"
    done
    if ! getent passwd "$USER_NAME" >/dev/null; then
        useradd --system --user-group --home-dir "$STATE" --no-create-home \
            --shell /usr/sbin/nologin --comment "Tafl museum kiosk" "$USER_NAME"
    fi
    usermod --append --groups video,render,input,dialout "$USER_NAME"
else
    say "systemd-sysusers not found: user $USER_NAME not created under $ROOT"
fi
say "user $USER_NAME ready (groups video, render, input, dialout)"

# --- 2. the application and its venv -----------------------------------------
WAS_ACTIVE=0
if [ "$LIVE" = 1 ] && systemctl is-active --quiet "$NAME.service" 2>/dev/null; then
    WAS_ACTIVE=1
    say "stopping the running kiosk for the update"
    systemctl stop "$NAME.service"
fi

install -d -m 0755 "$ROOT$APP"
if [ "$(cd "$SRC" && pwd -P)" = "$(cd "$ROOT$APP" && pwd -P)" ]; then
    say "source is $APP itself: not copying"
else
    # A clean copy: files deleted from the repository must go here too. The
    # venv and the installer's bookkeeping survive an update.
    find "$ROOT$APP" -mindepth 1 -maxdepth 1 ! -name .venv ! -name .install -exec rm -rf {} +
    tar -C "$SRC" -cf - \
        --exclude=./.venv --exclude=./.git --exclude=./.pytest_cache --exclude=./build \
        --exclude='*.egg-info' --exclude=__pycache__ --exclude='*.pyc' . \
        | tar -C "$ROOT$APP" --no-same-owner --no-same-permissions -xf -
    chmod -R u+rwX,go+rX,go-w "$ROOT$APP"
    say "copied $SRC to $APP"
fi
install -d -m 0755 "$ROOT$BOOKKEEPING"

VENV=$ROOT$APP/.venv
if [ "$MAKE_VENV" = 1 ]; then
    if ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
        rm -rf "$VENV"
        "$PYTHON" -m venv "$VENV" 2>/dev/null || {
            rm -rf "$VENV"
            die "$PYTHON cannot make a venv: install its venv module (sudo apt install python3-venv) and run again"
        }
    fi
    PIP=("$VENV/bin/python" -m pip --disable-pip-version-check --no-input --quiet)
    [ -z "$WHEELS" ] || PIP+=(--no-index --find-links "$WHEELS")
    say "installing the kiosk and its packages into $APP/.venv (takes a while the first time)"
    # The kiosk extra (every layer) at the versions it was tested with.
    PINS=()
    if [ -f "$ROOT$APP/constraints.txt" ]; then
        PINS=(-c "$ROOT$APP/constraints.txt")
    else
        say "warning: no constraints.txt in $SRC: installing the newest allowed versions, not the tested ones"
    fi
    "${PIP[@]}" install "${PINS[@]}" "$ROOT$APP[kiosk]" \
        || die "pip could not install the kiosk (network down? try --wheels DIR)"
    # Same version number as before, new code: reinstall the project itself.
    "${PIP[@]}" install --no-deps --force-reinstall "$ROOT$APP" \
        || die "pip could not reinstall the kiosk"
    say "venv ready: $APP/.venv/bin/tafl-kiosk"
else
    say "--no-venv: not building $APP/.venv"
fi

# --- 3. the configuration ----------------------------------------------------
install -d -m 0770 "$ROOT$CONF_DIR"
[ "$LIVE" = 0 ] || chown root:"$USER_NAME" "$CONF_DIR"
# The kiosk's Python: the venv's, or (no venv) the copied source run from its
# own directory, so that `python -m` finds this calibration package and no other.
APP_PY=()
if [ -x "$VENV/bin/python" ] && [ -x "$VENV/bin/tafl-calibrate" ]; then
    APP_PY=("$VENV/bin/python")
elif [ -f "$ROOT$APP/calibration/cli.py" ] && command -v "$PYTHON" >/dev/null 2>&1; then
    APP_PY=(env -C "$ROOT$APP" "PYTHONPATH=$ROOT$APP" "$(command -v "$PYTHON")")
fi
if [ -e "$ROOT$CONF" ]; then
    if [ ${#APP_PY[@]} -gt 0 ] && ! "${APP_PY[@]}" -m calibration.cli config --check "$ROOT$CONF" >/dev/null; then
        say "WARNING: the existing $CONF has the problems listed above: the kiosk will refuse it."
        say "         Fix them (or move the file away and run this again for the defaults)."
    else
        say "keeping the existing $CONF"
    fi
elif [ ${#APP_PY[@]} -eq 0 ]; then
    say "WARNING: tafl-calibrate is not available, so $CONF was not written."
    say "         The kiosk runs on its built-in defaults until you write it with:"
    say "         sudo $APP/.venv/bin/tafl-calibrate config --write-default $CONF"
elif "${APP_PY[@]}" -m calibration.cli config --write-default "$ROOT$CONF" >/dev/null; then
    say "wrote the default configuration to $CONF"
else
    say "WARNING: 'tafl-calibrate config --write-default' failed (message above), so $CONF was not written."
    say "         The kiosk runs on its built-in defaults until it is written."
fi
# Reward codes are signed with a secret of this kiosk's own, made here once.
if [ -e "$ROOT$CONF" ] && [ ${#APP_PY[@]} -gt 0 ] && [ -f "$ROOT$APP/calibration/config_file.py" ]; then
    if secret_state=$("${APP_PY[@]}" -c '
import secrets, sys
from calibration.config_file import load_config, save_config
path = sys.argv[1]
config = load_config(path)
if config.kiosk.reward_secret:
    print("kept")
else:
    config.kiosk.reward_secret = secrets.token_hex(32)
    save_config(config, path)
    print("new")
' "$ROOT$CONF"); then
        [ "$secret_state" != new ] || say "generated this kiosk's reward secret in $CONF"
    else
        say "WARNING: could not set the reward secret in $CONF (message above); reward codes stay unsigned"
    fi
fi
for file in "$ROOT$CONF" "$ROOT$CONF.bak"; do
    [ -e "$file" ] || continue
    chmod 0660 "$file"           # holds the staff PIN hash and the reward secret
    [ "$LIVE" = 0 ] || chown root:"$USER_NAME" "${file#"$ROOT"}"
done

# --- 4. unit, udev rules, lock-down ------------------------------------------
install -d -m 0755 "$ROOT/etc/systemd/system" "$ROOT/etc/udev/rules.d" "$ROOT/etc/sysctl.d"
install -m 0644 "$SRC/systemd/$NAME.service" "$ROOT$UNIT"
# The udev rules are the one file a museum is told to edit (to narrow the
# gantry to its serial number): an edited copy is kept, the new one put next
# to it as .new, like dpkg does with a changed conffile.
RULES_ORIG=$ROOT$BOOKKEEPING/99-tafl.rules.installed
if [ -f "$ROOT$RULES" ] && [ -f "$RULES_ORIG" ] && ! cmp -s "$ROOT$RULES" "$RULES_ORIG"; then
    if cmp -s "$SRC/systemd/99-tafl.rules" "$RULES_ORIG"; then
        :                         # no new version: nothing to compare
    else
        install -m 0644 "$SRC/systemd/99-tafl.rules" "$ROOT$RULES.new"
        say "WARNING: keeping your edited $RULES; the new version is $RULES.new (compare them)"
    fi
else
    install -m 0644 "$SRC/systemd/99-tafl.rules" "$ROOT$RULES"
    rm -f "$ROOT$RULES.new"
fi
install -m 0644 "$SRC/systemd/99-tafl.rules" "$RULES_ORIG"
install -m 0644 "$SRC/systemd/90-$NAME.sysctl" "$ROOT$SYSCTL"
for device in "${DEVICE_UNITS[@]}"; do
    install -d -m 0755 "$ROOT/etc/systemd/system/$device.d"
    install -m 0644 "$SRC/systemd/$DEVICE_TIMEOUT" "$ROOT/etc/systemd/system/$device.d/$DEVICE_TIMEOUT"
done
# Ctrl+Alt+Del would reboot the machine: mask it, unless the museum already
# decided about it (then leave their setting alone).
if [ ! -e "$ROOT$CAD_MASK" ] && [ ! -L "$ROOT$CAD_MASK" ]; then
    ln -s /dev/null "$ROOT$CAD_MASK"
    touch "$ROOT$BOOKKEEPING/masked-ctrl-alt-del"
fi
install -d -m 0755 "$ROOT$STATE" "$ROOT$LOGS"
if [ "$LIVE" = 1 ]; then
    chown "$USER_NAME":"$USER_NAME" "$STATE" "$LOGS"
    chmod 0750 "$STATE" "$LOGS"
fi
say "installed $UNIT, $RULES, $SYSCTL"

# --- 4b. desktop session instead of the system service -----------------------
if [ -n "$DESKTOP_USER" ]; then
    USER_UNIT_DIR=$DESKTOP_HOME/.config/systemd/user
    AUTOSTART_DIR=$DESKTOP_HOME/.config/autostart
    # Directories in the user's home belong to the user: a root-owned
    # ~/.config would break their desktop.
    OWNER=()
    [ "$LIVE" = 0 ] || OWNER=(-o "$DESKTOP_USER" -g "$(id -gn "$DESKTOP_USER")")
    for dir in .config .config/systemd .config/systemd/user .config/autostart; do
        [ -d "$ROOT$DESKTOP_HOME/$dir" ] || install -d -m 0755 "${OWNER[@]}" "$ROOT$DESKTOP_HOME/$dir"
    done
    install -m 0644 "$SRC/systemd/$NAME-session.service" "$ROOT$USER_UNIT_DIR/$NAME-session.service"
    install -m 0644 "$SRC/systemd/$NAME-session.desktop" "$ROOT$AUTOSTART_DIR/$NAME.desktop"
    printf '%s\n' "$DESKTOP_USER" > "$ROOT$BOOKKEEPING/desktop-user"
    rm -f "$ROOT$WANTS"
    if [ "$LIVE" = 1 ]; then
        usermod --append --groups video,render,input,dialout,"$USER_NAME" "$DESKTOP_USER"
        chown "$DESKTOP_USER":"$(id -gn "$DESKTOP_USER")" "$USER_UNIT_DIR/$NAME-session.service" \
            "$AUTOSTART_DIR/$NAME.desktop"
        chown "$DESKTOP_USER":"$USER_NAME" "$STATE" "$LOGS"
        systemctl disable --now "$NAME.service" 2>/dev/null || true
        systemctl daemon-reload
        udevadm control --reload
        udevadm trigger --action=add --subsystem-match=tty --subsystem-match=video4linux
        sysctl --quiet --load="$SYSCTL" || true
        say "the kiosk starts in $DESKTOP_USER's desktop session (log in, or set automatic login)."
        say "$DESKTOP_USER was added to groups video, render, input, dialout, $USER_NAME: log out and in again."
    else
        say "installed into $ROOT for $DESKTOP_USER's desktop session (no systemctl, udevadm or sysctl calls in --root mode)"
    fi
    exit 0
fi

# --- 5. activate ---------------------------------------------------------------
if [ -f "$ROOT$BOOKKEEPING/desktop-user" ]; then
    # Back from desktop mode to the system service.
    old_user=$(cat "$ROOT$BOOKKEEPING/desktop-user")
    old_home=$(grep "^$old_user:" "$ROOT/etc/passwd" 2>/dev/null | cut -d: -f6 || true)
    [ -z "$old_home" ] || rm -f "$ROOT$old_home/.config/systemd/user/$NAME-session.service" \
        "$ROOT$old_home/.config/autostart/$NAME.desktop"
    rm -f "$ROOT$BOOKKEEPING/desktop-user"
fi
if [ "$LIVE" = 0 ]; then
    # What `systemctl enable` does for WantedBy=multi-user.target.
    install -d -m 0755 "$(dirname "$ROOT$WANTS")"
    ln -sfn "$UNIT" "$ROOT$WANTS"
    say "installed into $ROOT (no systemctl, udevadm or sysctl calls in --root mode)"
    exit 0
fi

udevadm control --reload
udevadm trigger --action=add --subsystem-match=tty --subsystem-match=video4linux
sysctl --quiet --load="$SYSCTL" || say "WARNING: could not apply $SYSCTL now (it applies at the next boot)"
systemctl daemon-reload
systemctl enable "$NAME.service"
if [ "$(systemctl get-default 2>/dev/null)" = graphical.target ]; then
    say "WARNING: this machine boots to a desktop, which keeps the screen from the kiosk"
    say "         (SDL kmsdrm needs it). Boot to the console: sudo systemctl set-default multi-user.target"
    say "         or read 'On a Debian desktop' in $APP/docs/install.md."
fi
if [ "$START" = 1 ]; then
    systemctl restart "$NAME.service"
    say "started: systemctl status $NAME   journalctl -u $NAME -f"
elif [ "$WAS_ACTIVE" = 1 ]; then
    say "--no-start: the kiosk was stopped for the update and stays stopped"
else
    say "enabled; it starts at the next boot (or: sudo systemctl start $NAME)"
fi
