"""The search's promises on small positions, for every variant, both sides and every level.

Each position is built so that exactly one thing matters: the king can
escape now, the king must be stopped now, the king can be captured now, the
king must be saved now, or a third repetition decides the game. Every level
must get these right (Easy too: the blunder guard is what makes it "never
absurd"). The searches are capped by nodes as well as time, so the tests do
not depend on the machine's speed.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.board import Board
from engine.levels import DEFAULT_LEVELS
from engine.otn import format_position
from engine.search import build_board, search_board
from engine.types import ATT, DEF, KING, Side, parse_square

VARIANTS = ("copenhagen", "york", "tablut", "tawlbwrdd")
LEVELS = ("easy", "medium", "hard")


def position(size: int, attackers: str = "", defenders: str = "", king: str = "") -> str:
    cells = [0] * (size * size)
    for names, code in ((attackers, ATT), (defenders, DEF), (king, KING)):
        for name in names.split():
            cells[parse_square(name, size)] = code
    return format_position(cells, size)


def level(name: str):
    # short and node-capped: the positions are tactical, depth 1-3 settles them
    return replace(DEFAULT_LEVELS[name], time_s=min(DEFAULT_LEVELS[name].time_s, 1.0), max_nodes=20_000)


def side_to_move_can_win_now(board: Board) -> bool:
    """Does the side to move have a move that wins at once?"""
    me = board.turn
    for m in board.legal_moves:
        board.push(m)
        out = board.outcome()
        board.pop()
        if out is not None and out.winner == me:
            return True
    return False


# King escape in one: the king stands with one free line to an escape square,
# defenders to move. Corner variants: king on the a-file, a1 open.
ESCAPE = {
    "copenhagen": (11, "c5 d7 h8 j3", "e5 g7", "a5"),   # a5-a1 or a5-a11
    "york": (11, "d3 c4 h8 j9", "b3 g7", "c3"),          # c3-c1 reaches the edge
    "tablut": (9, "b3 c4 g6 f8", "d3 e7", "c3"),         # c3-c1; c1 is not a camp
    "tawlbwrdd": (11, "d3 c4 h8 j9", "b3 g7", "c3"),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("lvl", LEVELS)
def test_defenders_take_the_escape_in_one(variant: str, lvl: str) -> None:
    size, att, dfd, king = ESCAPE[variant]
    board = Board.from_otn(variant, position(size, att, dfd, king), turn="defenders")
    result = search_board(board, level(lvl), seed=5)
    board.push(result.move)
    out = board.outcome()
    assert out is not None and out.winner is not None and out.winner.value == "defenders", result


# A threatened escape: attackers to move, the king has exactly one free line
# to an escape square, and one attacker move shuts it.
BLOCK = {
    "copenhagen": (11, "b6 e1 c3 h8 h4", "g7 e6", "c1"),   # c1-a1 through b1: b6-b1 blocks
    "york": (11, "e2 d3 c5 h8", "b3 g7", "c3"),             # c3-c1: e2-c2 blocks
    "tablut": (9, "a2 e3 c5 g7", "b3 f6", "c3"),            # c3-c1: a2-c2 blocks
    "tawlbwrdd": (11, "e2 d3 c5 h8", "b3 g7", "c3"),        # c3-c1: e2-c2 blocks
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("lvl", LEVELS)
def test_attackers_stop_a_threatened_escape(variant: str, lvl: str) -> None:
    size, att, dfd, king = BLOCK[variant]
    otn = position(size, att, dfd, king)
    threat = Board.from_otn(variant, otn, turn="defenders")
    assert side_to_move_can_win_now(threat), "setup: the king has no escape to stop"
    board = Board.from_otn(variant, otn, turn="attackers")
    result = search_board(board, level(lvl), seed=9)
    board.push(result.move)
    end = board.outcome()
    assert end is None or end.winner is Side.ATTACKERS
    assert not side_to_move_can_win_now(board), f"{lvl} let the king out after {result.move_text}"


# King capture in one: the king has attackers on three sides away from the
# edge and the throne; an attacker can close the fourth side.
CAPTURE = {
    "copenhagen": (11, "e8 g8 f9 a7", "c3", "f8"),       # a7-f7 closes
    "york": (11, "e8 g8 f9 a7", "c3", "f8"),
    "tablut": (9, "c2 b3 d3 c7", "g7", "c3"),            # c7-c4 closes
    "tawlbwrdd": (11, "e8 g8 f9 a7", "c3", "f8"),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("lvl", LEVELS)
def test_attackers_capture_the_king_when_they_can(variant: str, lvl: str) -> None:
    size, att, dfd, king = CAPTURE[variant]
    board = Board.from_otn(variant, position(size, att, dfd, king), turn="attackers")
    result = search_board(board, level(lvl), seed=2)
    board.push(result.move)
    out = board.outcome()
    assert out is not None and out.winner is not None and out.winner.value == "attackers", result


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("lvl", LEVELS)
def test_defenders_save_a_king_in_danger(variant: str, lvl: str) -> None:
    size, att, dfd, king = CAPTURE[variant]
    board = Board.from_otn(variant, position(size, att, dfd, king), turn="defenders")
    result = search_board(board, level(lvl), seed=4)
    board.push(result.move)
    assert not side_to_move_can_win_now(board), f"{lvl} left the king to be taken after {result.move_text}"


def test_copenhagen_search_sees_the_third_repetition_through_the_game_history() -> None:
    # The king shuffles a5-b5-a5 while an attacker shuffles h8-h9-h8. Played twice,
    # the defenders to move must not go back to a5: the attackers would then
    # repeat the position a third time, which loses for the defenders.
    start = position(11, "h8 c3 c9 j4", "e6 g6", "a5")
    shuffle = ["a5-b5", "h8-h9", "b5-a5", "h9-h8", "a5-b5", "h8-h9"]
    board = build_board("copenhagen", None, start, "defenders", shuffle)
    assert board.repetitions() == 2
    result = search_board(board, level("medium"), seed=1)
    assert result.move_text != "b5-a5"
    # ...and the attackers, given the chance, take the repetition win.
    board.push(board.parse_move("b5-a5"))
    result = search_board(board, level("easy"), seed=1)
    board.push(result.move)
    out = board.outcome()
    assert out is not None and out.reason == "repetition" and out.winner.value == "attackers"
