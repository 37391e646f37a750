"""An attacker with no edge on its circle, by the colour alone or by a shadow's patch, is an empty square's best guess.

Frames of the held-out renderer (bench/foreign_renderer.py), hard light, development seeds.
- No dark top: an empty square of dim wood (50-100 grey levels) darkened across its middle by the light's
  falling-off was read an attacker (0.49-0.58): the colour is read against the square's own bare wood. No top
  stood below the wood out of the noise, and the disc's circle had hardly any edge (0.17-0.19, where the
  attackers the colour read without a dark top seen had 0.38-0.66).
- A shadow: an empty square under a shadow's patch, dark enough to be seen as a dark top, was read an attacker
  (0.49-0.66); its circle's edge 0.12-0.14 and its rim's sharpest rise 2.3-3.5 noise sigmas, where a piece's
  rim rises within the lens blur (the frames' attackers: 1 % under 6.5 sigmas).
Such a square now goes to the prior with the shape conflict's doubt, its dark disc not counted
(vision/shape.dark_without_edge): empty, held back.
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


@pytest.mark.parametrize("seed0,k,square", [(16_000_000, 41, "k10"), (15_000_000, 29, "k2"), (13_000_000, 1, "a3"),
                                             (15_000_000, 5, "c7"), (15_000_000, 42, "i5"), (13_000_000, 11, "c6")])
def test_an_attacker_with_no_top_and_no_edge_is_read_empty(seed0, k, square):
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(SquareClass.EMPTY)
    assert int(probs[sq].argmax()) == int(SquareClass.EMPTY), f"{square} read {np.round(probs[sq], 2)}"
    assert probs[sq].max() < 0.9, "a square the colour read a piece is held back, not a sure empty"
    # the frame's attackers, each with its edge, are still read attackers
    a = int(SquareClass.ATTACKER)
    attackers = np.nonzero(truth == a)[0]
    assert (probs[attackers].argmax(1) == a).mean() >= 0.9
