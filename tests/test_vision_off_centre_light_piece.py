"""A light piece set down far off its square's centre is read as the light piece it plainly is.

Its expected top then falls on the piece's far rim, where the shaded side wall and its shadow ring it: the
rays round that top start on the dark crescent and the top reads darker than its wood, with a sharp dark rim,
so a king there went to the dark disc's guess, an attacker (vision/shape.moved_light_top). Round a top moved
a third of a radius towards the piece the disc is plainly light, sharp and round; it is taken only where the
colour says a light piece, since a lamp-lit attacker's top beside his shadow shows such a disc too.
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
from engine.types import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.shape import OutlineMeter, lit_moved_found, moved_light_top  # noqa: E402

RADIUS = 10.0


def _far_off_light_piece() -> np.ndarray:
    """Wood, a dark crescent round the expected top (60, 60) and an ivory top 0.8 radii nearer the camera."""
    gray = np.full((120, 120), 150, np.float32)
    cv2.circle(gray, (60, 56), 12, 70, -1)              # the shaded side wall and shadow
    cv2.circle(gray, (60, 68), int(RADIUS), 225, -1)    # the top
    blurred = cv2.GaussianBlur(gray, (0, 0), 0.8)
    return np.clip(blurred + np.random.default_rng(1).normal(0, 1.5, gray.shape), 0, 255).astype(np.uint8)


def test_a_light_top_beside_a_dark_expected_one_is_found_and_taken_only_where_the_colour_says_light():
    outline = OutlineMeter(RADIUS).measure(_far_off_light_piece(), np.array([[60.0, 60.0]]))
    assert outline.lift[0] < -3.0                       # the expected top reads darker than its ring
    assert lit_moved_found(outline)[0]
    taken = moved_light_top(outline, np.array([True]))
    assert taken.lift[0] > 30.0 and taken.roundness[0] >= 0.85 and taken.sharpness_dark[0] == 0.0
    kept = moved_light_top(outline, np.array([False]))  # the colour says a dark piece: the outline stands
    assert kept.lift[0] == outline.lift[0] and kept.sharpness_dark[0] == outline.sharpness_dark[0]


def test_a_plain_dark_disc_has_no_light_top_beside_it():
    gray = np.full((120, 120), 150, np.uint8)
    cv2.circle(gray, (60, 60), int(RADIUS), 40, -1)
    outline = OutlineMeter(RADIUS).measure(gray, np.array([[62.0, 57.0]]))
    assert not lit_moved_found(outline)[0]


def test_the_king_set_far_off_his_square_is_read_the_king():
    """Museum light, fresh seeds 147,004,017 d2: the king 0.75 radii off his square's centre, his expected top
    31 grey levels darker than the wood, read an attacker (0.44, the king 0.43)."""
    size, truth, probs = foreign_vision.frame_reading("museum", 147_000_000, 4)
    d2 = parse_square("d2", size)
    assert int(truth[d2]) == int(SquareClass.KING)
    assert int(probs[d2].argmax()) == int(SquareClass.KING), f"d2 read {np.round(probs[d2], 2)}"
    assert (probs.argmax(1) == truth).all()
