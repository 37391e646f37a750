"""The real window under Xvfb, clicked by xdotool like a finger on the touchscreen.

Needs the Debian packages xvfb and xdotool (`apt-get install -y xvfb xdotool`);
without them the test is skipped and says which program is missing.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pygame
import pytest

from calibration.config import Config
from kiosk.ui import palette
from kiosk.ui.app import KioskApp
from kiosk.ui.screenshots import StillController, idle_view

REPO = Path(__file__).resolve().parents[1]
SIZE = (800, 480)
MISSING = [name for name in ("Xvfb", "xdotool") if shutil.which(name) is None]


def free_display() -> str:
    for number in range(91, 120):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            return f":{number}"
    pytest.skip("no free X display number between :91 and :119")


def xdotool(env, *args, check=True):
    return subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=20, check=check)


def find_window(env, title: str, app: subprocess.Popen, limit_s: float = 90.0) -> str:
    """The id of the window called ``title`` (SDL names its client window, not its outer one).

    The limit only keeps a broken run from hanging (a loaded machine starts Python slowly)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if app.poll() is not None:
            pytest.fail(f"the app exited before its window appeared: {app.stdout.read() if app.stdout else ''}")
        ids = xdotool(env, "search", "--class", "", check=False).stdout.split()
        for wid in ids:
            if xdotool(env, "getwindowname", wid, check=False).stdout.strip() == title:
                return wid
        time.sleep(0.2)
    pytest.fail(f"no window called {title!r} appeared within {limit_s:.0f} s")


@pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (apt-get install -y xvfb xdotool)")
def test_real_window_clicked_with_xdotool(tmp_path):
    # Where the "Touch to play" button is on this panel size, from the same layout code.
    pygame.display.init()
    probe = KioskApp(StillController(idle_view()), Config(), size=SIZE)
    probe.step([])
    play = probe.current.buttons.find("play").rect

    display = free_display()
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
    env.update(DISPLAY=display, SDL_VIDEODRIVER="x11", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(REPO))
    app = None
    try:
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{display[1:]}").exists():
                break
            time.sleep(0.05)
        app = subprocess.Popen([sys.executable, "-m", "kiosk.ui.app", "--size", f"{SIZE[0]}x{SIZE[1]}",
                                "--seconds", "120", "--until-screen", "start", "--dump", str(tmp_path)], env=env, cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        window = find_window(env, "Tafl kiosk", app)
        time.sleep(0.5)                                   # a few frames drawn
        xdotool(env, "mousemove", "--window", window, str(play.centerx), str(play.centery))
        xdotool(env, "click", "1")
        output, _ = app.communicate(timeout=150)
        assert app.returncode == 0, output
    finally:
        if app is not None and app.poll() is None:
            app.kill()
        xvfb.terminate()
        xvfb.wait(timeout=10)
    assert (tmp_path / "screen.txt").read_text().strip() == "start"
    final = pygame.image.load(str(tmp_path / "final.png"))
    assert final.get_size() == SIZE
    # The start screen's back button (top left) is drawn in the real window.
    layout = probe.ctx.layout
    corner = (layout.margin + 6, layout.margin + layout.target // 2)
    assert final.get_at(corner)[:3] == palette.PANEL_EDGE
