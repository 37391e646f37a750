"""A dim room where a corner marker is lost now and then (about one picture in five on a hard day,
bench/foreign_vision.py): the visitor's moves are still taken, a visitor who walks away is still
noticed, and a marker covered for longer is still somebody there, unless nothing in the picture
moves (a bag left on the corner: tests/test_kiosk_refusals_that_stay.py through the real reader)."""
from __future__ import annotations

import numpy as np

from kiosk.board_watch import MARKER_COVERED_S, BoardWatch
from kiosk.ports import CameraReading
from tests.helpers.fakes import ManualClock, WorldCamera
from tests.helpers.rig import Rig, visitor_turn
from tests.test_controller_museum import skip
from vision.localise import NotReadable


class DimCamera(WorldCamera):
    """Reads the world exactly, but every `every`-th picture loses marker 3; `covered` loses it always."""

    every = 5
    covered = False

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is not None and reading.ok and (self.covered or self.seq % self.every == 0):
            return CameraReading(reading.seq, reading.t, False, "markers not found: 3")
        return reading


def _dim_game(tmp_path) -> Rig:
    return visitor_turn(tmp_path, DimCamera, seed=3)


def test_moves_are_taken_while_a_marker_is_lost_now_and_then(tmp_path):
    rig = _dim_game(tmp_path)
    for ply in (1, 3):
        rig.visitor_random_move()
        rig.run_until({"visitor_turn"})
        assert rig.ctrl.view().ply == ply + 1


def test_a_visitor_who_walks_away_from_a_dim_board_is_noticed(tmp_path):
    """The lost marker is not a hand: the attendance timer runs and the game is paused."""
    rig = _dim_game(tmp_path)
    cfg = rig.config.kiosk
    skip(rig, cfg.attendance_warn_s + 5)
    assert rig.ctrl.view().attendance == "warn"
    skip(rig, cfg.attendance_pause_s - cfg.attendance_warn_s)
    assert rig.ctrl.view().state == "paused"


def test_a_marker_covered_for_longer_is_somebody_there(tmp_path):
    clock = ManualClock()
    rig = Rig(tmp_path)
    camera = DimCamera(rig.world, clock)
    watch = BoardWatch(camera, 0.3, clock)
    clock.now += 0.1
    watch.update()                                   # the first picture: the board comes into view
    quiet = watch.last_sign_of_life
    for _ in range(30):                              # lost now and then: no sign of life
        clock.now += 0.1
        watch.update()
    assert watch.last_sign_of_life == quiet
    camera.covered = True                            # a hand resting on the corner
    for _ in range(int(MARKER_COVERED_S / 0.1) + 2):
        clock.now += 0.1
        watch.update()
    assert watch.last_sign_of_life > quiet


class BaggedCamera(DimCamera):
    """Marker 3 covered by a bag while `covered`: every picture refused with the whole frame as the
    camera sees it (vision NotReadable.scene), the same scene with fresh sensor noise each time."""

    def __init__(self, world, clock) -> None:
        super().__init__(world, clock)
        self.rng = np.random.default_rng(9)
        self.scene = np.random.default_rng(1).uniform(40, 220, (72, 128))

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is None or reading.ok or reading.reason == "camera.no_frames":
            return reading
        noisy = np.clip(self.scene + self.rng.normal(0.0, 2.5, self.scene.shape), 0, 255).astype(np.uint8)
        return CameraReading(reading.seq, reading.t, False, reading.reason,
                             raw=NotReadable(reading.reason or "", scene=noisy))


def test_a_game_left_with_a_bag_on_a_corner_pauses_and_goes_on_when_it_is_taken_away(tmp_path):
    rig = visitor_turn(tmp_path, BaggedCamera, seed=3)
    rig.camera.covered = True
    rig.step(10)
    view = rig.ctrl.view()
    assert view.state == "visitor_turn" and not view.camera_ok
    skip(rig, rig.config.kiosk.attendance_pause_s + 5)
    assert rig.ctrl.view().state == "paused"           # nobody there: not waiting for good
    rig.camera.covered = False                         # the next visitor takes the bag away
    rig.step(5)
    assert rig.ctrl.view().state == "visitor_turn" and rig.ctrl.view().camera_ok
