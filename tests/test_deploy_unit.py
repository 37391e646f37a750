"""systemd/tafl-kiosk.service: systemd accepts it, it is locked down, and it agrees with the rest.

`systemd-analyze verify` insists that ExecStart's program exists, and
/opt/tafl-kiosk is only there on an installed kiosk, so it checks a copy of the
unit whose ExecStart is /bin/true; every other line (User= included) is the
real one, and any warning at all fails the test.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from kiosk import lockdown

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "systemd" / "tafl-kiosk.service"
RULES = REPO / "systemd" / "99-tafl.rules"
MAX_EXPOSURE = 4.0


def unit_entries(text: str) -> dict[str, list[str]]:
    """'Section.Key' -> every value given for it, in order (systemd keys may repeat)."""
    entries: dict[str, list[str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        entries.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return entries


@pytest.fixture(scope="module")
def entries() -> dict[str, list[str]]:
    return unit_entries(UNIT.read_text())


def _systemd_analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.skip("systemd-analyze is not installed on this machine")
    return path


def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    analyze = _systemd_analyze()
    text = UNIT.read_text()
    assert re.search(r"^ExecStart=/opt/tafl-kiosk/\.venv/bin/tafl-kiosk ", text, re.M)
    copy = tmp_path / "tafl-kiosk.service"
    copy.write_text(re.sub(r"^ExecStart=.*$", "ExecStart=/bin/true", text, flags=re.M))
    result = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0 and output == "", output


def test_verify_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check above is only worth something if a typo makes it speak."""
    analyze = _systemd_analyze()
    text = re.sub(r"^ExecStart=.*$", "ExecStart=/bin/true", UNIT.read_text(), flags=re.M)
    broken = tmp_path / "tafl-kiosk.service"
    broken.write_text(text.replace("DevicePolicy=closed", "DevicePolicy=shut"))
    result = subprocess.run([analyze, "verify", str(broken)], capture_output=True, text=True)
    assert "device policy" in (result.stdout + result.stderr)


def test_security_exposure_is_at_most_4(tmp_path: Path) -> None:
    analyze = _systemd_analyze()
    probe = subprocess.run([analyze, "security", "--help"], capture_output=True, text=True)
    if "--offline" not in probe.stdout:
        pytest.skip("this systemd-analyze cannot judge a unit file offline (needs systemd 250+)")
    result = subprocess.run(
        [analyze, "security", "--offline=true", f"--threshold={int(MAX_EXPOSURE * 10)}",
         "--no-pager", str(UNIT)],
        capture_output=True, text=True)
    match = re.search(r"Overall exposure level for tafl-kiosk\.service: (\d+\.\d)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= MAX_EXPOSURE
    assert result.returncode == 0


def test_service_shape(entries) -> None:
    def one(key: str) -> str:
        values = entries[key]
        assert len(values) == 1, f"{key} given {len(values)} times"
        return values[0]

    assert one("Service.Type") == "notify"
    assert one("Service.NotifyAccess") == "main"
    assert one("Service.Restart") == "always"
    assert one("Service.User") == "tafl"
    assert set(one("Service.SupplementaryGroups").split()) == {"video", "render", "input", "dialout"}
    watchdog = one("Service.WatchdogSec")
    assert re.fullmatch(r"\d+s", watchdog) and 5 <= int(watchdog[:-1]) <= 60
    assert one("Service.StateDirectory") == "tafl-kiosk"
    assert one("Service.LogsDirectory") == "tafl-kiosk"
    assert one("Service.ConfigurationDirectory") == "tafl-kiosk"
    assert one("Install.WantedBy") == "multi-user.target"
    assert one("Unit.StartLimitIntervalSec") == "0"      # never give up restarting


def test_lock_down_settings(entries) -> None:
    for key, value in {
        "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
        "NoNewPrivileges": "yes", "DevicePolicy": "closed", "CapabilityBoundingSet": "",
        "RestrictSUIDSGID": "yes", "ProtectKernelTunables": "yes", "ProtectControlGroups": "yes",
        "IPAddressDeny": "any",
    }.items():
        assert entries[f"Service.{key}"] == [value], key
    allowed = {tuple(v.split()) for v in entries["Service.DeviceAllow"]}
    assert allowed == {("char-drm", "rw"), ("char-input", "r"), ("char-ttyACM", "rw"),
                       ("char-ttyUSB", "rw"), ("char-video4linux", "rw")}
    # Writable: state and logs (automatic with ProtectSystem=strict) and the
    # config directory that staff-mode calibration saves to; nothing else.
    assert entries["Service.ReadWritePaths"] == ["/etc/tafl-kiosk"]
    assert "Service.PrivateDevices" not in entries
    assert set(entries["Service.RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_NETLINK"}


def test_staff_exit_is_the_one_status_that_is_not_restarted(entries) -> None:
    assert entries["Service.RestartPreventExitStatus"] == [str(lockdown.STAFF_EXIT_STATUS)]


def test_the_unit_waits_for_the_devices_the_udev_rules_name(entries) -> None:
    symlinks = set(re.findall(r'SYMLINK\+="([^"]+)"', "\n".join(
        line for line in RULES.read_text().splitlines() if not line.lstrip().startswith("#"))))
    assert symlinks == {"tafl-gantry", "tafl-camera"}
    # systemd's name for /dev/<link>: '/' -> '-', '-' -> \x2d (systemd-escape --path).
    expected = {"dev-" + name.replace("-", "\\x2d") + ".device" for name in symlinks}
    wants = set(" ".join(entries["Unit.Wants"]).split())
    after = set(" ".join(entries["Unit.After"]).split())
    assert expected <= wants and expected <= after
    assert "Unit.Requires" not in entries and "Unit.BindsTo" not in entries  # a missing device must not stop the kiosk
    escape = shutil.which("systemd-escape")
    if escape:
        for name in symlinks:
            out = subprocess.run([escape, "--path", f"/dev/{name}"], capture_output=True, text=True)
            assert out.stdout.strip() + ".device" in wants


def test_exec_start_is_the_installed_entry_point(entries) -> None:
    exec_start = entries["Service.ExecStart"][0].split()
    assert exec_start[0] == "/opt/tafl-kiosk/.venv/bin/tafl-kiosk"
    assert exec_start[1:] == ["--config", "/etc/tafl-kiosk/config.toml"]
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert "tafl-kiosk" in scripts
    install = (REPO / "systemd" / "install.sh").read_text()
    assert "APP=/opt/tafl-kiosk" in install and "CONF=$CONF_DIR/config.toml" in install


def test_the_desktop_session_unit_verifies_and_matches_the_service(tmp_path: Path, entries) -> None:
    """`systemd-analyze --user verify` needs a logged-in user manager; its keys are checked in system mode."""
    analyze = _systemd_analyze()
    session = REPO / "systemd" / "tafl-kiosk-session.service"
    text = session.read_text()
    copy = tmp_path / "tafl-kiosk-session.service"
    copy.write_text(re.sub(r"^ExecStart=.*$", "ExecStart=/bin/true", text, flags=re.M))
    result = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True)
    assert result.returncode == 0 and (result.stdout + result.stderr).strip() == ""
    own = unit_entries(text)
    for key in ("Service.Type", "Service.ExecStart", "Service.WatchdogSec", "Service.Restart",
                "Service.RestartPreventExitStatus", "Service.NotifyAccess"):
        assert own[key] == entries[key], key
    assert "Service.Environment" in own
    assert not any(v.startswith("SDL_VIDEODRIVER=") for v in own["Service.Environment"])
    desktop = (REPO / "systemd" / "tafl-kiosk-session.desktop").read_text()
    assert desktop.startswith("[Desktop Entry]\n")
    assert "systemctl --user restart tafl-kiosk-session.service" in desktop


def test_the_device_wait_drop_in_is_valid_unit_syntax(tmp_path: Path) -> None:
    """Device units come from udev, not files, so its [Unit] lines are verified inside a service."""
    analyze = _systemd_analyze()
    dropin = (REPO / "systemd" / "50-tafl-device-timeout.conf").read_text()
    assert re.search(r"^JobRunningTimeoutSec=20s$", dropin, re.M)
    probe = tmp_path / "probe.service"
    probe.write_text(dropin + "\n[Service]\nExecStart=/bin/true\n")
    result = subprocess.run([analyze, "verify", str(probe)], capture_output=True, text=True)
    assert result.returncode == 0 and (result.stdout + result.stderr).strip() == ""
    # install.sh puts it under the device units the service waits for.
    install = (REPO / "systemd" / "install.sh").read_text()
    assert "DEVICE_UNITS=('dev-tafl\\x2dgantry.device' 'dev-tafl\\x2dcamera.device')" in install
