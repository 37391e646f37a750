"""The piece whose crown is plainly the goldest of the frame's light pieces is the king's best guess
(vision/classifier.SquareClassifier.gold_king), whatever the disc checks made of him.

Frames of the held-out renderer (bench/foreign_renderer.py), museum light. The king's gold crown may sit
darker than the wood (the disc then reads a dark top) or be greyed by a veil (the colour then reads a
defender or an attacker), while another light piece was given the king. Only the king has a gold top.
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
from vision.classifier import KING_DOUBT, SquareClassifier  # noqa: E402
from vision.position import SquareClass  # noqa: E402

K, D, E, A = (int(c) for c in (SquareClass.KING, SquareClass.DEFENDER, SquareClass.EMPTY, SquareClass.ATTACKER))


@pytest.mark.parametrize("seed0,k,king,rival,held", [
    # his crown darker than the near-white wood: read an attacker (0.44); his top, set off centre, is now found
    # light, sharp and round a third of a radius off the expected one (vision/shape.moved_light_top): sure
    (12_000_000, 41, "k3", None, False),
    (14_000_000, 45, "d6", "c5", True),   # under a veil: read a defender (0.49), c5 the king (0.58)
    (94_000_000, 52, "k8", "f3", True),   # greyed at the board's edge: read a defender (0.49), f3 the king (0.60)
])
def test_the_goldest_crown_is_the_kings_best_guess(seed0, k, king, rival, held):
    size, truth, probs = foreign_vision.frame_reading("museum", seed0, k)
    sq = parse_square(king, size)
    assert int(truth[sq]) == K
    assert int(probs[sq].argmax()) == K, f"the king read {np.round(probs[sq], 2)}"
    if held:
        assert probs[sq].max() < 0.9, "a king known by his crown alone against the disc is held back"
    assert [int(q) for q in np.nonzero(probs.argmax(1) == K)[0]] == [sq]
    if rival is not None:
        r = parse_square(rival, size)
        assert int(truth[r]) == D and int(probs[r].argmax()) == D, f"{rival} read {np.round(probs[r], 2)}"


def _frame(n: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Probabilities of a frame with six plain defenders (crowns about 0.3) and empty squares."""
    p = np.tile([0.95, 0.02, 0.02, 0.01], (n, 1))
    p[:6] = [0.0, 0.0, 1.0, 0.0]
    crown = np.full(n, 0.35)
    crown[:6] = [0.30, 0.32, 0.28, 0.31, 0.33, 0.29]
    return p, crown, np.ones(n, bool)


def test_a_gold_crown_read_as_an_attacker_by_its_dark_top_becomes_the_king():
    p, crown, piece = _frame()
    p[10] = [0.1, 0.5, 0.1, 0.3]              # the disc took him for a dark top; the colour read the king
    colour = p.copy()
    colour[10] = [0.0, 0.0, 0.0, 1.0]
    crown[10] = -0.4
    out = SquareClassifier.gold_king(p, crown, colour, piece)
    assert int(out[10].argmax()) == K and out[10, K] == pytest.approx(KING_DOUBT + (1 - KING_DOUBT) * 0.3)


def test_no_king_is_made_where_the_crown_is_not_plainly_the_goldest():
    p, crown, piece = _frame()
    p[10] = [0.1, 0.5, 0.4, 0.0]
    crown[10] = 0.15                           # yellower than the defenders, but by less than KING_GAP
    out = SquareClassifier.gold_king(p, crown, p, piece)
    assert np.array_equal(out, p)


def test_no_king_is_made_of_a_dark_piece_or_of_a_square_with_no_piece_seen():
    p, crown, piece = _frame()
    p[10] = [0.1, 0.3, 0.6, 0.0]
    crown[10] = -0.5
    piece[10] = False                          # gold-tinted wood, or an attacker's top under a veil
    assert np.array_equal(SquareClassifier.gold_king(p, crown, p, piece), p)


def test_the_defender_that_held_the_king_gives_him_up_and_is_no_sure_defender():
    p, crown, piece = _frame()
    p[3] = [0.0, 0.0, 0.05, 0.95]              # a defender the colour made the king
    p[10] = [0.2, 0.0, 0.8, 0.0]
    crown[10] = -0.3
    out = SquareClassifier.gold_king(p, crown, p, piece)
    assert int(out[10].argmax()) == K
    assert int(out[3].argmax()) == D and out[3].max() < 0.9
    assert np.allclose(out.sum(1), 1.0)
