"""A fingertip that reaches in over the board's edge by a square is a hand.

Museum light, fresh seeds 96,016,029 of the held-out renderer (bench/foreign_renderer.py): a pink
fingertip over a6-b7, in from the left edge, no other colour than the lit frame band and the wood,
hid one grid crossing inside the board and was read as a board: a hand needs two hidden crossings
side by side, and the crossings on the border never count (the frame beside them is often as dark
as a line). But the line that runs from a border crossing into the board has wood on both sides,
and the fingertip hid that line where it came in and the next crossing along it
(vision/occlusion.GridChecker.occluded, GridVisibility.edge_hidden). Hand-free frames stay read
(tests/test_vision_glare_not_a_hand.py, tests/test_vision_hard_light.py), among them a dim soft frame
whose border lines are faint everywhere (hard light, 99,022,017).
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.localise import NotReadable  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

WOOD, LINE, FRAME, SKIN = 170, 110, 60, 185


def test_the_fingertip_over_the_left_edge_is_a_hand():
    sample, image = foreign_vision.frame("museum", 96_000_000, 16, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(Config(), "board-11")


def _board(reader: BoardReader) -> np.ndarray:
    """A rectified picture of bare wood with its grid and a dark frame round the playing area."""
    fr, geo = reader.frame, reader.geometry
    img = np.full((fr.pixels, fr.pixels), FRAME, np.uint8)
    lo, hi = fr.to_px(np.array([[0.0, geo.width], [geo.width, 0.0]]))
    cv2.rectangle(img, tuple(int(v) for v in lo), tuple(int(v) for v in hi), WOOD, -1)
    width = max(1, int(round(geo.spec.line_width_mm * fr.ppm)))
    for k in range(geo.size + 1):
        a = fr.to_px(np.array([[k * geo.pitch, 0.0], [k * geo.pitch, geo.width]]))
        b = fr.to_px(np.array([[0.0, k * geo.pitch], [geo.width, k * geo.pitch]]))
        cv2.line(img, tuple(int(v) for v in a[0]), tuple(int(v) for v in a[1]), LINE, width)
        cv2.line(img, tuple(int(v) for v in b[0]), tuple(int(v) for v in b[1]), LINE, width)
    return img


def _patch(reader: BoardReader, img: np.ndarray, x0: float, x1: float, y0: float, y1: float,
           level: int = SKIN) -> np.ndarray:
    """Paint a plain patch (board millimetres) of grey `level` over the picture: no lines show through it."""
    p = reader.frame.to_px(np.array([[x0, y0], [x1, y1]]))
    out = img.copy()
    cv2.rectangle(out, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]), level, -1)
    return out


def _occluded(reader: BoardReader, img: np.ndarray) -> bool:
    noisy = np.clip(img + np.random.default_rng(3).normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
    return reader.grid.occluded(reader.grid.check(noisy))


def test_a_drawn_fingertip_in_over_the_edge_hides_one_crossing_and_is_a_hand(reader):
    p = reader.geometry.pitch
    bare = _board(reader)
    assert not _occluded(reader, bare)
    # from outside the left edge to just past the first inner line, across the line at 5 pitches up
    tip = _patch(reader, bare, -10.0, 1.3 * p, 4.6 * p, 5.4 * p)
    assert _occluded(reader, tip)


def test_a_dim_soft_frame_with_faint_border_lines_is_read():
    """Hard light, fresh seeds 99,022,017: five border crossings' lines into the board and two lone crossings
    inside within the noise, one inside diagonally beside a border one; no line gone from the edge inwards."""
    sample, image = foreign_vision.frame("hard", 99_000_000, 22)
    reading = BoardReader(Config(), sample.board).read(image, track=False)
    assert reading.probabilities.shape[1] == 4


def test_a_veil_s_core_at_the_edge_is_no_fingertip():
    """Hard light, fresh seeds 100,053,017: a veil's core over the top edge washed a border crossing's line
    into the board out and squeezed the next crossing along it (234 grey levels) into the noise; a crossing
    inside nearly white counts no more here than in a patch."""
    sample, image = foreign_vision.frame("hard", 100_000_000, 53)
    reading = BoardReader(Config(), sample.board).read(image, track=False)
    assert reading.probabilities.shape[1] == 4


def test_a_spot_on_the_edge_alone_or_one_crossing_inside_alone_is_no_hand(reader):
    p = reader.geometry.pitch
    bare = _board(reader)
    # over the border crossing and its line into the board, short of the first inner crossing
    edge_only = _patch(reader, bare, -10.0, 0.6 * p, 4.6 * p, 5.4 * p)
    assert not _occluded(reader, edge_only)
    # one crossing in the middle of the board, nothing at the edge
    inner_only = _patch(reader, bare, 4.6 * p, 5.4 * p, 4.6 * p, 5.4 * p)
    assert not _occluded(reader, inner_only)
    # a border crossing and the first crossing inside diagonally beside it, the line between them kept
    diagonal = _patch(reader, _patch(reader, bare, -10.0, 0.4 * p, 4.6 * p, 5.4 * p), 0.6 * p, 1.4 * p, 5.6 * p, 6.4 * p)
    assert not _occluded(reader, diagonal)


def test_a_narrow_veil_s_streak_in_from_the_edge_lit_like_glare_is_no_fingertip(reader):
    """Hard light, seeds 103M, a game's scene: a narrow veil's streak running in from the edge along a line
    hid a border crossing's line into the board and the next crossing along it (209-237 grey levels where the
    board's wood had 90). Lit like glare's core, it is no fingertip; the same patch no brighter than the wood
    is one."""
    p = reader.geometry.pitch
    dim = (_board(reader).astype(np.float64) * 90.0 / WOOD).astype(np.uint8)      # wood 90, lines 58, frame 32
    streak = _patch(reader, dim, -10.0, 1.3 * p, 4.6 * p, 5.4 * p, 200)
    assert not _occluded(reader, streak)
    tip = _patch(reader, dim, -10.0, 1.3 * p, 4.6 * p, 5.4 * p, 100)
    assert _occluded(reader, tip)


@pytest.mark.parametrize("light, hand", [(1.2, True), (1.55, False)])
def test_a_lone_crossing_lit_well_over_the_board_s_wood_is_no_fingertip(reader, light, hand):
    """Hard light, fresh seeds 113,010,017: a lamp's streak along the board's top rows hid one crossing inside
    (1.56 times the board's wood) and the line in from the edge beside it. A fingertip lights nothing: the
    ones this rule alone catches lie at 0.5 to 1.26 times the board's wood (vision/occlusion.TIP_LIGHT)."""
    p = reader.geometry.pitch
    dim = (_board(reader).astype(np.float64) * 90.0 / WOOD).astype(np.uint8)
    patch = _patch(reader, dim, -10.0, 1.3 * p, 4.6 * p, 5.4 * p, int(round(90 * light)))
    assert _occluded(reader, patch) is hand


def test_a_lamp_s_streak_along_the_top_rows_is_read():
    sample, image = foreign_vision.frame("hard", 113_000_000, 10)
    reading = BoardReader(Config(), sample.board).read(image, track=False)
    assert reading.probabilities.shape[1] == 4


def test_a_fingertip_under_a_veil_a_quarter_brighter_than_the_board_is_a_hand():
    """Hard light, fresh seeds 113,015,029: the brightest fingertip this rule alone catches (1.26 times the
    board's wood, under a veil of 0.85)."""
    sample, image = foreign_vision.frame("hard", 113_000_000, 15, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)
