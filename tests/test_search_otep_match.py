"""bench/otep_match.py referees real OTEP engine processes with our Board."""
from __future__ import annotations

import sys

from tests.helpers.bench import load_bench
from engine.board import Board
ENGINE = f"{sys.executable} -m engine otep --level easy --time 0.1"
#: an engine that says hello and then always proposes the same (illegal) move
BAD_ENGINE = (f"{sys.executable} -c \"import sys\nprint('hello', flush=True)\n"
              f"for line in sys.stdin:\n    line.startswith('play') and print('move a1-a2', flush=True)\"")


def _match():
    return load_bench("otep_match")


def test_a_short_game_between_two_engines_replays_legally() -> None:
    m = _match()
    settings = m.MatchSettings(m.variant_record("copenhagen"), max_plies=12, random_plies=3, time_s=0.1)
    opening = m.opening(settings, 42)
    assert len(opening) == 3 and opening == m.opening(settings, 42)
    a, b = m.OtepEngine("a", ENGINE), m.OtepEngine("b", ENGINE)
    try:
        a.start()
        b.start()
        record = m.play_game(0, a, b, True, settings, opening)
    finally:
        a.stop()
        b.stop()
    assert record.moves[:3] == opening
    assert record.plies == len(record.moves) <= 12
    board = Board("copenhagen")
    for text in record.moves:
        board.push(board.parse_move(text))
    if record.reason == "max_plies":
        assert record.winner is None and record.a_score == 0.5
    # both engines answered every turn they had after the opening
    assert len(a.reply_s) + len(b.reply_s) == record.plies - 3


def test_an_engine_that_keeps_proposing_illegal_moves_loses() -> None:
    m = _match()
    settings = m.MatchSettings(m.variant_record("copenhagen"), max_plies=20, random_plies=0, time_s=0.1)
    bad, good = m.OtepEngine("bad", BAD_ENGINE), m.OtepEngine("good", ENGINE)
    try:
        bad.start()
        good.start()
        record = m.play_game(0, bad, good, True, settings, [])
    finally:
        bad.stop()
        good.stop()
    assert record.winner == "defenders" and record.reason.startswith("illegal_moves")
    assert record.a_score == 0.0 and record.plies == 0


def test_no_repetition_end_referee_plays_on_after_a_third_repetition() -> None:
    m = _match()
    ends = m.referee_board(m.MatchSettings(m.variant_record("copenhagen")))
    goes_on = m.referee_board(m.MatchSettings(m.variant_record("copenhagen"), no_repetition_end=True))
    shuffle = ["d1-d2", "d6-d7", "d2-d1", "d7-d6"] * 2
    for board in (ends, goes_on):
        for text in shuffle:
            board.push(board.parse_move(text))
    assert ends.outcome() is not None and ends.outcome().reason == "repetition"
    assert goes_on.outcome() is None
