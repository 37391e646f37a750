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
    fused = event.probabilities[sq]
    assert fused.max() < 0.7                             # unsure, so the move reader holds back
    assert event.reading.confidence[sq] < reading.confidence[sq]
    assert tracker.still() is not None and tracker.still().frames == 30     # it goes on fusing


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


def test_still_from_a_moment_fuses_only_the_frames_taken_since(reading):
    """The kiosk checks the robot's move from the first still frames after the gantry stopped,
    asking the tracker for the still board from that moment (the run itself goes on)."""
    tracker = StabilityTracker(stable_s=0.2)
    for i in range(30):
        tracker.update(i / 30, reading)
    assert tracker.still() is not None and tracker.still().frames == 30
    assert tracker.still(not_before=0.9) is None                   # still for 0.07 s since then
    for i in range(30, 37):
        tracker.update(i / 30, reading)
    got = tracker.still(not_before=0.9)
    assert got is not None and got.since == 0.9 and got.frames == 10


def test_one_picture_repeated_is_not_two(reading):
    """A simulated still scene repeats its picture: the time counts, the picture once."""
    tracker = StabilityTracker(stable_s=0.2)
    tracker.update(0.0, reading)
    for i in range(1, 20):
        tracker.observe(i / 30, reading.probabilities, reading.rectified, fresh=False)
    assert tracker.still() is None and tracker.waiting_for_pictures()
    tracker.update(0.7, reading)
    assert tracker.still() is not None and tracker.still().frames == 2


def test_bare_probabilities_without_a_picture(reading):
    """The kiosk's test cameras give squares only: a sure change is motion, a still board comes."""
    tracker = StabilityTracker(stable_s=0.1)
    probs = reading.probabilities
    assert tracker.observe(0.0, probs).state is StillState.SETTLING
    moved = probs.copy()
    moved[5] = [0.0, 0.0, 1.0, 0.0]
    assert tracker.observe(0.05, moved).state is StillState.MOVING
    assert tracker.observe(0.1, moved).event is None
    event = tracker.observe(0.2, moved).event
    assert event is not None and event.reading is None and event.probabilities[5].argmax() == 2


def test_a_corner_marker_lost_now_and_then_does_not_end_the_still_run(reading):
    """Dim light: marker 3 is lost in about one picture in five. Those pictures (keep_run) neither
    end the still run nor count; a picture over which something was seen (a hand) does."""
    tracker = StabilityTracker(stable_s=0.3)
    events = []
    for i in range(30):
        t = i / 30
        if i % 5 == 4:
            tracker.unreadable(t, "markers not found: 3", keep_run=True)
        else:
            events.append(tracker.update(t, reading).event)
    got = [e for e in events if e is not None]
    assert len(got) == 1 and got[0].since == 0.0                    # still once, from the first picture
    assert tracker.still().frames == 24                             # every readable picture fused
    tracker.unreadable(1.0, "hand over board")
    assert tracker.still() is None                                  # a hand: the run is over


def test_a_piece_moved_while_the_markers_were_lost_starts_the_run_again(reading):
    tracker = StabilityTracker(stable_s=0.3)
    for i in range(12):
        tracker.update(i / 30, reading)
    assert tracker.still() is not None
    for i in range(12, 20):
        tracker.unreadable(i / 30, "markers not found: 0", keep_run=True)     # a hand over a corner
    status = tracker.update(20 / 30, _flicker(reading, 5, 0.02))          # f1 now surely a defender
    assert status.state is StillState.MOVING and tracker.still() is None
