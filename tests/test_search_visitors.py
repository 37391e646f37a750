"""The visitor models of bench/visitor_players.py play as their definitions say."""
from __future__ import annotations

import random

from bench_helpers import load_bench as _load
from engine.board import Board


def test_beginner_takes_an_escape_when_it_sees_one() -> None:
    vp = _load("visitor_players")
    board = Board.from_otn("copenhagen", "/4K6/11/11/11/11/t9t/11/11/11/11/5t5/", "defenders")
    for seed in range(5):
        move = vp.beginner_move(board, random.Random(seed))
        assert board.move_to_otn(move) in ("e1-a1", "e1-k1")


def test_beginner_takes_a_capture_when_it_sees_one() -> None:
    vp = _load("visitor_players")
    board = Board.from_otn("copenhagen", "/11/11/2tT1t5/11/11/5K5/11/11/11/11/11/", "attackers")
    for seed in range(5):
        assert board.move_to_otn(vp.beginner_move(board, random.Random(seed))) == "f3-e3xd3"


def test_beginner_never_hangs_a_piece_when_a_safe_move_exists() -> None:
    vp = _load("visitor_players")
    # the attacker on c6 may not stop on d7, e6 etc. next to a defender that can close on it
    board = Board.from_otn("copenhagen", "/11/11/11/11/4T6/2t8/5K5/4T6/11/11/11/", "attackers")
    for seed in range(10):
        move = vp.beginner_move(board, random.Random(seed))
        assert vp.is_safe(board, move), board.move_to_otn(move)
    # a move next to the defenders' pincer is unsafe
    unsafe = board.parse_move("c6-e6")
    assert not vp.is_safe(board, unsafe)


def test_casual_is_two_plies_with_noise() -> None:
    vp = _load("visitor_players")
    level = vp.casual_level()
    assert level.max_depth == 2 and level.noise > 0


def test_selfplay_plays_a_visitor_against_a_level() -> None:
    sp = _load("selfplay")
    task: tuple = (0, "copenhagen", {}, "beginner", "easy", None, 0.2, 30, 2, 5, True, None, None)
    result = sp.play_game(task)
    assert result.plies <= 30 + 2
    assert result.a_score in (0.0, 0.5, 1.0)
