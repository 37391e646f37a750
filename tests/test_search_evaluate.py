"""The evaluation's families, geometry and king-route terms on hand-built positions."""
from __future__ import annotations

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
