"""Under a veil of glare, a piece's shaded wall is left when its top and its rim's step are washed out.

Frames of the held-out renderer (bench/foreign_renderer.py), development seeds. A veil adds light smoothly
over wood, lines and pieces alike: an attacker's or a defender's top comes out near the wood's grey and the
colour reads the square empty; but the piece still stands, and its side wall and shadow make a dark arc
round the top that a veil over bare wood does not make (vision/shape.wall_under_veil). Such a square is now
held back, its best guess the piece its top says. An empty square under a veil whose wall comes nearest
(museum 93,061,017 g5, 3.5 times the bare wood's) stays empty.

A rim that is not round (an edge square's ring reaching over the border line into the dark frame) is no
light piece's rim (vision/shape.rim_without_top).
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
from vision.shape import WALL_VEIL_RATIO, Outline, rim_without_top, wall_under_veil  # noqa: E402

SURE = foreign_vision.CONFIDENT
HELD = 0.6          # the move reader's doubt (vision/inference.py): a square below it is held back


@pytest.mark.parametrize("seed0,k,square,piece", [
    (101_000_000, 35, "b7", SquareClass.ATTACKER), (15_000_000, 7, "e9", SquareClass.ATTACKER),
    (98_000_000, 39, "h2", SquareClass.ATTACKER), (101_000_000, 8, "i5", SquareClass.DEFENDER),
    (94_000_000, 28, "e6", SquareClass.DEFENDER), (98_000_000, 28, "e5", SquareClass.DEFENDER)])
def test_a_piece_washed_out_by_a_veil_is_known_by_its_wall(seed0, k, square, piece):
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(piece)
    assert int(probs[sq].argmax()) == int(piece), f"{square} read {np.round(probs[sq], 2)}"
    assert probs[sq].max() < HELD, "a piece the veil washed out is never read surely"
    empty = np.nonzero(truth == int(SquareClass.EMPTY))[0]
    assert (probs[empty].argmax(1) == int(SquareClass.EMPTY)).mean() >= 0.95


def test_the_empty_square_whose_wall_comes_nearest_stays_empty():
    size, truth, probs = foreign_vision.frame_reading("museum", 93_000_000, 61)
    sq = parse_square("g5", size)
    assert int(truth[sq]) == int(SquareClass.EMPTY)
    assert int(probs[sq].argmax()) == int(SquareClass.EMPTY), f"g5 read {np.round(probs[sq], 2)}"


def test_an_edge_square_s_ring_over_the_frame_is_no_rim():
    size, truth, probs = foreign_vision.frame_reading("museum", 102_000_000, 98)
    sq = parse_square("a2", size)
    assert int(truth[sq]) == int(SquareClass.EMPTY)
    assert int(probs[sq].argmax()) == int(SquareClass.EMPTY), f"a2 read {np.round(probs[sq], 2)}"


def _outline(n: int, wall: np.ndarray, fall: np.ndarray, lift: np.ndarray, roundness: np.ndarray) -> Outline:
    flat = np.zeros(n)
    return Outline(sharpness=flat + 0.9, sharpness_dark=flat, lift=lift, noise=2.0, fall=fall, rise=flat,
                   wall=wall, wood_noise=flat + 2.0, roundness=roundness)


def test_wall_under_veil_wants_a_veil_an_empty_reading_and_a_wall_far_deeper_than_bare_wood_s():
    n = 20
    empty = np.tile([[0.9, 0.05, 0.03, 0.02]], (n, 1))
    wall = np.full(n, 1.5)                      # the bare wood's walls: 95th percentile 1.5
    deep = WALL_VEIL_RATIO * 1.5 + 0.5
    wall[:4] = deep
    plain = np.zeros(n, bool)
    plain[4:] = True
    veiled = np.zeros(n, bool)
    veiled[[0, 1, 2]] = True
    probs = empty.copy()
    probs[1] = [0.1, 0.1, 0.7, 0.1]             # read a defender already: not this rule's
    out = _outline(n, wall, np.full(n, 3.0), np.zeros(n), np.ones(n))
    got = wall_under_veil(probs, out, plain, veiled)
    assert got.tolist() == [True, False, True] + [False] * (n - 3)     # square 3: deep wall, but no veil
    shallow = _outline(n, np.where(np.arange(n) < 4, WALL_VEIL_RATIO * 1.5 - 0.5, 1.5), np.full(n, 3.0),
                       np.zeros(n), np.ones(n))
    assert not wall_under_veil(probs, shallow, plain, veiled).any()
    few = np.zeros(n, bool)
    few[4:8] = True                             # too few plainly empty squares to know the bare wood by
    assert not wall_under_veil(probs, out, few, veiled).any()


def test_rim_without_top_wants_a_round_rim():
    n = 20
    probs = np.tile([[0.9, 0.05, 0.03, 0.02]], (n, 1))
    fall = np.full(n, 4.0)
    fall[0] = fall[1] = 15.0                    # 2.5 x the bare wood's 4 (and more)
    roundness = np.ones(n)
    roundness[1] = 0.38                         # the ring reaches into the frame on one side
    plain = np.zeros(n, bool)
    plain[2:] = True
    out = _outline(n, np.zeros(n), fall, np.zeros(n), roundness)
    assert rim_without_top(probs, out, plain).tolist()[:2] == [True, False]
