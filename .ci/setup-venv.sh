#!/bin/sh
# Create the project's virtual environment. A fresh Debian/Ubuntu/Raspberry Pi
# OS has Python but often not its venv module (package python3-venv); install
# it with apt when that is what is missing, so `make` works on a bare machine.
set -e
PY="$1"; VENV="$2"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  exit 0
fi
rm -rf "$VENV"
if "$PY" -m venv "$VENV" 2>/dev/null; then exit 0; fi
echo "python venv module missing: installing python3-venv with apt" >&2
rm -rf "$VENV"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
ver=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
$SUDO apt-get update -q
$SUDO apt-get install -y -q "python$ver-venv" || $SUDO apt-get install -y -q python3-venv
"$PY" -m venv "$VENV"
