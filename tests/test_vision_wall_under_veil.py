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

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from engine.types import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.shape import (WALL_AMONG_VEILED, WALL_VEIL_RATIO, WALL_WITH_VEILED, Outline, OutlineMeter,  # noqa: E402
                          rim_without_top, wall_under_veil, washed_dark_top)

SURE = foreign_vision.CONFIDENT
HELD = 0.6          # held back as a piece known by its wall alone is (RIM_ONLY_SURE 0.5 and a margin)


@pytest.mark.parametrize("seed0,k,square,piece,below", [
    (101_000_000, 35, "b7", SquareClass.ATTACKER, HELD), (15_000_000, 7, "e9", SquareClass.ATTACKER, HELD),
    (98_000_000, 39, "h2", SquareClass.ATTACKER, HELD), (101_000_000, 8, "i5", SquareClass.DEFENDER, HELD),
    (94_000_000, 28, "e6", SquareClass.DEFENDER, SURE), (98_000_000, 28, "e5", SquareClass.DEFENDER, HELD)])
def test_a_piece_washed_out_by_a_veil_is_known_by_its_wall(seed0, k, square, piece, below):
    """`below`: e6's rim, crisp and round under the veil, makes it a piece's edge too (vision/shape.crisp_rim),
    so its colour's reading stands (0.85), in doubt still; the others are held back as the wall alone is."""
    size, truth, probs = foreign_vision.frame_reading("hard", seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(piece)
    assert int(probs[sq].argmax()) == int(piece), f"{square} read {np.round(probs[sq], 2)}"
    assert probs[sq].max() < below, "a piece the veil washed out is never read surely"
    empty = np.nonzero(truth == int(SquareClass.EMPTY))[0]
    assert (probs[empty].argmax(1) == int(SquareClass.EMPTY)).mean() >= 0.95


@pytest.mark.parametrize("condition,seed0,k,square,piece", [
    ("hard", 102_000_000, 3, "g2", SquareClass.ATTACKER), ("hard", 11_000_000, 9, "f5", SquareClass.DEFENDER),
    ("hard", 100_000_000, 25, "f6", SquareClass.KING), ("museum", 93_000_000, 6, "d6", SquareClass.DEFENDER)])
def test_a_piece_read_empty_in_doubt_is_known_by_a_wall_deeper_than_the_veiled_squares(condition, seed0, k, square,
                                                                                        piece):
    """Walls under WALL_VEIL_RATIO times bare wood's, but far deeper than the frame's other veiled squares
    read empty have: the piece is the best guess, held back."""
    size, truth, probs = foreign_vision.frame_reading(condition, seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(piece)
    assert int(probs[sq].argmax()) == int(piece), f"{square} read {np.round(probs[sq], 2)}"
    assert probs[sq].max() < HELD


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


def test_a_doubtful_empty_square_s_wall_is_measured_against_the_other_veiled_squares_too():
    n = 50
    probs = np.tile([[0.55, 0.15, 0.15, 0.15]], (n, 1))    # the veil's doubt
    wall = np.full(n, 1.0)                      # veiled squares read empty: 90th percentile 1.0
    plain = np.zeros(n, bool)
    plain[30:] = True                           # bare wood out of the veils: 95th percentile 1.0
    veiled = ~plain
    probs[plain] = [0.95, 0.02, 0.02, 0.01]
    wall[0] = wall[1] = WALL_AMONG_VEILED * 1.0 + 0.2            # under WALL_VEIL_RATIO x bare wood's
    assert WALL_AMONG_VEILED * 1.0 + 0.2 < WALL_VEIL_RATIO * 1.0
    probs[1] = [0.8, 0.1, 0.05, 0.05]           # read empty surely: not this rule's
    out = _outline(n, wall, np.full(n, 3.0), np.zeros(n), np.ones(n))
    assert wall_under_veil(probs, out, plain, veiled).tolist() == [True] + [False] * (n - 1)
    blown = np.zeros(n, bool)
    blown[2:23] = True                          # too few veiled squares left to measure by (9)
    assert not wall_under_veil(probs, out, plain, veiled, blown).any()
    deep_bare = wall.copy()
    deep_bare[plain] = wall[0] / WALL_WITH_VEILED + 0.5   # bare wood's own walls nearly as deep
    out = _outline(n, deep_bare, np.full(n, 3.0), np.zeros(n), np.ones(n))
    assert not wall_under_veil(probs, out, plain, veiled).any()


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


def _faint_dark_disc(wood: int, top: int, sigma: float) -> np.ndarray:
    """A dark top `wood - top` grey levels under its wood, a sharp disc of a piece's size, in noise `sigma`."""
    gray = np.full((120, 120), wood, np.float32)
    cv2.circle(gray, (60, 60), 10, top, -1)
    blurred = cv2.GaussianBlur(gray, (0, 0), 0.8) + np.random.default_rng(2).normal(0.0, sigma, gray.shape)
    return np.clip(np.round(blurred), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("wood,top,sigma,veiled,washed", [
    (252, 246, 0.4, True, True),        # wood all but clipped, its scatter squeezed: 6 levels stand out
    (252, 246, 0.4, False, False),      # no veil to have washed a dark top out
    (240, 234, 3.0, True, False),       # wood short of clipping, grainy: 6 levels are its own scatter
    (252, 252, 0.4, True, False)])      # bare wood
def test_a_faint_dark_top_near_white_is_an_attacker_washed_out(wood, top, sigma, veiled, washed):
    outline = OutlineMeter(10.0).measure(_faint_dark_disc(wood, top, sigma), np.array([[60.0, 60.0]]))
    empty = np.array([[0.6, 0.1, 0.2, 0.1]])
    assert bool(washed_dark_top(empty, outline, np.array([float(wood)]), np.array([veiled]),
                                np.array([False]))[0]) is washed
    assert not washed_dark_top(empty, outline, np.array([float(wood)]), np.array([veiled]), np.array([True]))[0]


def test_attackers_washed_near_white_are_held_back_as_attackers():
    """Hard light, seeds 145,093,017: three attackers under a veil at 251-255 grey levels, their tops 4-8 levels
    darker than the wood with sharp dark rims, read empty (0.37-0.5); the frame's empty squares stay empty."""
    size, truth, probs = foreign_vision.frame_reading("hard", 145_000_000, 93)
    for name in ("i4", "g6", "g7"):
        sq = parse_square(name, size)
        assert int(truth[sq]) == int(SquareClass.ATTACKER)
        assert int(probs[sq].argmax()) == int(SquareClass.ATTACKER), f"{name} read {np.round(probs[sq], 2)}"
        assert probs[sq].max() < SURE
    empty = truth == int(SquareClass.EMPTY)
    assert (probs[empty].argmax(1) == int(SquareClass.EMPTY)).mean() >= 0.98


@pytest.mark.parametrize("condition,seed0,k,square", [("hard", 148_000_000, 63, "f6"), ("museum", 149_000_000, 57, "a7")])
def test_a_wall_round_a_top_as_grey_as_the_veiled_wood_is_no_sure_light_piece(condition, seed0, k, square):
    """Hard light, fresh seeds 148,063,017 f6: an attacker under a veil of 0.85, his top 2.8 grey levels under the
    near-white wood, his wall 17 deep; the wall counted as a light piece's disc and the veiled colour said a
    defender (0.88): read a sure defender (0.91). Museum light, 149,057,017 a7: an attacker at the board's edge
    under a veil of 0.38, a lamp's gloss lifting his top to 1.3 grey levels above the wood, his black side wall
    80 deep: a sure defender (0.95). The wall says a piece, not which."""
    size, truth, probs = foreign_vision.frame_reading(condition, seed0, k)
    sq = parse_square(square, size)
    assert int(truth[sq]) == int(SquareClass.ATTACKER)
    assert probs[sq].max() < SURE, np.round(probs[sq], 2)
