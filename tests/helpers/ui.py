"""What the touchscreen tests share: a clean event queue, a touch, a key, a button by name, pixels of a
colour, an app on a still view, a frame saved and read back, the real controller in full simulation."""
from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np
import pygame
import pytest

from calibration.config import Config
from kiosk.staffpin import hash_pin
from kiosk.ui.app import KioskApp
from kiosk.ui.screenshots import StillView
from tests.helpers.fakes import ManualClock

SECRET = "test-secret-0123456789"
PIN = "2468"


class RecordingController(StillView):
    """The screenshots' still view plus every command the screens send, recorded in ``calls``
    (a test double: the screens' side of the contract is checked without a game behind it)."""

    def __init__(self, view) -> None:
        super().__init__(view)
        self.calls: list[tuple] = []     # (name, args) or (name, args, kwargs)

    def _record(self, name: str, *args, **kwargs) -> None:
        self.calls.append((name, args, kwargs) if kwargs else (name, args))

    # the game's commands (kiosk/controller.py), with the arguments the screens pass
    def start_game(self, *args, **kwargs) -> None:
        self._record("start_game", *args, **kwargs)

    def resign(self) -> None:
        self._record("resign")

    def end_game(self) -> None:
        self._record("end_game")

    def request_hint(self) -> None:
        self._record("request_hint")

    def continue_game(self, *args) -> None:
        self._record("continue_game", *args)

    def choose_move(self, *args) -> bool:
        self._record("choose_move", *args)
        return True

    def hands_off(self) -> None:
        self._record("hands_off")

    # staff's commands
    def home(self) -> None:
        self._record("home")

    def clear_board(self) -> None:
        self._record("clear_board")

    def setup_board(self, *args) -> None:
        self._record("setup_board", *args)

    def pieces_back(self) -> None:
        self._record("pieces_back")

    def recount_storage(self) -> None:
        self._record("recount_storage")

    # the exhibit modes' commands (kiosk/exhibit.py)
    def handover(self, *args) -> None:
        self._record("handover", *args)

    def set_selfplay(self, *args) -> None:
        self._record("set_selfplay", *args)


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


def key(k, unicode="") -> None:
    """A key pressed (``k`` a pygame key code)."""
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, unicode=unicode, mod=0, scancode=0))


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


def make_config() -> Config:
    """The default config with a reward secret, the staff PIN `PIN` and a state directory that is not there."""
    config = Config()
    config.kiosk.reward_secret = SECRET
    config.kiosk.staff_pin_hash = hash_pin(PIN, iterations=10_000)
    config.kiosk.state_dir = "/nonexistent-tafl-state"
    return config


def make_app(view, size=(1280, 800), world=None, config=None):
    """A KioskApp showing ``view`` on a manual clock (``app.clock_ref``); its controller records the commands."""
    pygame.display.init()
    clock = ManualClock(now=500.0)
    app = KioskApp(RecordingController(view), config or make_config(), world=world, size=size, clock=clock)
    app.clock_ref = clock
    return app


def frame(app, tmp_path, name="frame.png") -> pygame.Surface:
    """Draw one frame from the queued events, save it as PNG and load it back."""
    app.step()
    path = tmp_path / name
    pygame.image.save(app.surface, str(path))
    return pygame.image.load(str(path))


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
    from kiosk.sim_kiosk import SimKiosk
    from tests.helpers.simulation import fast_gantry_settings

    pygame.display.init()
    pygame.event.clear()
    config = Config()
    config.kiosk.state_dir = str(tmp_path)
    config.kiosk.idle_timeout_s = 10_000
    try:
        # the gantry as quick as in the whole-game tests: nothing on these screens waits on its
        # wall-clock speed, and the set-up from storage is most of a test's time
        rig = SimKiosk(config, str(tmp_path), "copenhagen", fast_gantry_settings(seed))
    except (FileNotFoundError, ValueError) as exc:   # e.g. vision's square model missing or out of date
        pytest.skip(f"the simulation rig cannot be built here: {exc}")
    try:
        app = KioskApp(rig.controller, config, world=rig.world, size=(1280, 800))
        app.step()
        yield app, rig
    finally:
        rig.close()
