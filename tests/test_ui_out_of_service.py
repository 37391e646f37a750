"""A refused config file: the kiosk rests on a screen that says why, instead of a restart loop."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pygame

from kiosk.i18n import Texts
from kiosk.ui import palette
from kiosk.ui.out_of_service import draw_out_of_service


def test_the_resting_screen_names_the_file_for_staff():
    pygame.display.init()
    pygame.font.init()
    surface = pygame.Surface((800, 480))
    texts = Texts("en")
    draw_out_of_service(surface, texts, "/etc/tafl-kiosk/config.toml", "magnet_on equals magnet_off")
    pixels = pygame.surfarray.array3d(surface).astype(int)
    panel = (np.abs(pixels - np.array(palette.PANEL)).max(axis=2) <= 2).sum()
    text = (np.abs(pixels - np.array(palette.TEXT)).max(axis=2) <= 40).sum()
    assert panel > 20_000, "no staff panel"
    assert text > 800, "no words on the screen"
    staff = texts.get("out_of_service.staff", file="/etc/tafl-kiosk/config.toml", problem="P.")
    assert "/etc/tafl-kiosk/config.toml" in staff and "P." in staff
    assert Texts("sv").get("out_of_service.staff", file="F", problem="P") != "out_of_service.staff"


def test_a_refused_config_boots_to_the_resting_screen_and_stays_up(tmp_path):
    bad = tmp_path / "config.toml"
    bad.write_text("[gantry\nthis is not toml\n")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", LOGS_DIRECTORY="")
    proc = subprocess.Popen([sys.executable, "-m", "kiosk", "--config", str(bad), "--state", str(tmp_path / "state"),
                             "--windowed"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if time.monotonic() > deadline - 55:      # up for 5 s: it is resting, not crash-looping
                break
        assert proc.poll() is None, f"the kiosk exited with {proc.returncode}: {proc.stderr.read()}"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err, err
    assert str(bad) in err and "refused" in err, err
