"""Staff commands beyond the game: jog the carriage, a test move, the camera picture.

The jog runs the real chain below the controller (gantry thread, robot
adapter, GRBL driver) against the GRBL simulator on a pty, because "the
carriage moved" is only meaningful there; test moves and refusals use the
fast fake ports (tests/helpers/fakes.py) on a manual clock.
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from calibration.config import Config
from engine import Piece, Side, parse_square

from kiosk.activity import ActivityCode, RobotActivity
from kiosk.controller import GameController
from kiosk.simworld import SimWorld
from tests.helpers.fakes import (InstantEngine, ManualClock, OnePictureFeed, ReadsAnything, WorldCamera,
                                 WorldGantry, real_gantry_chain)

STEP = 0.1
MAX_WAIT_S = 60.0        # a bound so a broken chain fails instead of hanging; not a speed check


class SnapshotCamera(WorldCamera):
    """The fake camera plus the newest picture, as kiosk/camera_thread.py keeps it."""

    def __init__(self, world: SimWorld, clock: ManualClock, image: np.ndarray | None) -> None:
        super().__init__(world, clock)
        self.image = image

    def snapshot(self) -> np.ndarray | None:
        return self.image


def fake_rig(tmp_path, image: np.ndarray | None = None):
    config = Config()
    clock = ManualClock()
    world = SimWorld(config, clock=clock)
    world.fill_storage("copenhagen")
    camera = SnapshotCamera(world, clock, image)
    gantry = WorldGantry(world)
    ctrl = GameController(config, camera, gantry, InstantEngine(0), str(tmp_path / "state"),
                          clock=clock, stable_s=0.3)
    return ctrl, world, gantry, clock


def step(ctrl: GameController, clock: ManualClock, n: int) -> None:
    for _ in range(n):
        clock.now += STEP
        ctrl.poll()


def test_test_move_carries_the_piece_and_the_world_follows(tmp_path):
    ctrl, world, gantry, clock = fake_rig(tmp_path)
    size = world.size
    e4, e8 = parse_square("e4", size), parse_square("e8", size)
    world.set_squares({e4: Piece.ATTACKER})
    step(ctrl, clock, 30)                 # the hand that placed them has gone
    ctrl.test_move(e4, e8)
    assert ctrl.view().robot_activity == RobotActivity(ActivityCode.MOVING, {"from": "e4", "to": "e8"})
    step(ctrl, clock, 5)
    assert world.square_pieces() == {e8: Piece.ATTACKER}
    assert [(t.src, t.dst, t.piece, t.kind) for t in gantry.carried] == [(e4, e8, Piece.ATTACKER, "test")]
    view = ctrl.view()
    assert view.state == "idle" and view.progress == 1.0 and not view.robot_activity
    assert ctrl.journal.last("staff_test_move") is not None


def test_test_move_refuses_an_empty_source_an_occupied_target_and_a_game(tmp_path):
    ctrl, world, gantry, clock = fake_rig(tmp_path)
    size = world.size
    a1, b1, c1 = (parse_square(n, size) for n in ("a1", "b1", "c1"))
    world.set_squares({a1: Piece.DEFENDER, b1: Piece.ATTACKER})
    step(ctrl, clock, 30)                 # the hand that placed them has gone
    with pytest.raises(ValueError, match="no piece on c1"):
        ctrl.test_move(c1, a1)
    with pytest.raises(ValueError, match="b1 is not empty"):
        ctrl.test_move(a1, b1)
    with pytest.raises(ValueError, match="not on the 11x11 board"):
        ctrl.test_move(a1, 500)
    world.set_squares({a1: None, b1: None})
    ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    with pytest.raises(RuntimeError, match="no test move while setup"):
        ctrl.test_move(a1, c1)
    assert gantry.carried == [] or all(t.kind != "test" for t in gantry.carried)


def test_jog_is_refused_during_a_game_and_while_the_robot_works(tmp_path):
    ctrl, world, gantry, clock = fake_rig(tmp_path)
    ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    with pytest.raises(RuntimeError, match="no jog while setup"):
        ctrl.jog(5.0, 0.0)
    ctrl.end_game()                       # game over, and the robot resets the board at once
    with pytest.raises(RuntimeError, match="no jog while the robot is busy"):
        ctrl.jog(5.0, 0.0)


def test_jog_without_a_jogging_gantry_says_so(tmp_path):
    ctrl, *_ = fake_rig(tmp_path)
    with pytest.raises(RuntimeError, match="cannot jog"):
        ctrl.jog(1.0, 1.0)                # the fake gantry has no jog


def test_camera_snapshot_is_the_cameras_newest_picture(tmp_path):
    image = np.zeros((480, 640, 3), np.uint8)
    image[:, :, 2] = 200                  # red in BGR
    ctrl, *_ = fake_rig(tmp_path, image)
    shot = ctrl.camera_snapshot()
    assert shot is not None and shot.shape == (480, 640, 3) and shot.dtype == np.uint8
    assert tuple(shot[10, 10]) == (0, 0, 200)
    ctrl.camera.image = None
    assert ctrl.camera_snapshot() is None


def test_camera_snapshot_from_the_camera_thread(tmp_path):
    """The real camera thread keeps the newest frame's image for the staff page."""
    from kiosk.camera_thread import CameraThread

    image = np.full((120, 160, 3), (10, 20, 30), np.uint8)
    camera = CameraThread(OnePictureFeed(image, pause_s=0.01), ReadsAnything(), max_fps=50)
    try:
        deadline = time.monotonic() + MAX_WAIT_S
        while camera.snapshot() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        shot = camera.snapshot()
        assert shot is not None and shot.shape == (120, 160, 3)
        assert tuple(shot[0, 0]) == (10, 20, 30)
    finally:
        camera.stop()


def wait_for_carriage(ctrl: GameController) -> None:
    """Poll until the jog under way has reported where the carriage is."""
    deadline = time.monotonic() + MAX_WAIT_S
    while time.monotonic() < deadline:
        ctrl.poll()
        if ctrl.view().robot_activity.code == ActivityCode.CARRIAGE_AT:
            return
        assert ctrl.view().state == "idle", ctrl.view()
        time.sleep(0.01)
    pytest.fail(f"jog not finished: {ctrl.view()}")


def test_jog_moves_the_simulated_carriage(tmp_path):
    """Controller -> gantry thread -> GantryMover -> GrblDriver -> GRBL simulator on a pty."""
    with real_gantry_chain(tmp_path) as (ctrl, sim):

        def jog_and_wait(dx: float, dy: float) -> None:
            ctrl.jog(dx, dy)
            assert ctrl.view().robot_activity.code == ActivityCode.JOGGING
            wait_for_carriage(ctrl)

        jog_and_wait(20.0, 0.0)                    # the first jog homes (power-up alarm) first
        x0, y0 = sim.machine_position
        jog_and_wait(-15.0, 5.0)
        x1, y1 = sim.machine_position
        assert x1 - x0 == pytest.approx(-15.0, abs=0.01)
        assert y1 - y0 == pytest.approx(5.0, abs=0.01)
        assert ctrl.view().robot_activity.args == {"x": f"{x1:.1f}", "y": f"{y1:.1f}"}


def test_a_jog_at_boot_queues_behind_the_ledger_and_a_second_one_is_refused(tmp_path, monkeypatch):
    """The first command hands the ledger to the gantry thread; on a loaded machine that
    thread takes it late. Handing a ledger over is not motion: the jog is queued behind it
    (before, it was refused as "the robot is busy"). While that jog waits or runs, the robot
    IS busy and a second jog gets the clear refusal."""
    from kiosk.robot_adapter import GantryMover

    ledger_taken = threading.Event()
    release = threading.Event()
    use_ledger = GantryMover.use_ledger

    def late_use_ledger(self: GantryMover, ledger: object, path: str) -> None:
        ledger_taken.set()
        release.wait(MAX_WAIT_S)                   # the gantry thread is held here
        use_ledger(self, ledger, path)

    monkeypatch.setattr(GantryMover, "use_ledger", late_use_ledger)
    with real_gantry_chain(tmp_path) as (ctrl, sim):
        ctrl.jog(20.0, 0.0)
        assert ctrl.view().robot_activity.code == ActivityCode.JOGGING
        assert ledger_taken.wait(MAX_WAIT_S)       # the ledger command is under way, the jog queued
        with pytest.raises(RuntimeError, match="no jog while the robot is busy"):
            ctrl.jog(1.0, 0.0)
        release.set()
        wait_for_carriage(ctrl)
        x, y = sim.machine_position
        assert ctrl.view().robot_activity.args == {"x": f"{x:.1f}", "y": f"{y:.1f}"}
        ctrl.jog(-5.0, 0.0)                        # idle again: the next jog is taken
        wait_for_carriage(ctrl)
        assert sim.machine_position[0] == pytest.approx(x - 5.0, abs=0.01)
