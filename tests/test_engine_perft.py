"""Perft: Copenhagen's published counts, and a slow independent recount of the fast one."""
from __future__ import annotations

import pytest

from engine import Board, perft


@pytest.mark.parametrize("depth, leaves", [(1, 116), (2, 6_788), (3, 806_344)])
def test_copenhagen_perft_from_the_start(depth: int, leaves: int) -> None:
    assert perft(Board("copenhagen"), depth) == leaves


# Counts of this engine for the other variants (regression values; the start
# layouts and move rules are in docs/rules.md). York = Copenhagen + the 8
# moves onto corners, which only Copenhagen closes.
@pytest.mark.parametrize("variant, options, counts", [
    ("york", {}, (124, 7_276, 920_688)),
    ("tablut", {}, (56, 4_408, 248_616)),
    ("tawlbwrdd", {}, (56, 7_504, 443_352)),
])
def test_other_variants_perft(variant: str, options: dict, counts: tuple[int, int, int]) -> None:
    b = Board(variant, options)
    assert tuple(perft(b, d) for d in (1, 2, 3)) == counts


def _slow_perft(board: Board, depth: int) -> int:
    """Plain recursion through the public API: legal_moves, push, outcome, pop."""
    total = 0
    for move in board.legal_moves:
        board.push(move)
        if depth == 1 or board.outcome() is not None:
            total += 1
        else:
            total += _slow_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("variant, options", [
    ("copenhagen", {}), ("york", {"corner_escape": "true"}), ("tablut", {}),
    ("tawlbwrdd", {"layout": "lewis", "king_four_sided": "true"}),
])
def test_bulk_counting_equals_plain_recursion(variant: str, options: dict) -> None:
    b = Board(variant, options)
    assert _slow_perft(b, 2) == perft(b, 2)


def test_moves_that_end_the_game_are_leaves_not_expanded() -> None:
    # The king on a7 can reach a11 (a corner): that move is one leaf at any depth.
    b = Board.from_otn("copenhagen", "/11/11/11/11/11/11/K10/11/11/11/5t5/", turn="defenders")
    d1 = perft(b, 1)
    d2 = perft(b, 2)
    win = b.parse_move("a7-a11")
    b.push(win)
    assert b.outcome() is not None
    b.pop()
    others = [m for m in b.legal_moves if m != win]
    expected = 1
    for m in others:
        b.push(m)
        expected += 1 if b.outcome() is not None else perft(b, 1)
        b.pop()
    assert d1 == len(others) + 1 and d2 == expected


def test_perft_of_a_finished_game_is_zero() -> None:
    b = Board.from_otn("copenhagen", "/K10/11/11/11/11/11/11/11/11/11/5t5/")
    assert perft(b, 2) == 0 and perft(b, 0) == 1
