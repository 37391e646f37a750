"""A square whose top glare clipped white, with a piece's crescent round it, holds a light piece, not an attacker.

Frames of the held-out renderer (bench/foreign_renderer.py), museum light, development seeds. Under a white
veil that clips wood and top alike in every channel, a defender shows only the dark crescent of its shaded
wall and shadow; where the crescent reached into the disc sampled as its top, it read as a dark disc, and the
square's best guess was an attacker (0.5). A veil that leaves the wall dark does not lift a near-black top to
white: the top that clipped is ivory (vision/shape.clipped_top). Such a square is still held back
(vision/reader.py BLOWN_SURE).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from engine.types import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BLOWN_SURE  # noqa: E402


@pytest.mark.parametrize("seed0,k,squares", [(11_000_000, 42, ("j6", "i7", "j7")), (10_000_000, 7, ("g5",))])
def test_a_clipped_top_with_a_crescent_is_a_light_piece(seed0, k, squares):
    size, truth, probs = foreign_vision.frame_reading("museum", seed0, k)
    for name in squares:
        sq = parse_square(name, size)
        assert int(truth[sq]) == int(SquareClass.DEFENDER)
        assert int(probs[sq].argmax()) == int(SquareClass.DEFENDER), f"{name} read {np.round(probs[sq], 2)}"
        assert probs[sq].max() <= BLOWN_SURE + 1e-9, "nothing but a crescent was seen: held back"
    # the frame's attackers, their dark tops plain under the veil, are still read attackers
    a = int(SquareClass.ATTACKER)
    attackers = np.nonzero(truth == a)[0]
    assert (probs[attackers].argmax(1) == a).all()
