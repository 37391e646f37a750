"""The Board's small search interface: live cells, repetitions, the pass, bitboards."""
from __future__ import annotations

import pytest

from engine.board import Board
from engine.types import Side


def test_cells_is_a_live_view_of_the_position() -> None:
    board = Board("copenhagen")
    view = board.cells
    move = board.parse_move("d1-d3")
    before = list(view)
    board.push(move)
    assert view[move.from_sq] == 0 and view[move.to_sq] == before[move.from_sq]
    board.pop()
    assert list(view) == before
    assert sum(1 for c in view if c == 3) == 1
    assert {sq for sq, c in enumerate(view) if c} == set(board.pieces())


def test_repetitions_of_counts_the_game_history() -> None:
    board = Board("copenhagen")
    start = board.zobrist_hash()
    assert board.repetitions_of(start) == 1
    for text in ("d1-d3", "e5-c5", "d3-d1", "c5-e5"):
        board.push(board.parse_move(text))
    assert board.zobrist_hash() == start
    assert board.repetitions_of(start) == 2 == board.repetitions()
    assert board.repetitions_of(start ^ 12345) == 0


def test_a_pass_flips_the_side_and_hash_and_is_taken_back() -> None:
    board = Board("copenhagen")
    key = board.zobrist_hash()
    board.push_null()
    assert board.turn is Side.DEFENDERS and board.zobrist_hash() != key
    board.push(board.parse_move("e5-c5"))       # the defenders move after the pass
    board.pop()
    board.pop_null()
    assert Side(board.turn) is Side.ATTACKERS and board.zobrist_hash() == key
    with pytest.raises(ValueError, match="no null move"):
        board.pop_null()


def test_no_pass_in_a_finished_game() -> None:
    board = Board.from_otn("copenhagen", "11/11/11/11/11/5t5/11/11/11/11/K10", turn="attackers")
    assert board.game_end is not None
    with pytest.raises(ValueError, match="game is over"):
        board.push_null()


def test_bitboards_and_edge_reach_agree_with_the_cells() -> None:
    board = Board("copenhagen")
    masks = board.bit_masks
    att = board.bitboard(Side.ATTACKERS)
    dfd = board.bitboard(Side.DEFENDERS)
    cells = board.cells
    assert att == sum(1 << sq for sq, c in enumerate(cells) if c == 1)
    assert dfd == sum(1 << sq for sq, c in enumerate(cells) if c in (2, 3))
    assert masks.size == 11 and masks.full == (1 << 121) - 1
    assert masks.edge.bit_count() == 40
    # reach by hand: breadth-first from every defender through attacker-free squares
    n = masks.size
    seen = {sq for sq, c in enumerate(cells) if c in (2, 3)}
    frontier = list(seen)
    while frontier:
        sq = frontier.pop()
        r, f = divmod(sq, n)
        for rr, ff in ((r + 1, f), (r - 1, f), (r, f + 1), (r, f - 1)):
            nb = rr * n + ff
            if 0 <= rr < n and 0 <= ff < n and nb not in seen and cells[nb] != 1:
                seen.add(nb)
                frontier.append(nb)
    on_edge = sum(1 for sq in seen if masks.edge >> sq & 1)
    assert board.defender_edge_reach() == on_edge
    assert 0 < on_edge < 40
