"""The robot's move waiting on a camera that cannot read the board calls staff (kiosk/attendance.py).

A hard-light museum day (seed 10) stood in the robot's verify for ten minutes on "markers not found: 2":
nothing asked anybody, and the visitor's game was lost to the day.
"""
from __future__ import annotations

import logging

import cv2
import numpy as np

from calibration.config import Config
from kiosk.ports import CameraReading
from kiosk.staff_ops import CAMERA_PICTURES_KEPT
from tests.helpers.fakes import WorldCamera
from tests.helpers.rig import visitor_turn

STAFF_CALL_S = Config().kiosk.staff_call_s


class BlindCamera(WorldCamera):
    """The world's squares, until a corner marker is lost: then no board at all."""

    blind = False
    picture = np.zeros((72, 128, 3), np.uint8)

    def snapshot(self) -> np.ndarray | None:
        return self.picture

    def read_latest(self) -> CameraReading | None:
        if self.blind:
            self.seq += 1
            return CameraReading(self.seq, self.clock(), False, "markers not found: 2")
        return super().read_latest()


def _blind_in_verify(tmp_path):
    rig = visitor_turn(tmp_path, camera_cls=BlindCamera)
    rig.visitor_random_move()
    for _ in range(2000):                      # the engine replies and the gantry carries: then the camera goes
        rig.step()
        if rig.ctrl.view().state == "verify":
            break
    assert rig.ctrl.view().state == "verify"
    rig.camera.blind = True
    return rig


def test_a_blind_camera_in_the_robots_verify_calls_staff(tmp_path, caplog):
    rig = _blind_in_verify(tmp_path)
    for _ in range(int((STAFF_CALL_S - 10) / 0.5)):
        rig.clock.now += 0.5
        rig.ctrl.poll()
    assert rig.ctrl.view().state == "verify" and not rig.ctrl.view().staff_notice     # not yet
    with caplog.at_level(logging.WARNING, logger="kiosk.staff"):
        for _ in range(40):
            rig.clock.now += 0.5
            rig.ctrl.poll()
    view = rig.ctrl.view()
    assert view.state == "verify" and view.staff_notice == "camera: markers not found: 2"
    assert rig.ctrl.journal.last("staff_called") is not None
    assert any("staff needed" in r.getMessage() for r in caplog.records)
    # the marker seen again: the move is confirmed, the notice goes
    rig.camera.blind = False
    rig.run_until({"visitor_turn"})
    assert not rig.ctrl.view().staff_notice


def test_a_camera_that_reads_the_board_calls_nobody(tmp_path):
    """(the verify's own retries and questions are the robot's; a reading camera is no reason for staff)"""
    rig = _blind_in_verify(tmp_path)
    rig.camera.blind = False
    rig.run_until({"visitor_turn"})
    for _ in range(int((STAFF_CALL_S + 30) / 0.5)):
        rig.clock.now += 0.5
        rig.ctrl.poll()
    assert not rig.ctrl.view().staff_notice


def test_a_staff_call_for_the_camera_keeps_its_picture(tmp_path, caplog):
    """The person called (or whoever reads the log later) sees what the camera saw: the newest picture is saved
    in the state directory and named in the log line; only the newest CAMERA_PICTURES_KEPT are kept."""
    rig = _blind_in_verify(tmp_path)
    rig.camera.picture = np.full((72, 128, 3), (0, 40, 200), np.uint8)        # a red bag on the corner
    folder = rig.state_dir / "camera"
    folder.mkdir(parents=True)
    for k in range(CAMERA_PICTURES_KEPT + 3):                                # an earlier long day's calls
        cv2.imwrite(str(folder / f"staff-call-20000101-0000{k:02d}.png"), np.zeros((4, 4, 3), np.uint8))
    with caplog.at_level(logging.WARNING, logger="kiosk.staff"):
        for _ in range(int((STAFF_CALL_S + 10) / 0.5)):
            rig.clock.now += 0.5
            rig.ctrl.poll()
    assert rig.ctrl.view().staff_notice == "camera: markers not found: 2"
    told = [r.getMessage() for r in caplog.records if "staff needed" in r.getMessage()]
    assert len(told) == 1 and "the camera's picture: " in told[0]
    saved = told[0].split("the camera's picture: ")[1]
    kept = sorted(folder.glob("staff-call-*.png"))
    assert len(kept) == CAMERA_PICTURES_KEPT and str(kept[-1]) == saved
    picture = cv2.imread(saved)
    assert picture.shape == (72, 128, 3) and tuple(picture[0, 0]) == (0, 40, 200)
