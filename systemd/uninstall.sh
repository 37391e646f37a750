#!/bin/bash
# Remove the tafl museum kiosk that systemd/install.sh installed.
#
#   sudo systemd/uninstall.sh            # keeps the game log, config and user
#   sudo systemd/uninstall.sh --purge    # removes those too
#
# Without --purge the state directory /var/lib/tafl-kiosk (game log, journal,
# rewards), the logs in /var/log/tafl-kiosk, the configuration in
# /etc/tafl-kiosk (with its calibration) and the user `tafl` stay, so that a
# later install picks up where this one left off.
#
# Options:
#   --root DIR   remove from DIR instead of / (also: DESTDIR=DIR); no
#                systemctl, udevadm, sysctl or userdel calls
#   --purge      also remove the state, logs, configuration and the user
set -euo pipefail

NAME=tafl-kiosk
USER_NAME=tafl
APP=/opt/tafl-kiosk
CONF_DIR=/etc/tafl-kiosk
UNIT=/etc/systemd/system/$NAME.service
UNIT_DROPINS=/etc/systemd/system/$NAME.service.d
WANTS=/etc/systemd/system/multi-user.target.wants/$NAME.service
CAD_MASK=/etc/systemd/system/ctrl-alt-del.target
RULES=/etc/udev/rules.d/99-tafl.rules
SYSUSERS=/etc/sysusers.d/$NAME.conf
SYSCTL=/etc/sysctl.d/90-$NAME.conf
STATE=/var/lib/$NAME
LOGS=/var/log/$NAME
CACHE=/var/cache/$NAME
BOOKKEEPING=$APP/.install
DEVICE_UNITS=('dev-tafl\x2dgantry.device' 'dev-tafl\x2dcamera.device')
DEVICE_TIMEOUT=50-tafl-device-timeout.conf

ARGS="$*"
ROOT=${DESTDIR:-}
PURGE=0

say() { printf '%s uninstall: %s\n' "$NAME" "$*"; }
die() { printf '%s uninstall: error: %s\n' "$NAME" "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT=$2; shift 2 ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        --purge) PURGE=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

if [ -n "$ROOT" ]; then
    [ -d "$ROOT" ] || die "--root $ROOT is not a directory"
    ROOT=$(cd "$ROOT" && pwd)
    [ "$ROOT" != / ] || ROOT=""
fi
LIVE=1
[ -z "$ROOT" ] || LIVE=0
if [ "$LIVE" = 1 ] && [ "$(id -u)" != 0 ]; then
    die "run as root: sudo $0 $ARGS"
fi

if [ "$LIVE" = 1 ] && [ -e "$UNIT" ]; then
    systemctl disable --now "$NAME.service" || say "WARNING: could not stop and disable $NAME.service"
fi

rm -f "$ROOT$WANTS" "$ROOT$UNIT" "$ROOT$RULES" "$ROOT$RULES.new" "$ROOT$SYSCTL" "$ROOT$SYSUSERS"
# Desktop mode (install.sh --desktop-user): the user service and autostart entry.
if [ -f "$ROOT$BOOKKEEPING/desktop-user" ]; then
    desktop_user=$(cat "$ROOT$BOOKKEEPING/desktop-user")
    desktop_home=$(grep "^$desktop_user:" "$ROOT/etc/passwd" 2>/dev/null | cut -d: -f6 || true)
    if [ -n "$desktop_home" ]; then
        if [ "$LIVE" = 1 ] && [ -n "$(command -v runuser)" ]; then
            runuser -u "$desktop_user" -- env "XDG_RUNTIME_DIR=/run/user/$(id -u "$desktop_user")" \
                systemctl --user stop "$NAME-session.service" 2>/dev/null || true
        fi
        rm -f "$ROOT$desktop_home/.config/systemd/user/$NAME-session.service" \
            "$ROOT$desktop_home/.config/autostart/$NAME.desktop"
        say "removed the desktop-session kiosk of $desktop_user"
    fi
fi
for device in "${DEVICE_UNITS[@]}"; do
    rm -f "$ROOT/etc/systemd/system/$device.d/$DEVICE_TIMEOUT"
    rmdir "$ROOT/etc/systemd/system/$device.d" 2>/dev/null || true
done
# The Ctrl+Alt+Del mask only if this installer made it.
if [ -e "$ROOT$BOOKKEEPING/masked-ctrl-alt-del" ] && [ -L "$ROOT$CAD_MASK" ] \
        && [ "$(readlink "$ROOT$CAD_MASK")" = /dev/null ]; then
    rm -f "$ROOT$CAD_MASK"
fi
rm -rf "$ROOT$APP"
say "removed the service, the udev rules, the lock-down settings and $APP"

if [ "$PURGE" = 1 ]; then
    rm -rf "$ROOT$UNIT_DROPINS" "$ROOT$CONF_DIR" "$ROOT$STATE" "$ROOT$LOGS" "$ROOT$CACHE"
    say "purged $CONF_DIR, $STATE and $LOGS"
else
    say "kept $STATE (game log), $LOGS and $CONF_DIR (config and calibration); --purge removes them"
fi

if [ "$LIVE" = 0 ]; then
    say "removed from $ROOT (no systemctl, udevadm, sysctl or userdel calls in --root mode)"
    exit 0
fi

systemctl daemon-reload
udevadm control --reload
udevadm trigger --action=add --subsystem-match=tty --subsystem-match=video4linux
sysctl --quiet --system || say "WARNING: sysctl --system failed; the SysRq setting returns at the next boot"
if [ "$PURGE" = 1 ] && getent passwd "$USER_NAME" >/dev/null; then
    userdel "$USER_NAME" && say "removed the user $USER_NAME" \
        || say "WARNING: could not remove the user $USER_NAME"
fi
