"""The staff calibration page driven by posted pygame events, read back from the drawn frames.

The board check and the self-test run on frames rendered by vision.renderer
(a known camera, whose intrinsics go into the config for the "calibrated
lens" case); the gantry part runs the real chain below the controller
(gantry thread, GantryMover, GrblDriver, the GRBL simulator on a pty).
"""
from __future__ import annotations

import time

import numpy as np
import pygame
import pytest

from calibration.config import Config
from kiosk.controller import GameController
from kiosk.gantry_thread import GantryThread
from kiosk.robot_adapter import GantryMover
from kiosk.simworld import SimWorld
from kiosk.ui import palette
from kiosk.ui.app import KioskApp
from robot.simulator import GrblSimulator
from tests.helpers.fakes import InstantEngine, ManualClock, WorldCamera, WorldGantry
from tests.helpers.ui import clean_queue, click, count_colour, find_button  # noqa: F401 - clean_queue is an autouse fixture
from vision.renderer import render_frame

MAX_WAIT_S = 60.0        # a bound so a broken chain fails instead of hanging; not a speed check


class FrameCamera(WorldCamera):
    """The fake camera plus the newest picture: a rendered frame of the empty board."""

    def __init__(self, world: SimWorld, clock: ManualClock, image: np.ndarray) -> None:
        super().__init__(world, clock)
        self.image = image

    def snapshot(self) -> np.ndarray:
        return self.image


@pytest.fixture(scope="module")
def rendered():
    return render_frame({}, seed=1)


def lens_config(rendered, calibrated: bool) -> Config:
    config = Config()
    if calibrated:
        config.camera.camera_matrix = rendered.camera.K.tolist()
        config.camera.distortion = [float(x) for x in rendered.camera.dist.ravel()]
        config.camera.calibration_size = tuple(rendered.camera.size)
    return config


class CalRig:
    def __init__(self, tmp_path, config: Config, image: np.ndarray, gantry=None) -> None:
        pygame.display.init()
        pygame.event.clear()
        config.kiosk.state_dir = str(tmp_path / "state")
        self.clock = ManualClock()
        self.world = SimWorld(config, clock=self.clock)
        self.world.fill_storage("copenhagen")
        self.ctrl = GameController(config, FrameCamera(self.world, self.clock, image),
                                   gantry or WorldGantry(self.world), InstantEngine(0), str(tmp_path / "state"),
                                   clock=self.clock, stable_s=0.3)
        self.app = KioskApp(self.ctrl, config, size=(1280, 800), clock=self.clock)
        self.app.ctx.staff_unlocked = True
        self.app.navigate("staff", page="calibrate")
        self.steps(1)

    def steps(self, n: int) -> None:
        for _ in range(n):
            self.clock.now += 0.1
            self.app.step()

    def button(self, key: str):
        return find_button(self.app, key)

    def press(self, key: str) -> None:
        click(self.button(key).rect.center)
        self.steps(1)

    def count(self, colour, rect: pygame.Rect | None = None) -> int:
        """Pixels of exactly `colour` in the drawn frame (or in `rect` of it)."""
        surface = self.app.surface
        return count_colour(surface, rect if rect is not None else surface.get_rect(), colour, tolerance=0)


def test_board_check_on_a_rendered_frame_shows_a_small_residual(tmp_path, rendered):
    rig = CalRig(tmp_path, lens_config(rendered, calibrated=True), rendered.image)
    assert rig.app.current.page == "calibrate"
    assert rig.count(palette.GOOD) == 0
    rig.press("cal.board.run")
    check = rig.app.current.calibration.board
    assert check is not None and check.missing == []
    assert check.max_square_error_mm < 1.0               # the rendered board is where its markers say
    assert check.tilt_deg is not None and 5.0 < check.tilt_deg < 25.0
    assert rig.count(palette.GOOD) > 500                  # the green tick badge is drawn
    assert rig.count(palette.BAD) == 0


def test_board_check_without_the_lens_calibration_warns_in_red(tmp_path, rendered):
    rig = CalRig(tmp_path, lens_config(rendered, calibrated=False), rendered.image)
    rig.press("cal.board.run")
    check = rig.app.current.calibration.board
    assert check.max_square_error_mm > 1.0 and check.problems
    assert rig.count(palette.BAD) > 500 and rig.count(palette.GOOD) == 0


def test_self_test_draws_every_item_with_its_verdict_colour(tmp_path, rendered):
    rig = CalRig(tmp_path, lens_config(rendered, calibrated=False), rendered.image)
    rig.press("cal.part.selftest")
    rig.press("cal.selftest.run")
    report = rig.app.current.calibration.selftest
    verdicts = {r.status.value for r in report.results}
    assert {"PASS", "WARN", "FAIL", "SKIP"} <= verdicts   # lens WARN, board FAIL, gantry not probed
    assert not report.passed
    for colour in (palette.GOOD, palette.ORANGE, palette.BAD):
        assert rig.count(colour) > 300, colour

    good = CalRig(tmp_path / "b", lens_config(rendered, calibrated=True), rendered.image)
    good.press("cal.part.selftest")
    good.press("cal.selftest.run")
    assert good.app.current.calibration.selftest.passed
    assert good.count(palette.BAD) == 0 and good.count(palette.GOOD) > 300 * 5


def test_gantry_flow_through_the_buttons_fits_and_shows_residuals(tmp_path, rendered):
    config = Config()
    sim = GrblSimulator(config, speed_factor=40.0)
    sim.start()
    mover = GantryMover(config, port_provider=lambda: sim.port or "")
    gantry = GantryThread(mover)
    try:
        rig = CalRig(tmp_path, config, rendered.image, gantry=gantry)
        rig.press("cal.part.gantry")
        assert not rig.button("cal.record").enabled and not rig.button("cal.fit").enabled

        def press_and_wait(key: str) -> None:
            before = rig.ctrl.calibration_status()
            rig.press(key)
            deadline = time.monotonic() + MAX_WAIT_S
            while rig.ctrl.calibration_status() is before and time.monotonic() < deadline:
                time.sleep(0.01)
                rig.steps(1)
            status = rig.ctrl.calibration_status()
            assert status is not before and status.error is None, status
            rig.steps(1)

        press_and_wait("cal.home")
        assert rig.button("cal.jog.right").enabled and rig.button("cal.record").enabled
        for _ in range(3):
            press_and_wait("cal.next")
            press_and_wait("cal.jog.right")              # 0.5 mm: the default fine step
            press_and_wait("cal.record")
        status = rig.ctrl.calibration_status()
        assert status.recorded == ("b2", "j2", "j10") and status.can_fit
        assert rig.button("cal.fit").enabled and not rig.button("cal.save").enabled
        panel = pygame.Rect(rig.button("cal.fit").rect.right, rig.button("cal.next").rect.top, 10_000, 10_000)
        fitted_before = rig.count(palette.TEXT, panel.clip(rig.app.surface.get_rect()))
        press_and_wait("cal.fit")
        status = rig.ctrl.calibration_status()
        assert status.rms_mm < 0.05                      # the same 0.5 mm correction at every square
        assert status.origin_mm[0] == pytest.approx(config.gantry.board_origin_mm[0] + 0.5, abs=0.05)
        assert rig.button("cal.save").enabled and rig.button("cal.reset").enabled
        # the fit's figures are drawn in large text: the info panel right of the buttons gained text
        panel = pygame.Rect(rig.button("cal.fit").rect.right, rig.button("cal.next").rect.top, 10_000, 10_000)
        panel = panel.clip(rig.app.surface.get_rect())
        assert rig.count(palette.TEXT, panel) > fitted_before + 500
    finally:
        gantry.stop()
        sim.stop()
