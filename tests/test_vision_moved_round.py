"""A light piece set down further off its square's centre than the rays' start is still round.

WHY: Outline.roundness casts its rays from the top the reader expects, starting INNER piece radii out; a
piece set down about 0.7 radii off it has rays that start on the wood beyond its rim on one side, and no
circle explains them: its sharp, lifted disc then counted as no rim at all, and a defender the colour read
plainly was made a sure empty (hard light, seeds 145,081,017 k9: 1.0). The rays are now cast again from tops
moved ROUND_MOVED_SHIFT radii (vision/shape.OutlineMeter._moved_round).

The first test measures discs drawn here (a band of light's edge stays not round:
tests/test_vision_round_rim.py); the second reads that frame of the held-out renderer.
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
from engine.types import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.shape import ROUND_RIM, OutlineMeter  # noqa: E402

RADIUS = 12.0          # px, a piece's top
SIDE = 64              # px, one square's picture
WOOD = 170


def _disc_at(shift: tuple[int, int]) -> np.ndarray:
    """One square's picture: wood, its grid lines, an ivory disc `shift` px off the centre, blur and noise."""
    img = np.full((SIDE, SIDE), WOOD, np.float32)
    img[:2, :] = img[-2:, :] = img[:, :2] = img[:, -2:] = 90
    cv2.circle(img, (SIDE // 2 + shift[0], SIDE // 2 + shift[1]), int(RADIUS), 235, -1)
    noisy = cv2.GaussianBlur(img, (0, 0), 0.8) + np.random.default_rng(3).normal(0.0, 1.5, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("shift", [(9, 0), (6, 6), (0, -9), (-8, -4)])
def test_a_disc_set_down_far_off_centre_is_round(shift):
    """0.7-0.75 radii off: with the rays cast from the expected top alone, 0.54-0.67 of them were explained."""
    centre = np.array([[SIDE / 2, SIDE / 2]])
    outline = OutlineMeter(RADIUS, SIDE / 2 - 2).measure(_disc_at(shift), centre, centres=centre)
    assert outline.roundness[0] >= ROUND_RIM[1], f"roundness {outline.roundness[0]:.2f}"


def test_the_defender_set_off_its_centre_is_read_a_defender():
    size, truth, probs = foreign_vision.frame_reading("hard", 145_000_000, 81)
    k9 = parse_square("k9", size)
    assert int(truth[k9]) == int(SquareClass.DEFENDER)
    assert int(probs[k9].argmax()) == int(SquareClass.DEFENDER), f"k9 read {np.round(probs[k9], 2)}"
