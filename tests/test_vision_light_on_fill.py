"""A soft spot of light on a marked square's darker fill is no sure light piece.

Frames of the held-out renderer (bench/foreign_renderer.py), hard light. On two Tablut camp squares (a streak
of light along the board's edge; a soft spot under a green lamp) the light lifted the darker fill above the
plain wood and its edges gave the "disc" a rim, so the empty squares read sure defenders (1.00, 0.94). An
ivory top on the fill stands far above it, more than the grid lines sink below it; those spots stood half as
far (vision/shape.light_on_fill_short). A king on a corner square is still read a sure king.
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

SURE = 0.9
LIGHT = (int(SquareClass.DEFENDER), int(SquareClass.KING))


@pytest.mark.parametrize("seed0,k,square", [(89_000_000, 27, "a4"), (89_000_000, 3, "e2")])
def test_a_soft_spot_of_light_on_a_camp_square_is_no_sure_light_piece(seed0, k, square):
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    sq = parse_square(square, size)
    assert size == 9 and int(truth[sq]) == int(SquareClass.EMPTY)
    assert not (int(probs[sq].argmax()) in LIGHT and probs[sq].max() >= SURE), f"{square} read {np.round(probs[sq], 2)}"


def test_a_king_on_a_corner_is_still_a_sure_king():
    size, truth, probs = foreign_vision.frame_reading("hard", 14_000_000, 24)
    sq = parse_square("k1", size)
    assert int(truth[sq]) == int(SquareClass.KING)
    assert int(probs[sq].argmax()) == int(SquareClass.KING) and probs[sq].max() >= SURE, np.round(probs[sq], 2)


@pytest.mark.parametrize("seed0,k", [(147_000_000, 73), (146_000_000, 96)])
def test_the_king_on_the_throne_no_lighter_than_the_plain_wood_is_the_king(seed0, k):
    """Hard light: the king on f6, his disc plainly seen with a piece's rim (46.8 and 30 grey levels above the
    fill, the colour 0.92 king and 0.85 defender) but his gold-crowned top no lighter than the veiled plain wood
    round the throne, were read empty (0.51, 0.65). No dark piece stops on the throne in three of the four rule
    sets; the cached frames' 300 thrones with such a disc all held the king."""
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    f6 = parse_square("f6", size)
    assert int(truth[f6]) == int(SquareClass.KING)
    assert int(probs[f6].argmax()) == int(SquareClass.KING), np.round(probs[f6], 2)
