"""A refusal in a picture that has not changed is no hand: the still run goes on; an arm coming in ends it.

Hard light on the held-out renderer (bench/foreign_renderer.py), fresh seeds
98,043,017, a hand-free board: of 30 exposures of the one scene (the same
room, light and veils; new sensor noise each), the hand check refused 2 as
"hand over board" (a veil's clipped streak, two crossings near white). Each
refusal ended the still run the readable pictures were building, so in such
light a kiosk waited on for a board it could read. The refused picture is the
still board's (vision/stability.StabilityTracker.unchanged: no square's mean
moved), so the run now goes on; an arm over the same board changes the
squares it covers and still ends the run.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.localise import NotReadable  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.stability import StabilityTracker  # noqa: E402

SEED0, K = 98_000_000, 43
STABLE_S = 0.3


@lru_cache(maxsize=1)
def _scene():
    """The bench frame's scene (bench/foreign_vision.frame), ready for more exposures."""
    sample = foreign_vision.frame_samples("hard", K + 1, SEED0)[K]
    seed = foreign_vision.frame_seed(SEED0, K)
    prepared = foreign_renderer.prepare(sample.board, sample.position, "hard", Config(), seed)
    return sample, seed, prepared


def _exposure(i: int, arm: bool = False) -> np.ndarray:
    """Exposure i of the scene; 0 is the bench's own frame (the one refused)."""
    sample, seed, prepared = _scene()
    hand = None
    if arm:
        width = foreign_renderer.Layout.from_config(Config(), sample.board).width
        hand = foreign_renderer.random_hand(np.random.default_rng((seed, 5)), width)
    return foreign_renderer.expose(prepared, seed if i == 0 else seed * 100 + i, hand, onlooker_seed=seed)


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(Config(), _scene()[0].board)


def _refusal(reader: BoardReader, image: np.ndarray) -> NotReadable:
    with pytest.raises(NotReadable) as caught:
        reader.read(image, track=False)
    assert str(caught.value) == "hand over board"
    assert caught.value.picture is not None
    return caught.value


def _run(reader: BoardReader, with_picture: bool) -> StabilityTracker:
    """Pictures at 10 fps: two readable, the refused one, two readable."""
    tracker = StabilityTracker(STABLE_S)
    for t, i in ((0.0, 1), (0.1, 2)):
        tracker.update(t, reader.read(_exposure(i), track=False))
    refusal = _refusal(reader, _exposure(0))
    tracker.unreadable(0.2, str(refusal), image=refusal.picture if with_picture else None)
    for t, i in ((0.3, 3), (0.4, 4)):
        tracker.update(t, reader.read(_exposure(i), track=False))
    return tracker


def test_a_refusal_in_the_still_board_s_picture_keeps_the_still_run(reader):
    tracker = _run(reader, with_picture=True)
    event = tracker.still()
    assert event is not None, "the still run should have gone on over the refused picture"
    assert event.since == 0.0 and event.frames == 4
    truth = foreign_vision.truth_classes(_scene()[0].position, reader.size)
    sure = event.confidence >= foreign_vision.CONFIDENT
    assert (event.probabilities.argmax(1)[sure] == truth[sure]).all()


def test_without_the_picture_the_refusal_ends_the_run_as_before(reader):
    """(what the kiosk did: the board still for 0.4 s was not still for 0.3 s)"""
    tracker = _run(reader, with_picture=False)
    assert tracker.still() is None


def test_an_arm_coming_in_over_the_still_board_ends_the_run(reader):
    tracker = StabilityTracker(STABLE_S)
    for t, i in ((0.0, 1), (0.1, 2), (0.2, 3)):
        tracker.update(t, reader.read(_exposure(i), track=False))
    arm = _refusal(reader, _exposure(4, arm=True))
    assert not tracker.unchanged(arm.picture)
    tracker.unreadable(0.3, str(arm), image=arm.picture)
    tracker.update(0.4, reader.read(_exposure(5), track=False))
    assert tracker.still() is None
    assert tracker.still(not_before=0.4) is None


def test_a_refusal_with_no_board_found_has_no_picture():
    error = NotReadable("markers not found: 0, 1")
    tracker = StabilityTracker(STABLE_S)
    assert error.picture is None and not tracker.unchanged(error.picture)


def test_a_run_refused_more_often_than_read_is_no_still_board():
    """A hand held still that the reader takes for a board now and then is refused most of the time: the
    pictures it read are no still board, though every refused picture matches them."""
    rng = np.random.default_rng(3)
    picture = rng.integers(60, 200, (88, 88)).astype(np.uint8)
    probs = np.tile([[0.97, 0.01, 0.01, 0.01]], (121, 1))
    tracker = StabilityTracker(STABLE_S)
    for k in range(12):                          # 10 fps: read, refused, refused, read, ...
        t = k / 10
        if k % 3 == 0:
            tracker.observe(t, probs, picture)
        else:
            tracker.unreadable(t, "hand over board", image=picture)
    assert tracker.still() is None
    for k in range(12, 30):                      # the hand gone: read every time, the same picture
        tracker.observe(k / 10, probs, picture)
    assert tracker.still() is not None
