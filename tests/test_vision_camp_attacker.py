"""A light piece read on a Tablut camp is an attacker: no light piece ever stands there.

`board-9` is Tablut's board alone (docs/hardware.md), and in Tablut "Swedes and the king never enter
camps" (docs/rules.md). Frames of the held-out renderer (bench/foreign_renderer.py), development seeds:
attackers on the camps' darker fill, a lamp's gloss making their tops as grey as the fill, were read
defenders (0.5). Their light share is now the attacker's, held back (vision/reader.py, CAMP_ATTACKER_SURE).
Only a reading in doubt (CAMP_LIGHT_DOUBT): a light piece the camera plainly sees on a camp is read as one
(a visitor's illegal move must be named; tests/test_vision_marked_squares.py).
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
from vision.position import SquareClass, camp_squares, marked_squares, throne_square  # noqa: E402
from vision.reader import CAMP_ATTACKER_SURE  # noqa: E402


def test_the_camps_are_tablut_s_sixteen_marked_squares_and_no_other_board_has_any():
    camps = camp_squares(9)
    assert len(camps) == 16
    assert throne_square(9) not in camps
    assert camps < marked_squares(9)
    assert {parse_square(s, 9) for s in ("d1", "e1", "f1", "e2", "a5", "b5", "i5", "h5", "e9", "e8")} <= camps
    assert camp_squares(11) == frozenset()


@pytest.mark.parametrize("condition, seed0, k, square", [("museum", 11_000_000, 15, "a5"),
                                                         ("museum", 93_000_000, 23, "f1"),
                                                         ("hard", 13_000_000, 15, "a5")])
def test_a_glossy_attacker_on_a_camp_is_an_attacker_held_back(condition, seed0, k, square):
    size, truth, probs = foreign_vision.frame_reading(condition, seed0, k)
    assert size == 9
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(SquareClass.ATTACKER)
    assert int(probs[sq].argmax()) == int(SquareClass.ATTACKER), f"{square} read {np.round(probs[sq], 2)}"
    assert probs[sq].max() <= CAMP_ATTACKER_SURE + 1e-9
    # no camp square of the frame reads a light piece
    camps = sorted(camp_squares(size))
    light = np.isin(probs[camps].argmax(1), (int(SquareClass.DEFENDER), int(SquareClass.KING)))
    assert not light.any()
