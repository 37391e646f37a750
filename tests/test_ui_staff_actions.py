"""Staff screen buttons driving the real GameController: jog, test move, the camera picture.

The controller runs on the fast fake ports (tests/kiosk_fakes.py) with a
manual clock; the frames are real pygame frames, read back pixel by pixel.
"""
from __future__ import annotations

import numpy as np
import pygame

from calibration.config import Config
from engine import Piece, Side, parse_square

from kiosk.controller import GameController
from kiosk.ports import GantryEvent, GantryEventKind
from kiosk.simworld import SimWorld
from kiosk.ui.app import KioskApp
from tests.kiosk_fakes import InstantEngine, ManualClock, WorldCamera, WorldGantry
from tests.ui_helpers import clean_queue, click, find_button  # noqa: F401 - clean_queue is an autouse fixture

PICTURE_BGR = (40, 180, 250)      # an orange picture: (250, 180, 40) on screen


class PictureCamera(WorldCamera):
    """The fake camera with a picture, as the camera thread keeps the newest frame."""

    def __init__(self, world: SimWorld, clock: ManualClock) -> None:
        super().__init__(world, clock)
        self.image = np.zeros((480, 640, 3), np.uint8)
        self.image[:] = PICTURE_BGR

    def snapshot(self) -> np.ndarray:
        return self.image


class JogGantry(WorldGantry):
    """The fake gantry plus a carriage that jogs (magnet off) and reports where it is."""

    def __init__(self, world: SimWorld) -> None:
        super().__init__(world)
        self.position = [100.0, 100.0]

    def jog(self, job: int, dx_mm: float, dy_mm: float) -> None:
        self.queue.append(("jog", job, [dx_mm, dy_mm], 0))

    def poll(self) -> list[GantryEvent]:
        if self.queue and self.queue[0][0] == "jog":
            _, job, (dx, dy), _ = self.queue.pop(0)
            self.position = [self.position[0] + dx, self.position[1] + dy]
            return [GantryEvent(GantryEventKind.JOGGED, job, activity=f"{self.position[0]:.1f},{self.position[1]:.1f}")]
        return super().poll()


class StaffRig:
    def __init__(self, tmp_path) -> None:
        pygame.display.init()
        pygame.event.clear()
        self.config = Config()
        self.config.kiosk.state_dir = str(tmp_path / "state")
        self.clock = ManualClock()
        self.world = SimWorld(self.config, clock=self.clock)
        self.world.fill_storage("copenhagen")
        self.gantry = JogGantry(self.world)
        self.ctrl = GameController(self.config, PictureCamera(self.world, self.clock), self.gantry,
                                   InstantEngine(0), str(tmp_path / "state"), clock=self.clock, stable_s=0.3)
        self.app = KioskApp(self.ctrl, self.config, size=(1280, 800), clock=self.clock)
        self.app.ctx.staff_unlocked = True
        self.app.navigate("staff")
        self.steps(1)

    def steps(self, n: int) -> None:
        for _ in range(n):
            self.clock.now += 0.1
            self.app.step()

    def press(self, key: str) -> None:
        click(find_button(self.app, key).rect.center)
        self.steps(1)


def test_jog_buttons_move_the_carriage_and_are_refused_during_a_game(tmp_path):
    rig = StaffRig(tmp_path)
    assert rig.app.screen_name == "staff"
    assert rig.app.current.buttons.find("jog.right").enabled
    rig.press("jog.right")                   # 5 mm: the default step
    rig.steps(2)
    assert rig.gantry.position == [105.0, 100.0]
    assert rig.ctrl.view().robot_activity.args == {"x": "105.0", "y": "100.0"}
    rig.press("jog.step")                    # 20 mm
    rig.press("jog.up")
    rig.steps(2)
    assert rig.gantry.position == [105.0, 120.0]
    assert "jog" in (rig.app.current.status or "")

    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.steps(1)
    rig.press("jog.left")
    rig.steps(2)
    assert rig.gantry.position == [105.0, 120.0]
    assert "no jog while setup" in (rig.app.current.status or "")


def test_touching_two_squares_makes_a_test_move(tmp_path):
    rig = StaffRig(tmp_path)
    size = rig.world.size
    d5, d9 = parse_square("d5", size), parse_square("d9", size)
    rig.world.set_squares({d5: Piece.DEFENDER})
    rig.steps(30)                            # the hand that placed it has gone
    geom = rig.app.current.geom
    assert geom is not None
    click(geom.centre(d5))
    rig.steps(1)
    assert rig.app.current.test_from == d5
    click(geom.centre(d9))
    rig.steps(6)
    assert rig.world.square_pieces() == {d9: Piece.DEFENDER}
    assert rig.app.current.test_from is None
    assert rig.ctrl.view().state == "idle"


def test_camera_page_draws_the_snapshot_scaled_into_its_area(tmp_path):
    rig = StaffRig(tmp_path)
    rig.press("page.camera")
    rig.steps(1)
    surface = rig.app.surface
    lay = rig.app.ctx.layout
    # the left half of the content area holds the picture (640x480 scaled to fit, centred)
    width = (lay.width - 2 * lay.margin - lay.gap * 2) // 2
    left = lay.margin
    top = lay.margin + lay.target + lay.gap * 2
    centre = (left + width // 2, top + (lay.height - top) // 2)
    assert np.abs(np.array(tuple(surface.get_at(centre))[:3]) - (250, 180, 40)).max() <= 6   # smoothscale rounds
    pixels = pygame.surfarray.pixels3d(surface)[left:left + width, top:lay.height - lay.margin].astype(int)
    orange = (np.abs(pixels - np.array((250, 180, 40))).max(axis=2) <= 6).sum()
    expected = min(width / 640, (lay.height - top - lay.margin) / 480)
    assert orange >= 0.9 * (640 * expected) * (480 * expected)     # scaled to fill the area's width or height
    # nothing orange on the right half, where the squares read are drawn
    right = pygame.surfarray.pixels3d(surface)[left + width + lay.gap * 2:lay.width - lay.margin, top:].astype(int)
    assert (np.abs(right - np.array((250, 180, 40))).max(axis=2) <= 6).sum() == 0


def test_camera_page_says_no_picture_without_one(tmp_path):
    rig = StaffRig(tmp_path)
    rig.ctrl.camera.image = None
    rig.press("page.camera")
    rig.steps(1)
    surface = rig.app.surface
    pixels = pygame.surfarray.pixels3d(surface).astype(int)
    assert (np.abs(pixels - np.array((250, 180, 40))).max(axis=2) <= 6).sum() == 0
