"""A corner marker covered while the camera tracks the board: refused at once, not searched for.

A visitor's hand resting on a corner, or a bag left on it: the other three markers are where they
were, so the fourth is too (the board is rigid), and its pattern is gone from there. The whole-frame
search (magnified, unsharp-masked, soft, fitted) cannot find it anywhere else, and cost three times a
readable frame's time for as long as the cover stayed (vision/localise.BoardLocaliser._covered). Every
COVERED_RECHECK-th such frame is searched in full all the same; the frame after the cover is lifted
is tracked and read.
"""
from __future__ import annotations

import numpy as np

from calibration.config import Config
from engine import Board
from vision.localise import COVERED_RECHECK, NotReadable, pose_lost
from vision.reader import BoardReader
from vision.renderer import render_frame

BOARD = "board-11"


def _pieces() -> dict[int, str]:
    return {sq: p.value for sq, p in Board("copenhagen").pieces().items()}


def _frames() -> tuple[np.ndarray, np.ndarray]:
    """The same board in the same light, all four markers seen and marker 3 covered."""
    seen = render_frame(_pieces(), BOARD, seed=8, condition="museum").image
    covered = render_frame(_pieces(), BOARD, seed=8, condition="museum", hide_markers=(3,)).image
    return seen, covered


class CountingReader:
    """The reader, counting the marker searches over the whole frame (not a crop round a marker)."""

    def __init__(self) -> None:
        self.reader = BoardReader(Config(), BOARD)
        self.whole_frame = 0
        detect = self.reader.localiser.detect

        def counted(gray, quick=False, soft=False, near=False):
            if not near and gray.shape == (720, 1280):
                self.whole_frame += 1
            return detect(gray, quick=quick, soft=soft, near=near)

        self.reader.localiser.detect = counted      # type: ignore[method-assign]


def _noisy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.clip(image + rng.normal(0.0, 2.5, image.shape), 0, 255).astype(np.uint8)


def test_a_covered_corner_is_refused_without_the_whole_frame_search_and_the_board_read_when_it_is_lifted():
    seen, covered = _frames()
    rng = np.random.default_rng(2)
    counting = CountingReader()
    reader = counting.reader
    first = reader.read(_noisy(seen, rng))                      # the board found: tracking starts
    counting.whole_frame = 0
    frames = 2 * COVERED_RECHECK + 2
    for _ in range(frames):
        try:
            reader.read(_noisy(covered, rng))
        except NotReadable as exc:
            assert pose_lost(str(exc)) and str(exc).endswith(": 3")
        else:
            raise AssertionError("a covered corner was read")
    # the full search only every COVERED_RECHECK-th frame (each full search tries several detectors)
    assert 0 < counting.whole_frame <= 4 * (frames // (COVERED_RECHECK + 1) + 1)
    searched_while_covered = counting.whole_frame
    after = reader.read(_noisy(seen, rng))                      # the cover lifted: tracked, read
    assert counting.whole_frame == searched_while_covered
    assert after.position == first.position


def test_without_tracking_every_covered_frame_is_searched_in_full():
    _, covered = _frames()
    rng = np.random.default_rng(4)
    counting = CountingReader()
    for _ in range(3):
        try:
            counting.reader.read(_noisy(covered, rng), track=False)
        except NotReadable as exc:
            assert pose_lost(str(exc))
    assert counting.whole_frame >= 3 * 2
