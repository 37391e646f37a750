"""A piece whose colour a veil could explain but whose rim is sharp is never a sure empty square.

Frames of the held-out renderer (bench/foreign_renderer.py), hard light,
development seeds: 15,010,017 e3, a defender tinted by the light, its top no
lighter than its wood, under a veil of 0.67 of the light; 12,012,017 b4, an
attacker under a veil of 0.85. The colour read a light piece on both, the disc
no lighter than the wood took the piece's share away, and as the veil could
explain the colour the square was read a sure empty (0.93 and 0.96). A veil
explains the colour, not the sharp rim round the top (vision/reader.py
`missed`): both are now held back, as a wrong guess the kiosk looks at again.
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
from vision.position import SquareClass  # noqa: E402

SURE = 0.9


@pytest.mark.parametrize("seed0,k,square,piece", [(15_000_000, 10, "e3", SquareClass.DEFENDER),
                                                  (12_000_000, 12, "b4", SquareClass.ATTACKER)])
def test_a_rimmed_piece_under_a_veil_is_no_sure_empty(seed0, k, square, piece):
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(piece)
    p = probs[sq]
    assert int(p.argmax()) == int(piece) or p.max() < SURE, f"{square} read {np.round(p, 2)}"


def test_a_king_known_by_his_crown_under_a_veil_stays_the_king():
    """Museum light, seeds 85,014,017 a8 (measured fresh, then looked at): the king under a veil of
    0.36, his crown plainly gold and his disc no lighter than the wood; held back for his disc, he
    went to the dark disc's fallback and was read an attacker. The king is left out of the rule."""
    seed0, k = 85_000_000, 14
    size, truth, probs = foreign_vision.frame_reading("museum", seed0, k)
    sq = parse_square("a8", size)
    assert int(truth[sq]) == int(SquareClass.KING)
    p = probs[sq]
    assert int(p.argmax()) == int(SquareClass.KING), f"a8 read {np.round(p, 2)}"
