"""A pale arm under a bright lamp is a hand, though the glare check would take it for light.

Frames of the held-out renderer (bench/foreign_renderer.py), museum light,
development seeds 15,000,000, each with a visitor's arm over the board; both were
read as a board (vision/occlusion.py, vision/reader.py):

- 15,025,029: a pale arm over a3-d3 clipped white along its top. Clipped wood
  round a crossing never counted as covered (a veil's core clips too), so of
  the six crossings it hid only two, not side by side, were left.
- 15,035,029: a pale hand over two crossings, their lines gone in the picture
  as taken. The veil's estimate took the hand's light for a veil, and with it
  taken off the hand's shading passed for lines; the picture as taken was only
  consulted once the veil-free look had found a patch itself.

A strong veil without a hand is still read (tests/test_vision_glare_not_a_hand.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.localise import NotReadable  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

SEED0 = 15_000_000


@pytest.mark.parametrize("k", [25, 35])
def test_a_pale_arm_in_bright_light_is_a_hand(k):
    sample, image = foreign_vision.frame("museum", SEED0, k, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)


def test_a_pale_hand_whose_crossings_the_lamp_squeezes_white_is_a_hand():
    """Museum light, development seeds 10,020,029: a pale hand under a lamp hides two crossings near white in
    the picture as taken, seven with the veil taken off. Two crossings squeezed white by a veil alone are no
    hand (vision/occlusion.SQUEEZED_PATCH); the veil-free look's patch round them makes this one."""
    sample, image = foreign_vision.frame("museum", 10_000_000, 20, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)
