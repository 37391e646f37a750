"""An attacker on a marked square whose top a lamp's gloss lifts to the fill's brightness is an attacker.

Frames of the held-out renderer (bench/foreign_renderer.py), museum light,
development seeds 11,003,017 (e9) and 13,031,017 (e8): attackers on Tablut's
camp squares, whose darker fill leaves a near-black piece little room below it.
Their tops stood a few grey levels above the fill; the colour read them as
attackers, but with no dark step the shape check took 40 % of their share and
doubted them, and both were read empty (held back). Their outline, falling from
the lit top into the piece's own shadow, is as plain as a seen disc's
(vision/shape.lit_dark_top); bare fill has none, so an empty camp square is
still read empty.
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
from engine import parse_square  # noqa: E402
from vision.position import SquareClass, marked_squares  # noqa: E402


@pytest.mark.parametrize("seed0,k,square", [(11_000_000, 3, "e9"), (13_000_000, 31, "e8")])
def test_an_attacker_with_a_lit_top_on_a_camp_square_is_read(seed0, k, square):
    size, truth, probs = foreign_vision.frame_reading("museum", seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(SquareClass.ATTACKER)
    assert int(probs[sq].argmax()) == int(SquareClass.ATTACKER), f"{square} read {np.round(probs[sq], 2)}"
    marked = sorted(marked_squares(size))
    wrong = [q for q in marked if int(probs[q].argmax()) != int(truth[q])]
    assert not wrong, f"marked squares misread: {wrong}"
