"""A square whose outline is a light piece's in every part is no sure empty, however the colour reads it.

Round, with a plainly sharp rim, its top lighter than the wood and a shaded wall round it: bare wood makes
no such outline (vision/shape.outlined_light_top). Where a veil the glare estimate missed squeezes the
picture near white, the rim's fall is short of what the frame's bare wood gives, so the rim-without-top
check (vision/shape.rim_without_top) let such a defender be read a sure empty.
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
from vision.shape import Outline, outlined_light_top  # noqa: E402

SURE = 0.9


def _outline(roundness: float, sharpness: float, lift: float, wall: float) -> Outline:
    one = lambda v: np.array([v], np.float32)  # noqa: E731
    return Outline(sharpness=one(sharpness), sharpness_dark=one(0.0), lift=one(lift), fall=one(5.0), rise=one(2.0),
                   wall=one(wall), noise=1.5, wood_noise=one(1.5), roundness=one(roundness))


def test_only_the_whole_outline_of_a_light_piece_counts():
    empty = np.array([[0.99, 0.0, 0.01, 0.0]])
    assert outlined_light_top(empty, _outline(0.96, 0.66, 5.0, 6.0))[0]
    assert not outlined_light_top(empty, _outline(0.96, 0.66, 5.0, 2.6))[0]     # no wall: a veil's round core
    assert not outlined_light_top(empty, _outline(0.70, 0.66, 5.0, 6.0))[0]     # not one circle
    assert not outlined_light_top(empty, _outline(0.96, 0.40, 5.0, 6.0))[0]     # a soft rim
    assert not outlined_light_top(empty, _outline(0.96, 0.66, 1.0, 6.0))[0]     # a top no lighter than the wood
    defender = np.array([[0.01, 0.0, 0.99, 0.0]])
    assert not outlined_light_top(defender, _outline(0.96, 0.66, 5.0, 6.0))[0]  # read a piece already


def test_a_defender_under_a_missed_streak_is_no_sure_empty():
    """Hard light, fresh seeds 152,045,017 e7: a defender under a bluish-white streak (veil share 0), wood at 241
    grey levels, read a sure empty (0.99)."""
    size, truth, probs = foreign_vision.frame_reading("hard", 152_000_000, 45)
    e7 = parse_square("e7", size)
    assert int(truth[e7]) == int(SquareClass.DEFENDER)
    assert int(probs[e7].argmax()) == int(SquareClass.DEFENDER), f"e7 read {np.round(probs[e7], 2)}"
    assert probs[e7].max() < SURE
    wrong = probs.argmax(1) != truth
    assert not (wrong & (probs.max(1) >= SURE)).any()
