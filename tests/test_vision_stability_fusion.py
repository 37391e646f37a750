"""The still frames are fused: a flickering square comes out unsure; the gantry's stop restarts the count."""
import dataclasses

import pytest

from calibration.config import CameraConfig
from engine import Board
from vision.reader import BoardReader
from vision.renderer import render_frame
from vision.stability import StabilityTracker, StillState


@pytest.fixture(scope="module")
def reading():
    pieces = {sq: p.value for sq, p in Board("copenhagen").pieces().items()}
    frame = render_frame(pieces, "board-11", seed=81, condition="museum")
    return BoardReader(board="board-11").read(frame.image)


def _flicker(reading, sq: int, p_empty: float):
    probs = reading.probabilities.copy()
    probs[sq] = [p_empty, 0.0, 1.0 - p_empty, 0.0]
    return dataclasses.replace(reading, probabilities=probs)


def test_a_square_that_flickers_is_reported_unsure_not_as_the_last_frame_said(reading):
    tracker = StabilityTracker.from_config(CameraConfig(stable_s=0.5))
    sq = 5                                              # f1, empty in the start position
    event = None
    for i in range(30):
        # glare-like flicker: the square reads a defender (0.8) on every other frame
        frame = _flicker(reading, sq, 0.2 if i % 2 else 0.9)
        status = tracker.update(i / 30, frame)
        assert status.state is not StillState.MOVING    # unsure changes are not motion
        event = event or status.event
    assert event is not None and event.frames >= 15
    fused = event.reading.probabilities[sq]
    assert fused.max() < 0.7                             # unsure, so the move inference holds back
    assert event.reading.confidence[sq] < reading.confidence[sq]


def test_a_sure_change_restarts_the_still_time(reading):
    tracker = StabilityTracker(stable_s=0.3)
    tracker.update(0.0, reading)
    status = tracker.update(1 / 30, _flicker(reading, 5, 0.02))    # f1 now surely a defender
    assert status.state is StillState.MOVING


def test_reset_ignores_frames_from_before_the_gantry_stopped(reading):
    tracker = StabilityTracker(stable_s=0.2)
    for i in range(12):
        tracker.update(i / 30, reading)
    tracker.reset(not_before=1.0)
    assert tracker.update(0.5, reading).event is None            # an old frame, still queued
    events = [tracker.update(1.0 + i / 30, reading).event for i in range(10)]
    got = [e for e in events if e is not None]
    assert len(got) == 1 and got[0].since >= 1.0 and got[0].at - got[0].since >= 0.2


def test_negative_still_time_is_refused():
    with pytest.raises(ValueError):
        StabilityTracker(stable_s=-1)
