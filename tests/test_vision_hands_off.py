"""A board refused for glare alone in every picture: the visitor's word that no hand is over it reads it.

Hard light on the held-out renderer (bench/foreign_renderer.py), fresh seeds 98,043,017, a
hand-free board: the bench's own exposure of the scene is refused as "hand over board" (a veil's
clipped streak, crossings hidden only where the picture is nearly white). A camera that saw just
that picture all day would keep the kiosk waiting for a hand that is not there. The refusal says it
rests on glare alone (NotReadable.glare_only); once the visitor says no hand is over the board
(BoardReader.hands_off) the reader reads that still picture, with only the near-white rule of the
hand check relaxed, until the picture changes. An arm is refused as sure: the kiosk asks about such a
refusal only after the picture has stood unchanged for much longer, and the visitor's word then waives
the hand check for that very picture.
"""
from __future__ import annotations

import pytest

from calibration.config import Config
from engine import pieces_from_position
from tests.test_vision_refusal_in_a_still_picture import _exposure, _scene
from vision.inference import SURE
from vision.localise import NotReadable
from vision.reader import BoardReader
from vision.stability import StabilityTracker


def _reader() -> BoardReader:
    return BoardReader(Config(), _scene()[0].board)


def _refused(reader: BoardReader, image) -> NotReadable:
    with pytest.raises(NotReadable) as caught:
        reader.read(image, track=False)
    assert str(caught.value) == "hand over board"
    return caught.value


def test_a_refusal_for_glare_alone_says_so_and_an_arm_s_does_not():
    reader = _reader()
    assert _refused(reader, _exposure(0)).glare_only
    for i in range(3):
        assert not _refused(reader, _exposure(i, arm=True)).glare_only, i


def test_the_visitor_s_word_reads_the_still_picture_and_its_sure_squares_are_right():
    reader = _reader()
    sample = _scene()[0]
    truth = {sq: p.value for sq, p in pieces_from_position(sample.position, reader.size).items()}
    _refused(reader, _exposure(0))
    assert reader.hands_off()
    reading = reader.read(_exposure(0), track=False)
    sure = [sq for sq in range(reader.size ** 2) if reading.confidence[sq] >= SURE]
    assert len(sure) >= reader.size ** 2 // 2           # as many as in the exposures the reader takes (48-51)
    assert all(reading.pieces.get(sq) == truth.get(sq) for sq in sure)
    # the very picture, read trusted, agrees with another exposure of the scene the reader takes anyway
    other = reader.read(_exposure(1), track=False)
    both = [sq for sq in sure if other.confidence[sq] >= SURE]
    assert all(reading.pieces.get(sq) == other.pieces.get(sq) for sq in both)


def test_the_trust_ends_when_the_picture_changes_and_an_arm_is_still_a_hand():
    reader = _reader()
    _refused(reader, _exposure(0))
    assert reader.hands_off()
    reader.read(_exposure(0), track=False)
    assert not _refused(reader, _exposure(0, arm=True)).glare_only     # an arm over the trusted board
    _refused(reader, _exposure(0))                                      # the trust went with the change
    assert reader.hands_off()                                           # (and may be given again)
    reader.read(_exposure(0), track=False)


def test_a_sure_refusal_vouched_for_reads_that_still_picture_only():
    """A refusal the reader is sure of is asked about only after the picture stood unchanged for long
    (kiosk/board_watch.py SURE_HAND_ASK_S); vouched for, that very picture is read with no hand check, and
    the first picture that differs is judged as any other. Before anything was refused, there is nothing to
    vouch for."""
    assert not _reader().hands_off()
    reader = _reader()
    assert not _refused(reader, _exposure(0, arm=True)).glare_only
    assert reader.hands_off()
    assert reader.read(_exposure(0, arm=True), track=False).probabilities.shape[1] == 4
    _refused(reader, _exposure(0))                                      # the arm taken away: a change
    _refused(reader, _exposure(0, arm=True))                            # ... and the trust went with it


def test_the_tracker_knows_how_long_refused_pictures_have_stood_unchanged():
    reader = _reader()
    still = _refused(reader, _exposure(0)).picture
    arm = _refused(reader, _exposure(0, arm=True)).picture
    tracker = StabilityTracker(0.3)
    for t in (0.0, 1.0, 2.0):
        tracker.unreadable(t, "hand over board", image=still)
    assert tracker.refused_still_since == 0.0
    tracker.unreadable(3.0, "hand over board", image=arm)               # something moved
    assert tracker.refused_still_since == 3.0
    tracker.unreadable(4.0, "markers not found: 1")                     # no picture: nothing to compare
    assert tracker.refused_still_since is None
    tracker.unreadable(5.0, "hand over board", image=still)
    tracker.update(6.0, reader.read(_exposure(1), track=False))        # read: no refused run
    assert tracker.refused_still_since is None
