"""The evaluation's families, geometry and king-route terms on hand-built positions."""
from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.board import Board
from engine.evaluate import (FAMILY_WEIGHTS, FORK_WIN, NEAR_WIN, EvalWeights, evaluate_cells,
                             king_routes)
from engine.rules import rules_for
from engine.search import board_cells, geometry_for
from engine.otn import build_position as position
from engine.types import parse_square


@pytest.mark.parametrize("variant,options,family", [
    ("copenhagen", {}, "corner"),
    ("york", {}, "edge"),
    ("york", {"corner_escape": "true"}, "corner"),
    ("tablut", {}, "tablut"),
    ("tawlbwrdd", {}, "edge"),
    ("tawlbwrdd", {"corner_escape": "true"}, "corner"),
])
def test_each_variant_gets_its_family_weights(variant: str, options: dict, family: str) -> None:
    geo, weights = geometry_for(rules_for(variant, options))
    assert geo.family == family
    assert weights is FAMILY_WEIGHTS[family]
    assert isinstance(weights, EvalWeights) and weights.as_dict()["attacker"] == 100.0


def test_corner_family_targets_include_the_squares_next_to_the_corners() -> None:
    geo, _ = geometry_for(rules_for("copenhagen"))
    names = {n for n in ("a1", "b1", "a2", "k10", "j11") if parse_square(n, 11) in geo.targets}
    assert names == {"a1", "b1", "a2", "k10", "j11"}
    assert parse_square("c1", 11) not in geo.targets
    edge, _ = geometry_for(rules_for("tablut"))
    assert parse_square("e1", 9) not in edge.targets       # a camp square
    assert parse_square("c1", 9) in edge.targets


def test_king_routes_forks_and_freedom() -> None:
    # Copenhagen: king c3 on an empty corner region: c3-c1 reaches c1 (not a target),
    # c3-a3 reaches a3 (not a target); from c1 both b1 (next to a1) and ... count forks
    board = Board.from_otn("copenhagen", position(11, "f8 h9", "j9", "c3"), turn="attackers")
    geo, _ = geometry_for(board.rules)
    r1, forks, r2, freedom = king_routes(board_cells(board), parse_square("c3", 11), geo)
    assert r1 == 0
    assert forks >= 2          # e.g. c1 sees b1 and k1-side j1; a3 sees a2 and a10...
    assert freedom == 20       # c3 sees c1-c2, a3-b3, d3-k3, c4-c11
    assert r2 >= 4


def test_a_corner_and_the_square_next_to_it_on_one_line_are_one_route() -> None:
    # King on k4, k5 shut: k3-k2-k1 is one line to the corner; one blocker on
    # k3 or k2 shuts it, so it is one route (it used to count as two, which made
    # every edge approach look unstoppable to the attackers)
    board = Board.from_otn("copenhagen", position(11, "k5 f8 h9", "j9", "k4"), turn="attackers")
    geo, w = geometry_for(board.rules)
    r1, _forks, _r2, _freedom = king_routes(board_cells(board), parse_square("k4", 11), geo)
    assert r1 == 1
    assert -NEAR_WIN // 2 < evaluate_cells(board_cells(board), True, geo, w) < 0
    # with k5 open too, the king has two lines (to k1 and k11): two routes
    open_both = Board.from_otn("copenhagen", position(11, "f8 h9", "j9", "k4"), turn="attackers")
    r1, *_ = king_routes(board_cells(open_both), parse_square("k4", 11), geo)
    assert r1 == 2


def test_static_wins_are_seen_from_both_sides() -> None:
    board = Board.from_otn("copenhagen", position(11, "c5 d7", "e5", "a5"), turn="defenders")
    geo, w = geometry_for(board.rules)
    assert evaluate_cells(board_cells(board), False, geo, w) == NEAR_WIN
    # attackers to move facing two open lines (a5-a1 and a5-a11): near lost
    assert evaluate_cells(board_cells(board), True, geo, w) <= -NEAR_WIN // 2
    # a fork one king move away, defenders to move: FORK_WIN territory
    fork = Board.from_otn("copenhagen", position(11, "c2 b4 e6 g6", "e5", "c3"), turn="defenders")
    score = evaluate_cells(board_cells(fork), False, geo, w)
    assert FORK_WIN // 2 < score < NEAR_WIN


def test_material_is_counted_against_the_start() -> None:
    for v in ("copenhagen", "york", "tablut", "tawlbwrdd"):
        b = Board(v)
        geo, w = geometry_for(b.rules)
        s = evaluate_cells(board_cells(b), True, geo, w)
        assert abs(s) < 300, (v, s)    # the start is roughly level, not a material offset


def _route3_by_hand(board: Board, geo) -> int:
    """Targets first reached in exactly three king moves, by a plain breadth-first walk."""
    cells = board_cells(board)
    dist = {board.king_square: 0}
    frontier = [board.king_square]
    for d in (1, 2, 3):
        nxt = []
        for sq in frontier:
            if d > 1 and sq in geo.targets:
                continue        # the king stops on a target: the game is decided there
            for line in geo.rays[sq]:
                for s in line:
                    if cells[s] or s in geo.king_blocked:
                        break
                    if s not in dist:
                        dist[s] = d
                        nxt.append(s)
        frontier = nxt
    return sum(1 for s, d in dist.items() if d == 3 and s in geo.targets)


@pytest.mark.parametrize("variant", ["copenhagen", "york", "tablut", "tawlbwrdd"])
def test_bitboard_route3_matches_a_plain_walk(variant: str) -> None:
    import random

    from engine.levels import get_level
    from engine.search import Searcher

    rng = random.Random(17)
    board = Board(variant)
    checked = 0
    for _ in range(60):
        moves = board.legal_moves
        if not moves or board.outcome() is not None:
            break
        board.push(moves[rng.randrange(len(moves))])
        s = Searcher(board, get_level("easy"))
        assert s._route3(board_cells(board)) == _route3_by_hand(board, s.geo)
        checked += 1
    assert checked >= 20


def test_a_diagonal_guard_seals_its_corner_from_the_kings_region() -> None:
    # a3-b2-c1 cuts a1 (and a2, b1) off; take b2 away and the king walks round
    sealed = Board.from_otn("copenhagen", position(11, "a3 b2 c1 k5", "e8", "f6"), turn="attackers")
    zone_a1 = sum(1 << parse_square(s, 11) for s in ("a1", "a2", "b1"))
    assert not sealed.king_region() & zone_a1
    assert sealed.king_region() >> parse_square("k11", 11) & 1
    gap = Board.from_otn("copenhagen", position(11, "a3 d4 c1 k5", "e8", "f6"), turn="attackers")
    assert gap.king_region() & zone_a1
    geo, _ = geometry_for(sealed.rules)
    assert zone_a1 in geo.corner_zones and len(geo.corner_zones) == 4
    # the region counts the defenders' squares (they can step aside), not the attackers'
    assert sealed.king_region().bit_count() == 121 - 4 - 3


def _leaf(board: Board, **weights: Any) -> int:
    from dataclasses import replace

    from engine.levels import get_level
    from engine.search import Searcher

    w = replace(geometry_for(board.rules)[1], **weights) if weights else None
    return Searcher(board, get_level("easy"), weights=w)._leaf(0)


def test_the_attackers_score_a_sealed_corner_and_a_smaller_kings_region() -> None:
    # same material, the same king lines shut: the guard on b2 (sealing a1) beats the man on d4
    sealed = Board.from_otn("copenhagen", position(11, "a3 b2 c1 k5", "e8", "f6"), turn="attackers")
    gap = Board.from_otn("copenhagen", position(11, "a3 d4 c1 k5", "e8", "f6"), turn="attackers")
    assert _leaf(sealed) - _leaf(gap) >= geometry_for(sealed.rules)[1].seal
    # without the cordon terms the two are much closer (the old evaluation saw little)
    assert _leaf(sealed, seal=0, region=0) - _leaf(gap, seal=0, region=0) < _leaf(sealed) - _leaf(gap)
    # a king boxed in a small net: every corner sealed, region tiny
    net = Board.from_otn("copenhagen", position(11, "e4 f4 g4 d5 h5 d6 h6 d7 h7 e8 f8 g8", "f6", "f5"),
                         turn="attackers")
    open_ = Board.from_otn("copenhagen", position(11, "a4 b4 c4 a5 b5 a6 b6 a7 b7 c8 c7 c9", "f6", "f5"),
                           turn="attackers")
    assert _leaf(net) - _leaf(open_) >= 4 * geometry_for(net.rules)[1].seal


def test_each_defender_taken_is_worth_more_than_the_last() -> None:
    _, w = geometry_for(rules_for("copenhagen"))
    king = "f6"
    base = "a4 a5 a6 a7 a8 b6 d1 e1 f1 g1 h1 f2 d11 e11 f11 g11 h11 f10 k4 k5 k6 k7 k8 j6"
    shelter = "e6 g6 f5 f7"                   # the king's lines stay shut whatever is taken
    far = ["c3", "i3", "c9", "i9"]
    scores = []
    for taken in range(4):
        defs = " ".join([shelter] + far[taken:])
        b = Board.from_otn("copenhagen", position(11, base, defs, king), turn="attackers")
        scores.append(_leaf(b, seal=0, region=0))
    gains = [later - earlier for earlier, later in itertools.pairwise(scores)]
    assert gains[0] < gains[1] < gains[2]
    assert gains[2] - gains[1] == gains[1] - gains[0] == w.trade
