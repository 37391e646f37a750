"""A line wiped out one way only is no hand: blur along one direction, not a hand, leaves the other family.

Held-out renderer (bench/foreign_renderer.py), hard light, seeds 119,000,000 frame 8 (no hand): a soft,
JPEG-blocky frame in which the line along rank 2 is gone at the corners of d2 and e2 while the files' lines
there stand 13-20 grey levels deep. Two neighbouring crossings counted as hidden, and the board was
"hand over board". A hand hides the lines both ways (vision/occlusion.BOTH_WAYS).
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.reader import BoardReader  # noqa: E402


def test_a_frame_blurred_one_way_is_read_not_refused():
    sample, image = foreign_vision.frame("hard", 119_000_000, 8)
    reading = BoardReader(Config(), sample.board).read(image)        # before: NotReadable("hand over board")
    truth = foreign_vision.truth_classes(sample.position, 11)
    sure = reading.confidence >= foreign_vision.CONFIDENT
    assert (reading.probabilities.argmax(1)[sure] == truth[sure]).all()


def _board_picture(reader: BoardReader) -> np.ndarray:
    """A plain rectified board: wood 180, lines 120 along both directions."""
    n = reader.grid.n
    size = 576
    pic = np.full((size, size), 180, np.uint8)
    for x, _ in reader.grid.crossings.reshape(n, n, 2)[0]:
        cv2.line(pic, (int(round(x)), 0), (int(round(x)), size - 1), 120, 2)
    for _, y in reader.grid.crossings.reshape(n, n, 2)[:, 0]:
        cv2.line(pic, (0, int(round(y))), (size - 1, int(round(y))), 120, 2)
    return pic


def test_one_family_of_lines_gone_hides_no_crossing_both_gone_does():
    reader = BoardReader(Config(), "board-11")
    pic = _board_picture(reader)
    n = reader.grid.n
    pts = reader.grid.crossings.reshape(n, n, 2)
    rng = np.random.default_rng(1)
    noisy = lambda p: np.clip(p + rng.normal(0, 1.0, p.shape), 0, 255).astype(np.uint8)  # noqa: E731
    y = int(round(pts[5, 5][1]))
    one_way = pic.copy()
    one_way[y - 3:y + 4, :] = 180                        # the rank's line wiped out along its whole length
    assert reader.grid.check(noisy(one_way)).largest_patch == 0
    both = pic.copy()
    x0, y0 = pts[5, 4].astype(int)
    x1, y1 = pts[6, 6].astype(int)
    both[min(y0, y1) - 4:max(y0, y1) + 5, x0 - 4:x1 + 5] = 178     # a flat patch over six crossings: a hand
    assert reader.grid.check(noisy(both)).largest_patch >= 2
