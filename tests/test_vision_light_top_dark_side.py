"""A light piece whose side wall shows dark under the camera's tilt is not a dark disc.

Frames of the held-out renderer (bench/foreign_renderer.py), development seeds. Seen from a camera
tilted towards a square, a piece's top stands off its base away from the camera, and the side wall
between them shows as a crescent on the camera's side; in light from the far side that wall is in
shade, nearly black under a white top. Round the top, more than half the rays then started on that
crescent: the top read darker than its wood, its dark rim sharp, and a white defender on near-white
wood went to the dark disc's best guess, an attacker (vision/shape.dark_lift). On the rays away from
the camera no wall shows; where the top there is no darker than the square's wood, it is judged a
dark top only if those rays say so too.
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
from vision.shape import Outline, dark_lift  # noqa: E402


@pytest.mark.parametrize("condition,seed0,k,square", [
    ("museum", 96_000_000, 39, "b7"), ("museum", 102_000_000, 72, "f4"),
    ("hard", 11_000_000, 5, "d2"), ("hard", 98_000_000, 55, "f6")])
def test_a_white_top_over_its_own_dark_wall_is_a_defender(condition, seed0, k, square):
    size, truth, probs = foreign_vision.frame_reading(condition, seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(SquareClass.DEFENDER)
    assert int(probs[sq].argmax()) == int(SquareClass.DEFENDER), f"{square} read {np.round(probs[sq], 2)}"
    attackers = np.nonzero(truth == int(SquareClass.ATTACKER))[0]     # no dark top made a light one
    assert not (probs[attackers].argmax(1) == int(SquareClass.DEFENDER)).any()


def outline(lift: float, lift_far: float | None, top_far: float | None) -> Outline:
    one = np.ones(1)
    return Outline(sharpness=one, sharpness_dark=one, lift=one * lift, noise=2.0, fall=one, rise=one, wall=one,
                   wood_noise=one, roundness=one, lift_far=None if lift_far is None else one * lift_far,
                   top_far=None if top_far is None else one * top_far)


@pytest.mark.parametrize("lift,lift_far,top_far,expected", [
    (-11.0, 18.0, 250.0, 18.0),     # white top, dark wall on the camera's side: the far rays' lift
    (-11.0, 18.0, 230.0, -11.0),    # the top darker than the wood on the far rays too: an attacker's
    (-20.0, 5.0, 100.0, -20.0),     # an attacker whose far side's wood lies in his shadow
    (-11.0, None, None, -11.0),     # no far rays measured (a camera straight above)
])
def test_a_top_is_dark_only_if_the_rays_away_from_the_camera_say_so_too(lift, lift_far, top_far, expected):
    wood = np.array([240.0])
    assert float(dark_lift(outline(lift, lift_far, top_far), wood)[0]) == expected
