"""A square that read about as likely the king as the square that keeps him is no sure defender.

Frame of the held-out renderer (bench/foreign_renderer.py), hard light, development seed 13,038,017. The
king on c10, under a veil, was picked out by his crown (the yellowest top by a clear gap) but only with
doubt (0.6: squares left out of the comparison might hide him); a defender under a green stage light on
b11 read 0.95 king by its colour, so the one-king rule kept the king there and made c10 a sure defender
(0.99): wrong and sure. A square that had at least half the king's share and lost him to another square is
now read at most KING_RIVAL_SURE sure (vision/classifier.py SquareClassifier.one_king): held back.
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
from vision.classifier import KING_FOUND, KING_RIVAL_SURE, SquareClassifier  # noqa: E402
from vision.position import SquareClass  # noqa: E402


def test_the_king_lost_to_a_rival_square_is_no_sure_defender():
    size, truth, probs = foreign_vision.frame_reading("hard", 13_000_000, 38)
    c10 = parse_square("c10", size)
    assert int(truth[c10]) == int(SquareClass.KING)
    assert int(probs[c10].argmax()) == int(SquareClass.KING) or probs[c10].max() < 0.9, \
        f"c10 read {np.round(probs[c10], 2)}"


def test_the_rival_keeps_its_best_guess_and_loses_its_certainty():
    """Two squares the colour reads as the king: the likelier keeps him, the other is a defender held back."""
    clf = SquareClassifier.load()
    k, d = int(SquareClass.KING), int(SquareClass.DEFENDER)
    p = np.zeros((5, 4))
    p[:, int(SquareClass.EMPTY)] = 1.0
    p[1] = [0.0, 0.0, 0.05, 0.95]
    p[2] = [0.0, 0.0, 0.4, 0.6]
    p[3] = [0.0, 0.0, 0.9, 0.1]
    # the one-king step alone, on ready posteriors (no features to adapt to)
    out = clf.one_king(p)
    assert out[1, k] == 0.95
    assert p[2, k] >= KING_FOUND and int(out[2].argmax()) == d and out[2].max() <= KING_RIVAL_SURE + 1e-9
    assert out[3, d] == 1.0          # a defender with a small king's share stays a sure defender


def test_a_second_square_read_the_king_after_the_checks_is_what_else_it_shows():
    """After the disc checks, a second "king" loses him to the likelier one and keeps the rest of its reading."""
    e, k = int(SquareClass.EMPTY), int(SquareClass.KING)
    p = np.zeros((4, 4))
    p[:, e] = 1.0
    p[1] = [0.04, 0.08, 0.18, 0.70]          # the king
    p[2] = [0.45, 0.05, 0.02, 0.48]          # bare wood whose colour was gold, its disc unseen
    out = SquareClassifier.second_kings(p)
    assert np.array_equal(out[1], p[1]) and np.array_equal(out[0], p[0])
    assert int(out[2].argmax()) == e and out[2, k] < 0.1 and out[2].max() <= KING_RIVAL_SURE + 1e-9
    # one king only: nothing changes
    assert np.array_equal(SquareClassifier.second_kings(p[[0, 1, 3]]), p[[0, 1, 3]])


def test_gold_tinted_bare_wood_loses_the_kings_guess_to_the_king():
    size, truth, probs = foreign_vision.frame_reading("museum", 145_000_000, 58)
    j10, f6 = parse_square("j10", size), parse_square("f6", size)
    assert int(truth[j10]) == int(SquareClass.EMPTY) and int(truth[f6]) == int(SquareClass.KING)
    assert int(probs[j10].argmax()) == int(SquareClass.EMPTY), f"j10 read {np.round(probs[j10], 2)}"
    assert int(probs[f6].argmax()) == int(SquareClass.KING)
