"""What the touchscreen tests share: a clean event queue, a touch, a button by name, pixels of a colour."""
from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np
import pygame
import pytest


@pytest.fixture(autouse=True)
def clean_queue():
    """Import into a test module: every test starts and ends with an empty pygame event queue."""
    pygame.display.init()
    pygame.event.clear()
    yield
    pygame.event.clear()


def click(pos) -> None:
    """A finger down and up at `pos`."""
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=tuple(map(int, pos)), button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=tuple(map(int, pos)), button=1))


def find_button(app, key: str):
    """The button called `key` on the current screen; fails the test, listing the others, if absent."""
    found = app.current.buttons.find(key)
    assert found is not None, f"no button {key!r} on {app.screen_name}: {[b.key for b in app.current.buttons.items]}"
    return found


def count_colour(surface: pygame.Surface, rect, colour, tolerance: int = 12) -> int:
    """Pixels within `tolerance` of `colour` (per channel) inside `rect` of `surface`."""
    rect = pygame.Rect(rect).clip(surface.get_rect())
    pixels = pygame.surfarray.pixels3d(surface)[rect.left:rect.right, rect.top:rect.bottom].astype(int)
    return int((np.abs(pixels - np.array(colour)).max(axis=2) <= tolerance).sum())


def run_until(app, condition, what: str, max_wait_s: float = 120.0) -> None:
    """Step `app` until `condition(view)` holds; fails naming `what` after `max_wait_s`
    (a bound so a broken rig fails instead of hanging, not a speed check)."""
    deadline = time.monotonic() + max_wait_s
    while time.monotonic() < deadline:
        app.step()
        if condition(app.ctx.view):
            return
        time.sleep(0.01)
    pytest.fail(f"waited {max_wait_s:.0f} s for {what}; controller state {app.ctx.view.state}")


def start_by_touch(app, *keys: str) -> None:
    """Touch the named buttons one after the other, a frame after each (e.g. the start pages)."""
    for key in keys:
        click(find_button(app, key).rect.center)
        app.step()


@contextmanager
def sim_kiosk(tmp_path, seed: int):
    """The real controller in full simulation (rendered camera, GRBL simulator, search process) under a
    KioskApp of 1280 x 800; skips when the rig cannot be built here, closes it afterwards."""
    from calibration.config import Config
    from kiosk.simrig import SimRig, fast_settings
    from kiosk.ui.app import KioskApp

    pygame.display.init()
    pygame.event.clear()
    config = Config()
    config.kiosk.state_dir = str(tmp_path)
    config.kiosk.idle_timeout_s = 10_000
    try:
        rig = SimRig(config, str(tmp_path), "copenhagen", fast_settings(seed=seed))
    except (FileNotFoundError, ValueError) as exc:   # e.g. vision's square model missing or out of date
        pytest.skip(f"the simulation rig cannot be built here: {exc}")
    try:
        app = KioskApp(rig.controller, config, world=rig.world, size=(1280, 800))
        app.step()
        yield app, rig
    finally:
        rig.close()
