"""After the robot's move, a square it did not touch that the camera cannot make out is taken as it
was (kiosk/board_watch.py BoardWatch.untouched_in_doubt): a glare patch over a corner is no disturbed
board, and asking a person to fix it stopped the kiosk until staff came. A sure difference there
still asks a person."""
from __future__ import annotations

import pytest

from engine import Piece
from kiosk.journal import read_records
from kiosk.ports import CameraReading
from tests.helpers.fakes import WorldCamera
from tests.helpers.rig import visitor_turn

CORNER = 0          # a1: no piece but the king may stand there, and the robot's first reply cannot take him there


class GlareOverACorner(WorldCamera):
    """Reads the world exactly, except that once `confidence` is set the empty corner a1 is read as a
    defender that sure (a veil of light over it, as the camera thread reports a square in doubt)."""

    confidence: float | None = None

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is None or not reading.ok or self.confidence is None:
            return reading
        assert reading.squares[CORNER] is None
        squares = list(reading.squares)
        confidence = list(reading.confidence)
        squares[CORNER], confidence[CORNER] = Piece.DEFENDER, self.confidence
        return CameraReading(reading.seq, reading.t, True, None, tuple(squares), tuple(confidence))


def robot_replies_under_glare(tmp_path, confidence: float):
    rig = visitor_turn(tmp_path, camera_cls=GlareOverACorner)
    rig.visitor_random_move()
    assert isinstance(rig.camera, GlareOverACorner)
    rig.camera.confidence = confidence          # from the robot's turn on
    state = rig.run_until({"visitor_turn", "place_piece"})
    return rig, state


def test_a_square_in_doubt_the_robot_did_not_touch_does_not_stop_the_game(tmp_path):
    rig, state = robot_replies_under_glare(tmp_path, 0.55)
    assert state == "visitor_turn", rig.ctrl.view()
    view = rig.ctrl.view()
    assert view.ply == 2
    assert view.board.pieces().get(CORNER) is None
    records = [r for r in read_records(rig.state_dir / "journal.jsonl") if r.kind == "unsure_untouched"]
    assert records and records[-1].get("squares") == ["a1"]


@pytest.mark.parametrize("confidence", [0.97, 1.0])
def test_a_sure_difference_the_robot_did_not_make_still_asks_a_person(tmp_path, confidence):
    rig, state = robot_replies_under_glare(tmp_path, confidence)
    assert state == "place_piece", rig.ctrl.view()
    assert rig.ctrl.message == "fix_board.robot_result"
    assert CORNER in rig.ctrl.fix_squares
