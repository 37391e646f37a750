"""A dark patch with no step round it is a shadow as likely as an attacker: never a sure attacker.

Frames of the held-out renderer (bench/foreign_renderer.py), hard light, development seeds. In each, an
empty square under a shadow's edge read a sure attacker (0.94-1.0): its top darker than the corner
patches' wood, but its disc's circle with hardly any edge (the "edge" feature 0.15-0.17, where the
frames' attackers had 0.5-0.7). A dark piece's top against the lighter wood makes that step; a soft
shadow does not. Such a square is now held back (vision/reader.py SOFT_EDGE), its best guess kept.
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


@pytest.mark.parametrize("seed0,k,square", [(16_000_000, 20, "b3"), (12_000_000, 16, "c7"), (15_000_000, 0, "i4")])
def test_a_shadow_without_a_rim_is_no_sure_attacker(seed0, k, square):
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    sq = parse_square(square, size)
    a = int(SquareClass.ATTACKER)
    assert int(truth[sq]) == int(SquareClass.EMPTY)
    assert not (int(probs[sq].argmax()) == a and probs[sq].max() >= SURE), f"{square} read {np.round(probs[sq], 2)}"
    # the frame's attackers, each with its rim, are still read sure attackers
    attackers = np.nonzero(truth == a)[0]
    sure = (probs[attackers].argmax(1) == a) & (probs[attackers].max(1) >= SURE)
    assert sure.mean() >= 0.6, f"only {int(sure.sum())} of {len(attackers)} attackers sure"
