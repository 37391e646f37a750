"""systemd/install.sh and uninstall.sh, run for real into a temporary root (--root).

In --root mode the scripts call no systemctl, udevadm, sysctl or chown, so this
touches nothing outside tmp_path. The source is a small tree shaped like the
repository (its real systemd/ files, a package, the directories that must not
be copied), so that others editing the working tree cannot change it mid-copy.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.deploy import FAKE_CLI_FAILS, install_source
from tests.helpers.paths import REPO

INSTALL = REPO / "systemd" / "install.sh"
UNINSTALL = REPO / "systemd" / "uninstall.sh"

def _run(script: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "DESTDIR"}
    full_env.update(env or {})
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True,
                          env=full_env, timeout=120)


def _install(src: Path, root: Path, *extra: str) -> subprocess.CompletedProcess:
    result = _run(INSTALL, "--root", str(root), "--src", str(src), "--no-venv",
                  "--python", sys.executable, *extra)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _snapshot(root: Path) -> dict[str, str]:
    """Every path under root with its type, mode and content (or link target)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            out[rel] = "link " + os.readlink(path)
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = f"dir {stat.S_IMODE(st.st_mode):o}"
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            out[rel] = f"file {stat.S_IMODE(st.st_mode):o} {digest}"
    return out


def test_install_into_a_root(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    result = _install(src, root)
    assert "no systemctl, udevadm or sysctl calls" in result.stdout

    unit = root / "etc/systemd/system/tafl-kiosk.service"
    assert unit.read_text() == (REPO / "systemd/tafl-kiosk.service").read_text()
    assert (root / "etc/udev/rules.d/99-tafl.rules").read_text() == \
        (REPO / "systemd/99-tafl.rules").read_text()
    assert (root / "etc/sysctl.d/90-tafl-kiosk.conf").read_text().count("kernel.sysrq = 0") == 1
    assert (root / "etc/sysusers.d/tafl-kiosk.conf").is_file()
    wants = root / "etc/systemd/system/multi-user.target.wants/tafl-kiosk.service"
    assert os.readlink(wants) == "/etc/systemd/system/tafl-kiosk.service"
    assert os.readlink(root / "etc/systemd/system/ctrl-alt-del.target") == "/dev/null"
    for device in ("gantry", "camera"):
        dropin = root / f"etc/systemd/system/dev-tafl\\x2d{device}.device.d/50-tafl-device-timeout.conf"
        assert "JobRunningTimeoutSec=20s" in dropin.read_text(), device
    for mode_path in (unit, root / "etc/udev/rules.d/99-tafl.rules"):
        assert stat.S_IMODE(mode_path.stat().st_mode) == 0o644

    app = root / "opt/tafl-kiosk"
    assert (app / "kiosk/__init__.py").is_file()
    assert (app / "systemd/install.sh").is_file()
    for skipped in (".git", ".venv", ".pytest_cache", "kiosk/__pycache__"):
        assert not (app / skipped).exists(), skipped

    config = root / "etc/tafl-kiosk/config.toml"
    assert config.read_text() == 'board = "board-11"\n'
    assert stat.S_IMODE(config.stat().st_mode) == 0o660
    assert stat.S_IMODE((root / "etc/tafl-kiosk").stat().st_mode) == 0o770
    assert (root / "var/lib/tafl-kiosk").is_dir() and (root / "var/log/tafl-kiosk").is_dir()

    if shutil.which("systemd-sysusers"):
        passwd = (root / "etc/passwd").read_text()
        assert any(line.startswith("tafl:") and line.endswith(":/var/lib/tafl-kiosk:/usr/sbin/nologin")
                   for line in passwd.splitlines())
        groups = {line.split(":")[0]: line.split(":")[3].split(",")
                  for line in (root / "etc/group").read_text().splitlines()}
        for group in ("video", "render", "input", "dialout"):
            assert "tafl" in groups[group], group


def test_install_again_changes_nothing_and_keeps_config_and_venv(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    _install(src, root)
    config = root / "etc/tafl-kiosk/config.toml"
    config.write_text('board = "board-9"   # calibrated by the museum\n')
    venv_marker = root / "opt/tafl-kiosk/.venv/pyvenv.cfg"
    venv_marker.parent.mkdir()
    venv_marker.write_text("home = /usr/bin\n")
    before = _snapshot(root)
    result = _install(src, root)
    assert "keeping the existing /etc/tafl-kiosk/config.toml" in result.stdout
    assert _snapshot(root) == before


def test_an_update_drops_files_deleted_from_theinstall_source(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    (src / "kiosk" / "old_module.py").write_text("")
    _install(src, root)
    assert (root / "opt/tafl-kiosk/kiosk/old_module.py").exists()
    (src / "kiosk" / "old_module.py").unlink()
    _install(src, root)
    assert not (root / "opt/tafl-kiosk/kiosk/old_module.py").exists()
    assert (root / "opt/tafl-kiosk/kiosk/__init__.py").exists()


def test_without_tafl_calibrate_it_says_how_to_write_the_config(tmp_path: Path) -> None:
    src, root = install_source(tmp_path, cli=None), tmp_path / "root"
    result = _install(src, root)
    assert "tafl-calibrate is not available" in result.stdout
    assert "tafl-calibrate config --write-default /etc/tafl-kiosk/config.toml" in result.stdout
    assert not (root / "etc/tafl-kiosk/config.toml").exists()
    assert (root / "etc/systemd/system/tafl-kiosk.service").exists()   # the rest still installed


def test_a_failing_tafl_calibrate_is_reported_and_not_fatal(tmp_path: Path) -> None:
    src, root = install_source(tmp_path, cli=FAKE_CLI_FAILS), tmp_path / "root"
    result = _install(src, root)
    assert "error: cannot write defaults" in result.stderr
    assert "--write-default' failed" in result.stdout
    assert not (root / "etc/tafl-kiosk/config.toml").exists()


def test_destdir_works_like_root(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "destdir"
    result = _run(INSTALL, "--src", str(src), "--no-venv", "--python", sys.executable,
                  env={"DESTDIR": str(root)})
    assert result.returncode == 0, result.stderr
    assert (root / "etc/systemd/system/tafl-kiosk.service").is_file()
    # the same files, modes and contents as an install with --root, and no DESTDIR inside them
    other = tmp_path / "root"
    _install(src, other)
    theirs, ours = _snapshot(other), _snapshot(root)
    assert ours.keys() == theirs.keys()
    for rel in ours:
        if not rel.endswith("config.toml"):         # the installer writes a fresh reward secret there
            assert ours[rel] == theirs[rel], rel
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert str(root) not in path.read_text(errors="replace"), path


def test_uninstall_keeps_the_game_log_unless_purged(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    _install(src, root)
    games = root / "var/lib/tafl-kiosk/gamelog/2026-11.jsonl"
    games.parent.mkdir(parents=True)
    games.write_text("{}\n")

    result = _run(UNINSTALL, "--root", str(root))
    assert result.returncode == 0, result.stderr
    assert "kept /var/lib/tafl-kiosk" in result.stdout
    for gone in ("opt/tafl-kiosk", "etc/systemd/system/tafl-kiosk.service",
                 "etc/systemd/system/multi-user.target.wants/tafl-kiosk.service",
                 "etc/udev/rules.d/99-tafl.rules", "etc/sysctl.d/90-tafl-kiosk.conf",
                 "etc/sysusers.d/tafl-kiosk.conf", "etc/systemd/system/ctrl-alt-del.target",
                 "etc/systemd/system/dev-tafl\\x2dgantry.device.d",
                 "etc/systemd/system/dev-tafl\\x2dcamera.device.d"):
        assert not os.path.lexists(root / gone), gone
    assert games.read_text() == "{}\n"
    assert (root / "etc/tafl-kiosk/config.toml").exists()

    result = _run(UNINSTALL, "--root", str(root), "--purge")
    assert result.returncode == 0, result.stderr
    for gone in ("var/lib/tafl-kiosk", "var/log/tafl-kiosk", "etc/tafl-kiosk"):
        assert not (root / gone).exists(), gone


def test_a_ctrl_alt_del_setting_of_the_museum_is_left_alone(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    own = root / "etc/systemd/system/ctrl-alt-del.target"
    own.parent.mkdir(parents=True)
    own.symlink_to("/lib/systemd/system/poweroff.target")
    _install(src, root)
    assert os.readlink(own) == "/lib/systemd/system/poweroff.target"
    assert not (root / "opt/tafl-kiosk/.install/masked-ctrl-alt-del").exists()
    assert _run(UNINSTALL, "--root", str(root)).returncode == 0
    assert os.readlink(own) == "/lib/systemd/system/poweroff.target"


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown option --bogus"),
    (["--root"], "--root needs a directory"),
])
def test_bad_options_get_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = _run(INSTALL, *args)
    assert result.returncode == 1
    assert message in result.stderr


def test_a_source_that_is_not_the_repository_is_refused(tmp_path: Path) -> None:
    result = _run(INSTALL, "--root", str(tmp_path / "root"), "--src", str(tmp_path), "--no-venv")
    assert result.returncode == 1
    assert "is not the tafl-kiosk repository" in result.stderr


def test_help_prints_the_usage() -> None:
    for script in (INSTALL, UNINSTALL):
        result = _run(script, "--help")
        assert result.returncode == 0
        assert "--root DIR" in result.stdout and "set -euo" not in result.stdout


def test_an_edited_udev_rules_file_survives_an_update(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    _install(src, root)
    rules = root / "etc/udev/rules.d/99-tafl.rules"
    edited = rules.read_text() + '# narrowed by the museum\n'
    rules.write_text(edited)
    result = _install(src, root)                 # same version: nothing to compare
    assert rules.read_text() == edited
    assert not (root / "etc/udev/rules.d/99-tafl.rules.new").exists()
    (src / "systemd/99-tafl.rules").write_text((src / "systemd/99-tafl.rules").read_text() + "\n# v2\n")
    result = _install(src, root)                 # a new version arrives
    assert rules.read_text() == edited
    assert (root / "etc/udev/rules.d/99-tafl.rules.new").read_text().endswith("# v2\n")
    assert "keeping your edited /etc/udev/rules.d/99-tafl.rules" in result.stdout
    assert _run(UNINSTALL, "--root", str(root)).returncode == 0
    assert not rules.exists() and not (root / "etc/udev/rules.d/99-tafl.rules.new").exists()


def _add_desktop_user(root: Path, name: str = "museum") -> Path:
    home = root / "home" / name
    home.mkdir(parents=True)
    with (root / "etc/passwd").open("a") as passwd:
        passwd.write(f"{name}:x:1000:1000:Museum:/home/{name}:/bin/bash\n")
    return home


def test_desktop_mode_runs_the_kiosk_in_the_users_session(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    home = _add_desktop_user(root)
    result = _install(src, root, "--desktop-user", "museum")
    assert "museum's desktop session" in result.stdout
    user_unit = home / ".config/systemd/user/tafl-kiosk-session.service"
    autostart = home / ".config/autostart/tafl-kiosk.desktop"
    assert user_unit.read_text() == (REPO / "systemd/tafl-kiosk-session.service").read_text()
    assert "tafl-kiosk-session.service" in autostart.read_text()
    assert not os.path.lexists(root / "etc/systemd/system/multi-user.target.wants/tafl-kiosk.service")

    _install(src, root)                              # back to the system service
    assert not user_unit.exists() and not autostart.exists()
    assert os.path.lexists(root / "etc/systemd/system/multi-user.target.wants/tafl-kiosk.service")

    _install(src, root, "--desktop-user", "museum")
    assert _run(UNINSTALL, "--root", str(root)).returncode == 0
    assert not user_unit.exists() and not autostart.exists()


def test_desktop_mode_needs_an_existing_user(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    result = _run(INSTALL, "--root", str(root), "--src", str(src), "--no-venv",
                  "--desktop-user", "nobody-here")
    assert result.returncode == 1
    assert "--desktop-user nobody-here: no such user" in result.stderr


def test_the_venv_step_reports_a_failed_package_install_clearly(tmp_path: Path) -> None:
    """A real venv is made; with an empty --wheels directory pip must fail with a clear line."""
    src, root = install_source(tmp_path), tmp_path / "root"
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    result = _run(INSTALL, "--root", str(root), "--src", str(src), "--python", sys.executable,
                  "--wheels", str(wheels))
    assert result.returncode == 1
    assert "pip could not install the kiosk (network down? try --wheels DIR)" in result.stderr
    assert (root / "opt/tafl-kiosk/.venv/bin/python").exists()


def test_an_existing_config_that_no_longer_validates_is_reported(tmp_path: Path) -> None:
    src, root = install_source(tmp_path), tmp_path / "root"
    _install(src, root)
    config = root / "etc/tafl-kiosk/config.toml"
    config.write_text("bord = 1\n")
    result = _install(src, root)
    assert "expected a board line" in result.stderr
    assert "has the problems listed above" in result.stdout
    assert config.read_text() == "bord = 1\n"                 # never overwritten


def test_with_the_real_calibration_package_the_config_is_valid_and_has_a_secret(tmp_path: Path) -> None:
    """The real `tafl-calibrate config --write-default`, then this kiosk's own reward secret."""
    if not (REPO / "calibration" / "cli.py").exists():
        pytest.skip("calibration/cli.py (tafl-calibrate) is not in the repository yet")
    src, root = install_source(tmp_path, cli=None), tmp_path / "root"
    shutil.rmtree(src / "kiosk")
    for package in ("calibration", "engine", "kiosk", "robot", "vision"):
        shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    result = _install(src, root)
    assert "wrote the default configuration to /etc/tafl-kiosk/config.toml" in result.stdout
    assert "generated this kiosk's reward secret" in result.stdout
    from calibration.config_file import load_config
    config_path = root / "etc/tafl-kiosk/config.toml"
    secret = load_config(str(config_path)).kiosk.reward_secret
    assert len(secret) == 64 and int(secret, 16) >= 0
    assert stat.S_IMODE(config_path.stat().st_mode) == 0o660
    result = _install(src, root)                                 # again: same secret, config checked
    assert "keeping the existing /etc/tafl-kiosk/config.toml" in result.stdout
    assert load_config(str(config_path)).kiosk.reward_secret == secret
