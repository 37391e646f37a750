"""The kiosk's own entry point in a real window under Xvfb, clicked by xdotool like a finger.

`tafl-kiosk --simulate --windowed` (kiosk.cli.main, the command `make demo`
runs) opens its window on a private X server: the real controller on the
simulated table behind it. xdotool touches "Touch to play"; the test reads
the X server's own framebuffer (Xvfb -fbdir writes it as an XWD file) until
the start screen is drawn there, then stops the kiosk with SIGTERM as systemd
does. Needs the Debian packages xvfb and xdotool (`apt-get install -y xvfb
xdotool`); without them the test is skipped and says which program is missing.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pygame
import pytest

from calibration.config import Config
from kiosk.ui import palette
from kiosk.ui.app import KioskApp
from kiosk.ui.screenshots import StillView, idle_view
from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow        # the kiosk process on the full simulation in a real window

SIZE = (800, 480)
MISSING = [name for name in ("Xvfb", "xdotool") if shutil.which(name) is None]


def free_display() -> str:
    for number in range(91, 120):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            return f":{number}"
    pytest.skip("no free X display number between :91 and :119")


def xdotool(env, *args, check=True):
    return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=20, check=check)


def output_of(app: subprocess.Popen) -> str:
    app.kill()
    return app.communicate(timeout=30)[0]


def wait_for_server(env, xvfb: subprocess.Popen, limit_s: float = 60.0) -> None:
    """Until the X server takes a client's connection, not only until its socket exists: under load
    (the whole suite on every core) Xvfb took more than the 5 s this once waited for its socket, and
    the kiosk started first failed with "x11 not available"."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if xvfb.poll() is not None:
            pytest.fail(f"Xvfb exited with {xvfb.returncode} before it took a connection")
        if xdotool(env, "getdisplaygeometry", check=False).returncode == 0:
            return
        time.sleep(0.1)
    pytest.fail(f"Xvfb took no connection within {limit_s:.0f} s")


def find_window(env, title: str, app: subprocess.Popen, limit_s: float = 120.0) -> str:
    """The id of the window called ``title`` (SDL names its client window, not its outer one).

    The limit only keeps a broken run from hanging (a loaded machine starts the simulation slowly)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if app.poll() is not None:
            pytest.fail(f"the kiosk exited before its window appeared: {app.communicate()[0]}")
        ids = xdotool(env, "search", "--class", "", check=False).stdout.split()
        for wid in ids:
            if xdotool(env, "getwindowname", wid, check=False).stdout.strip() == title:
                return wid
        time.sleep(0.2)
    pytest.fail(f"no window called {title!r} appeared within {limit_s:.0f} s: {output_of(app)}")


def read_xwd(path: Path) -> np.ndarray:
    """The screen in an XWD file (as Xvfb -fbdir keeps it) as an RGB array of rows."""
    data = path.read_bytes()
    for order in (">", "<"):                              # the header is in the writer's byte order
        header = [int(v) for v in np.frombuffer(data[:100], dtype=f"{order}u4")]
        if header[1] == 7:                                # XWD file version 7
            break
    else:
        raise AssertionError(f"{path} is not an XWD file")
    header_size, width, height, byte_order, bits_per_pixel, bytes_per_line = (
        header[0], header[4], header[5], header[7], header[11], header[12])
    masks, ncolors = header[14:17], header[19]
    assert bits_per_pixel == 32, f"a {bits_per_pixel}-bit screen (the test starts Xvfb at 24 bits)"
    words = np.frombuffer(data, dtype=("<" if byte_order == 0 else ">") + "u4",
                          count=height * bytes_per_line // 4, offset=header_size + ncolors * 12)
    pixels = words.reshape(height, bytes_per_line // 4)[:, :width]
    return np.stack([(pixels & mask) >> (mask.bit_length() - 8) for mask in masks], axis=-1).astype(np.uint8)


def pixel_shows(screen_file: Path, point: tuple[int, int], colour, limit_s: float) -> bool:
    """Whether the screen shows ``colour`` at ``point`` within ``limit_s`` (a bound, not a speed check)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        x, y = point
        if tuple(read_xwd(screen_file)[y, x]) == tuple(colour):
            return True
        time.sleep(0.2)
    return False


@pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (apt-get install -y xvfb xdotool)")
def test_the_kiosk_window_is_touched_with_xdotool(tmp_path):
    # Where "Touch to play" is on this panel size, and a pixel of the start screen's back
    # button (top left) that the attract screen does not have: from the same layout code.
    pygame.display.init()
    probe = KioskApp(StillView(idle_view()), Config(), size=SIZE)
    probe.step([])
    play = probe.current.buttons.find("play").rect
    layout = probe.ctx.layout
    corner = (layout.margin + 6, layout.margin + layout.target // 2)
    assert probe.surface.get_at(corner)[:3] != palette.PANEL_EDGE

    display = free_display()
    fbdir = tmp_path / "fb"
    fbdir.mkdir()
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24", "-nolisten", "tcp",
                             "-fbdir", str(fbdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
    env.update(DISPLAY=display, SDL_VIDEODRIVER="x11", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(REPO))
    app = None
    try:
        wait_for_server(env, xvfb)
        app = subprocess.Popen([sys.executable, "-m", "kiosk.cli", "--simulate", "--windowed",
                                "--size", f"{SIZE[0]}x{SIZE[1]}", "--state", str(tmp_path / "state")],
                               env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        window = find_window(env, "Tafl kiosk", app)
        geometry = dict(line.split("=", 1) for line in
                        xdotool(env, "getwindowgeometry", "--shell", window).stdout.split())
        origin = (int(geometry["X"]), int(geometry["Y"]))
        screen = fbdir / "Xvfb_screen0"
        on_screen = (origin[0] + corner[0], origin[1] + corner[1])
        attract = probe.surface.get_at(corner)[:3]
        assert pixel_shows(screen, on_screen, attract, 60.0), "the attract screen was not drawn in the window"

        xdotool(env, "mousemove", "--window", window, str(play.centerx), str(play.centery))
        xdotool(env, "click", "1")
        assert pixel_shows(screen, on_screen, palette.PANEL_EDGE, 60.0), \
            f"the start screen did not appear after the touch: {output_of(app)}"

        app.send_signal(signal.SIGTERM)                   # as systemd stops the kiosk
        output, _ = app.communicate(timeout=60)
        assert app.returncode == 143, output              # unwound through its finally blocks
        assert "Traceback" not in output, output
    finally:
        if app is not None and app.poll() is None:
            app.kill()
            app.communicate(timeout=30)
        xvfb.terminate()
        xvfb.wait(timeout=10)
