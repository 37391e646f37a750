"""sd_notify against a real AF_UNIX datagram socket, and the watchdog cadence on a fake clock."""
from __future__ import annotations

import logging
import os
import socket
import uuid
from pathlib import Path

import pytest

from kiosk.sdnotify import Notifier, socket_address, watchdog_interval


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _receiver(address: str | bytes) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(2.0)
    return sock


def _pending(sock: socket.socket) -> list[str]:
    """Every datagram waiting on the socket, without blocking."""
    out = []
    sock.setblocking(False)
    try:
        while True:
            out.append(sock.recv(4096).decode())
    except BlockingIOError:
        pass
    finally:
        sock.settimeout(2.0)
    return out


@pytest.fixture
def path_socket(tmp_path: Path):
    path = str(tmp_path / "notify")
    sock = _receiver(path)
    yield path, sock
    sock.close()


def test_messages_arrive_on_a_filesystem_socket(path_socket) -> None:
    path, sock = path_socket
    env = {"NOTIFY_SOCKET": path}
    notifier = Notifier.from_environ(env)
    assert notifier.enabled
    assert notifier.ready("waiting for visitor")
    assert sock.recv(4096) == b"READY=1\nSTATUS=waiting for visitor"
    assert notifier.status("robot moving e4 to e9")
    assert sock.recv(4096) == b"STATUS=robot moving e4 to e9"
    assert notifier.ping()
    assert sock.recv(4096) == b"WATCHDOG=1"
    assert notifier.extend_timeout(30)
    assert sock.recv(4096) == b"EXTEND_TIMEOUT_USEC=30000000"
    assert notifier.stopping("shutting down")
    assert sock.recv(4096) == b"STOPPING=1\nSTATUS=shutting down"
    notifier.close()


def test_messages_arrive_on_an_abstract_socket() -> None:
    name = f"tafl-test-{uuid.uuid4().hex}"
    sock = _receiver(b"\0" + name.encode())
    try:
        notifier = Notifier.from_environ({"NOTIFY_SOCKET": "@" + name})
        assert notifier.address == b"\0" + name.encode()
        assert notifier.ready()
        assert sock.recv(4096) == b"READY=1"
        notifier.close()
    finally:
        sock.close()


def test_status_is_sent_only_when_it_changes_and_stays_one_line(path_socket) -> None:
    path, sock = path_socket
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path})
    for _ in range(5):                       # the main loop calls it every frame
        notifier.status("waiting for visitor")
    notifier.status("thinking\nhard")        # a newline would start a bogus field
    notifier.status("waiting for visitor")
    assert _pending(sock) == ["STATUS=waiting for visitor", "STATUS=thinking hard",
                              "STATUS=waiting for visitor"]


def test_environment_is_cleared_so_children_do_not_notify(path_socket) -> None:
    path, _ = path_socket
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(os.getpid()),
           "OTHER": "kept"}
    Notifier.from_environ(env)
    assert env == {"OTHER": "kept"}
    env = {"NOTIFY_SOCKET": path}
    Notifier.from_environ(env, unset=False)
    assert env == {"NOTIFY_SOCKET": path}


def test_without_systemd_every_call_is_a_no_op() -> None:
    notifier = Notifier.from_environ({})
    assert not notifier.enabled
    assert notifier.ready("x") is False
    assert notifier.status("y") is False
    assert notifier.tick() is False


def test_bad_socket_names() -> None:
    assert socket_address("/run/systemd/notify") == "/run/systemd/notify"
    assert socket_address("@abc") == b"\0abc"
    with pytest.raises(ValueError, match="absolute path"):
        socket_address("relative/notify")
    with pytest.raises(ValueError, match="empty"):
        socket_address("")
    assert not Notifier.from_environ({"NOTIFY_SOCKET": "vsock:2:1234"}).enabled


def test_field_must_be_one_key_value_line(path_socket) -> None:
    path, _ = path_socket
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path})
    with pytest.raises(ValueError, match="KEY=value"):
        notifier.send("READY")
    with pytest.raises(ValueError, match="KEY=value"):
        notifier.send("STATUS=a\nb")


def test_a_vanished_socket_is_logged_once_and_never_raises(tmp_path: Path, caplog) -> None:
    path = str(tmp_path / "gone")
    sock = _receiver(path)
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path})
    assert notifier.ready()
    sock.close()
    os.unlink(path)
    with caplog.at_level(logging.WARNING, logger="kiosk.sdnotify"):
        assert notifier.ping() is False
        assert notifier.ping() is False
    assert len([r for r in caplog.records if "sd_notify" in r.getMessage()]) == 1
    again = _receiver(path)              # systemd back (daemon-reexec): sending resumes
    try:
        assert notifier.ping()
        assert again.recv(4096) == b"WATCHDOG=1"
    finally:
        again.close()


def test_watchdog_interval_is_half_the_timeout_and_respects_watchdog_pid() -> None:
    pid = os.getpid()
    assert watchdog_interval({"WATCHDOG_USEC": "20000000"}, pid) == 10.0
    assert watchdog_interval({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(pid)}, pid) == 10.0
    assert watchdog_interval({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(pid + 1)}, pid) is None
    assert watchdog_interval({}, pid) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}, pid) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}, pid) is None


def test_watchdog_cadence_on_a_fake_clock(path_socket) -> None:
    """60 s of a 60 fps main loop with WatchdogSec=20s: a ping every 10 s, never a gap."""
    path, sock = path_socket
    clock = FakeClock()
    notifier = Notifier.from_environ(
        {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(os.getpid())},
        clock=clock)
    assert notifier.watchdog_s == 10.0
    start = clock.now
    notifier.ready()
    ping_times = []
    for frame in range(1, 60 * 60 + 1):
        clock.now = start + frame / 60
        if notifier.tick():
            ping_times.append(clock.now - start)
    assert [round(t, 6) for t in ping_times] == [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    messages = _pending(sock)
    assert messages == ["READY=1"] + ["WATCHDOG=1"] * 6


def test_watchdog_after_a_slow_frame_pings_at_once_then_keeps_the_cadence(path_socket) -> None:
    path, sock = path_socket
    clock = FakeClock()
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"}, clock=clock)
    notifier.ready()
    start = clock.now
    clock.now = start + 1.0
    assert not notifier.tick()
    clock.now = start + 3.5          # one long frame (a big screen redraw)
    assert notifier.tick()
    clock.now = start + 5.4
    assert not notifier.tick()       # 1.9 s after the last ping
    clock.now = start + 5.5
    assert notifier.tick()
    assert _pending(sock) == ["READY=1", "WATCHDOG=1", "WATCHDOG=1"]


def test_no_watchdog_pings_when_the_watchdog_is_off(path_socket) -> None:
    path, sock = path_socket
    clock = FakeClock()
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path}, clock=clock)
    notifier.ready()
    for _ in range(100):
        clock.now += 1.0
        assert not notifier.tick()
    assert _pending(sock) == ["READY=1"]


def test_tick_before_ready_pings_straight_away(path_socket) -> None:
    """A loop that starts pinging before READY (slow start-up) is covered from its first tick."""
    path, sock = path_socket
    clock = FakeClock()
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"}, clock=clock)
    assert notifier.tick()
    assert not notifier.tick()
    assert _pending(sock) == ["WATCHDOG=1"]


def test_a_separate_process_notifies_and_its_children_inherit_nothing(path_socket) -> None:
    """As under systemd: the variables come from the environment of a new process."""
    import subprocess
    import sys

    path, sock = path_socket
    repo = Path(__file__).resolve().parents[1]
    code = (
        "import os, subprocess, sys\n"
        "from kiosk.sdnotify import Notifier\n"
        "n = Notifier.from_environ()\n"
        "n.ready('screen up')\n"
        "n.tick()\n"
        "child = subprocess.run([sys.executable, '-c', "
        "'import os; print(os.environ.get(\"NOTIFY_SOCKET\"), os.environ.get(\"WATCHDOG_USEC\"))'],"
        " capture_output=True, text=True)\n"
        "print(child.stdout.strip())\n"
    )
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000", "PYTHONPATH": str(repo)}
    env.pop("WATCHDOG_PID", None)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            cwd=repo, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None None"
    # READY starts the watchdog clock, so the tick right after it sends nothing.
    assert _pending(sock) == ["READY=1\nSTATUS=screen up"]
