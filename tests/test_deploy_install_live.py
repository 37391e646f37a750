"""install.sh and uninstall.sh in live mode (no --root), inside a private mount namespace.

Live mode is what a technician runs: it creates the user for real, chowns,
and drives systemctl, udevadm and sysctl. Here it runs as root under
`unshare --mount` with copies bound over /etc, /opt and /var/{lib,log,cache},
so the machine's own files are never touched, and with systemctl, udevadm and
sysctl replaced by stubs on PATH that record their arguments (this machine
runs no systemd). Users, groups, modes and owners are the real thing.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from test_deploy_install import _source   # tests/ is on sys.path (pytest prepend mode)

REPO = Path(__file__).resolve().parents[1]
STUB = '#!/bin/sh\necho "$(basename "$0") $*" >> "{log}"\n{extra}\n'


def _namespace_works() -> str | None:
    if os.geteuid() != 0:
        return "needs root (live mode creates a user and chowns files)"
    if shutil.which("unshare") is None:
        return "unshare is not installed"
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot make a private mount namespace here: {probe.stderr.strip()}"
    if shutil.which("systemd-sysusers") is None and shutil.which("useradd") is None:
        return "neither systemd-sysusers nor useradd is installed"
    return None


@pytest.fixture
def live(tmp_path: Path):
    reason = _namespace_works()
    if reason:
        pytest.skip(reason)
    world = tmp_path / "world"
    shutil.copytree("/etc", world / "etc", symlinks=True, ignore_dangling_symlinks=True)
    for name in ("opt", "var-lib", "var-log", "var-cache", "home"):
        (world / name).mkdir()
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    log = tmp_path / "calls.log"
    for name, extra in (("systemctl", 'case "$1" in is-active) exit 3;; get-default) echo multi-user.target;; esac'),
                        ("udevadm", ""), ("sysctl", "")):
        path = stubs / name
        path.write_text(STUB.format(log=log, extra=extra))
        path.chmod(0o755)

    def run(script: str, *args: str) -> subprocess.CompletedProcess:
        inner = (
            f'mount --bind "{world}/etc" /etc && mount --bind "{world}/opt" /opt && '
            f'mount --bind "{world}/var-lib" /var/lib && mount --bind "{world}/var-log" /var/log && '
            f'mount --bind "{world}/var-cache" /var/cache && mount --bind "{world}/home" /home && '
            f'PATH="{stubs}:$PATH" exec bash "$0" "$@"'
        )
        env = {k: v for k, v in os.environ.items() if k != "DESTDIR"}
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", inner,
                               script, *args], capture_output=True, text=True, env=env, timeout=120)

    return world, log, run


def _owner(world: Path, path: Path) -> str:
    """'user:group mode' of a file, names looked up in the namespace's /etc."""
    st = path.stat()
    users = {int(row.split(":")[2]): row.split(":")[0] for row in (world / "etc/passwd").read_text().splitlines()}
    groups = {int(row.split(":")[2]): row.split(":")[0] for row in (world / "etc/group").read_text().splitlines()}
    return f"{users[st.st_uid]}:{groups[st.st_gid]} {stat.S_IMODE(st.st_mode):o}"


def test_live_install_creates_the_user_owns_the_files_and_starts_the_service(live, tmp_path: Path) -> None:
    world, log, run = live
    src = _source(tmp_path)
    result = run(str(REPO / "systemd/install.sh"), "--src", str(src), "--no-venv", "--python", sys.executable)
    assert result.returncode == 0, result.stdout + result.stderr

    passwd = (world / "etc/passwd").read_text()
    assert any(row.startswith("tafl:") and row.endswith(":/var/lib/tafl-kiosk:/usr/sbin/nologin")
               for row in passwd.splitlines())
    members = {row.split(":")[0]: row.split(":")[3].split(",") for row in (world / "etc/group").read_text().splitlines()}
    assert all("tafl" in members[g] for g in ("video", "render", "input", "dialout"))

    assert _owner(world, world / "etc/tafl-kiosk") == "root:tafl 770"
    assert _owner(world, world / "etc/tafl-kiosk/config.toml") == "root:tafl 660"
    assert _owner(world, world / "var-lib/tafl-kiosk") == "tafl:tafl 750"
    assert _owner(world, world / "var-log/tafl-kiosk") == "tafl:tafl 750"
    assert _owner(world, world / "opt/tafl-kiosk/kiosk/__init__.py") == "root:root 644"
    assert os.readlink(world / "etc/systemd/system/ctrl-alt-del.target") == "/dev/null"

    calls = log.read_text().splitlines()
    assert calls == [
        "systemctl is-active --quiet tafl-kiosk.service",
        "udevadm control --reload",
        "udevadm trigger --action=add --subsystem-match=tty --subsystem-match=video4linux",
        "sysctl --quiet --load=/etc/sysctl.d/90-tafl-kiosk.conf",
        "systemctl daemon-reload",
        "systemctl enable tafl-kiosk.service",
        "systemctl get-default",
        "systemctl restart tafl-kiosk.service",
    ]
    # No enable symlink by hand in live mode: that is systemctl's job.
    assert not os.path.lexists(world / "etc/systemd/system/multi-user.target.wants/tafl-kiosk.service")

    log.write_text("")
    result = run(str(REPO / "systemd/install.sh"), "--src", str(src), "--no-venv", "--no-start")
    assert result.returncode == 0, result.stderr
    assert "systemctl restart tafl-kiosk.service" not in log.read_text()
    assert "it starts at the next boot" in result.stdout


def test_live_uninstall_and_purge(live, tmp_path: Path) -> None:
    world, log, run = live
    src = _source(tmp_path)
    assert run(str(REPO / "systemd/install.sh"), "--src", str(src), "--no-venv",
               "--python", sys.executable).returncode == 0
    log.write_text("")
    result = run(str(REPO / "systemd/uninstall.sh"))
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "systemctl disable --now tafl-kiosk.service"
    assert "systemctl daemon-reload" in calls and "sysctl --quiet --system" in calls
    assert not (world / "etc/systemd/system/tafl-kiosk.service").exists()
    assert not (world / "opt/tafl-kiosk").exists()
    assert (world / "var-lib/tafl-kiosk").is_dir()
    assert "tafl:" in (world / "etc/passwd").read_text()           # kept without --purge

    result = run(str(REPO / "systemd/uninstall.sh"), "--purge")
    assert result.returncode == 0, result.stderr
    assert "removed the user tafl" in result.stdout
    assert "\ntafl:" not in "\n" + (world / "etc/passwd").read_text()
    assert not (world / "var-lib/tafl-kiosk").exists() and not (world / "etc/tafl-kiosk").exists()


def test_a_desktop_machine_gets_a_warning(live, tmp_path: Path) -> None:
    world, log, run = live
    stub = Path(str(log).replace("calls.log", "stubs")) / "systemctl"
    stub.write_text(STUB.format(log=log, extra='case "$1" in is-active) exit 3;; get-default) echo graphical.target;; esac'))
    result = run(str(REPO / "systemd/install.sh"), "--src", str(_source(tmp_path)), "--no-venv", "--no-start")
    assert result.returncode == 0, result.stderr
    assert "this machine boots to a desktop" in result.stdout
    assert "systemctl set-default multi-user.target" in result.stdout


def test_live_desktop_mode(live, tmp_path: Path) -> None:
    world, log, run = live
    (world / "home/museum").mkdir()
    with (world / "etc/passwd").open("a") as passwd:
        passwd.write("museum:x:1234:1234:Museum:/home/museum:/bin/bash\n")
    with (world / "etc/group").open("a") as group:
        group.write("museum:x:1234:\n")
    result = run(str(REPO / "systemd/install.sh"), "--src", str(_source(tmp_path)), "--no-venv",
                 "--python", sys.executable, "--desktop-user", "museum")
    assert result.returncode == 0, result.stdout + result.stderr
    members = {row.split(":")[0]: row.split(":")[3].split(",") for row in (world / "etc/group").read_text().splitlines()}
    for group in ("video", "render", "input", "dialout", "tafl"):
        assert "museum" in members[group], group
    unit = world / "home/museum/.config/systemd/user/tafl-kiosk-session.service"
    for directory in (".config", ".config/systemd", ".config/systemd/user", ".config/autostart"):
        assert _owner(world, world / "home/museum" / directory) == "museum:museum 755", directory
    assert _owner(world, unit) == "museum:museum 644"
    assert _owner(world, world / "home/museum/.config/autostart/tafl-kiosk.desktop") == "museum:museum 644"
    assert _owner(world, world / "var-lib/tafl-kiosk") == "museum:tafl 750"
    calls = log.read_text().splitlines()
    assert "systemctl disable --now tafl-kiosk.service" in calls
    assert not any(c.startswith("systemctl enable") or c.startswith("systemctl restart") for c in calls)
    assert "log out and in again" in result.stdout
