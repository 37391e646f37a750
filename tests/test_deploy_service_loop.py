"""The process side of tafl-kiosk.service, end to end, in a real child process.

A small pygame main loop wired the way the kiosk is (lock-down hints, the
locked window, sd_notify, the journal log format) runs with the environment
systemd gives a Type=notify service with a watchdog. The test plays systemd:
it reads the notify socket, sees READY, STATUS and repeated WATCHDOG pings,
then stops the process with SIGTERM as `systemctl stop` does and checks that
the loop's `finally` ran and the exit status is 0. The waits are for messages,
with generous limits; nothing asserts on speed.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

LOOP = r'''
import logging, os, sys, time
from kiosk import lockdown, logging_setup
from kiosk.sdnotify import Notifier

logging_setup.setup_logging(logging.INFO, log_dir="")
notifier = Notifier.from_environ()
lockdown.apply_sdl_hints()
lockdown.install_signal_handlers()
import pygame
pygame.display.init()
pygame.display.set_mode((160, 100))
lockdown.lock_window(pygame)
notifier.ready("waiting for visitor")
log = logging.getLogger("kiosk.loop")
log.info("screen up, sdl no-signal-handlers=%s", os.environ.get("SDL_NO_SIGNAL_HANDLERS"))
try:
    while True:
        pygame.event.post(pygame.event.Event(pygame.QUIT))    # must never end the loop
        for event in lockdown.filter_events(pygame, pygame.event.get()):
            pass
        notifier.tick()
        notifier.status("robot moving")
        time.sleep(0.005)
finally:
    log.warning("stopping: magnet off")
    notifier.stopping()
'''


def test_ready_watchdog_and_a_clean_stop(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    read_fd, write_fd = os.pipe()
    st = os.fstat(write_fd)
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000",
           "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}", "PYTHONPATH": str(REPO),
           "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen([sys.executable, "-c", LOOP], env=env, cwd=REPO,
                            stderr=write_fd, stdout=subprocess.DEVNULL)
    os.close(write_fd)
    try:
        messages: list[str] = []
        while messages.count("WATCHDOG=1") < 3:
            messages.append(sock.recv(4096).decode())
        assert messages[0] == "READY=1\nSTATUS=waiting for visitor"
        assert messages[1] == "STATUS=robot moving"             # once, though set every frame
        assert messages[2:] == ["WATCHDOG=1"] * 3
        assert proc.poll() is None                               # QUIT events did not end it
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert sock.recv(4096) == b"STOPPING=1"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
    with os.fdopen(read_fd) as stderr:
        lines = stderr.read().splitlines()
    assert "<6>kiosk.loop: screen up, sdl no-signal-handlers=1" in lines
    assert "<4>kiosk.loop: stopping: magnet off" in lines
