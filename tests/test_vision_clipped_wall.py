"""On a square clipped white in every channel, a shallow dark arc round the rim is a piece's.

WHY: where a lamp's core clips wood and an ivory top alike, the arc of the piece's shaded wall is what
is left of it (vision/shape.piece_wall). Its bar was set for wood with texture (WALL_STEP plus the wood's
noise) and against the wood's own light under the veil; on wood flat at the sensor's top neither holds,
and the defenders' arcs of 3-10 grey levels counted for less than half: read empty (hard light, seeds
141M and 145M, 14 of them). There CLIPPED_WALL now sets the bar (every blown empty square's arc was under
0.9 grey levels in the 500 frames looked at).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from engine.types import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.shape import CLIPPED_WALL, Outline, piece_wall  # noqa: E402


def _outline(wall: float, wood_noise: float) -> Outline:
    one = np.array([0.0])
    return Outline(sharpness=one, sharpness_dark=one, lift=one, noise=1.0, fall=one, rise=one,
                   wall=np.array([wall]), wood_noise=np.array([wood_noise]), roundness=np.array([1.0]))


def test_a_shallow_arc_counts_only_where_the_square_is_clipped():
    """An arc of 3 grey levels on wood whose unclipped pixels scatter by 2, under a veil of 0.85."""
    outline = _outline(3.0, 2.0)
    wood, share = np.array([254.0]), np.array([0.85])
    assert piece_wall(outline, wood, share)[0] == 0.0
    assert piece_wall(outline, wood, share, np.array([False]))[0] == 0.0
    assert piece_wall(outline, wood, share, np.array([True]))[0] >= 0.99
    # JPEG's spread on clipped wood is no arc
    assert piece_wall(_outline(CLIPPED_WALL[0], 0.0), wood, share, np.array([True]))[0] == 0.0


def test_a_blown_defender_with_its_wall_is_read_a_defender_and_blown_wood_stays_empty():
    sample, image = foreign_vision.frame("hard", 145_000_000, 29)
    reading = foreign_vision.read_like_cli(image, sample.board)
    truth = foreign_vision.truth_classes(sample.position, reading.size)
    probs, blown = reading.probabilities, reading.features.saturated
    d3 = parse_square("d3", reading.size)
    assert blown[d3] and int(truth[d3]) == int(SquareClass.DEFENDER)
    assert int(probs[d3].argmax()) == int(SquareClass.DEFENDER), f"d3 read {np.round(probs[d3], 2)}"
    empty = blown & (truth == int(SquareClass.EMPTY))
    assert empty.sum() >= 3
    assert (probs[empty].argmax(1) == int(SquareClass.EMPTY)).all()
