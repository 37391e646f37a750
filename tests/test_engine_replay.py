"""The 1,752 recorded Copenhagen games (tests/data/copenhagen-games.csv) replay through the engine.

Every move must be legal and capture exactly what the record writes (the king's
capture is not written in this file). The quirks of the file are measured and
pinned here, so a rules change that alters them shows up as a failing count.
"""
from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from engine import Board, Outcome, Side
from engine.replay import ReplayError, replay, summary_lines, tokenize

DATA = Path(__file__).resolve().parent / "data" / "copenhagen-games.csv"
WINNER = {"Black": Side.ATTACKERS, "White": Side.DEFENDERS}


def _records() -> list[list[str]]:
    with DATA.open(newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def replays():
    out = []
    for row in _records():
        out.append((row, replay("copenhagen", row[0].split(), continue_past_end=True)))
    return out


def test_file_has_all_games() -> None:
    assert len(_records()) == 1752


def test_every_move_of_every_game_is_legal_with_its_written_captures(replays) -> None:
    # replay() raises on the first illegal move or capture mismatch; reaching here means none did.
    assert len(replays) == 1752
    tokens = sum(len([t for t in row[0].split() if t != "timeout"]) for row, _r in replays)
    assert sum(r.plies for _row, r in replays) == tokens


def test_capture_columns_match_the_engine(replays) -> None:
    for row, r in replays:
        written = {Side.ATTACKERS: 0, Side.DEFENDERS: 0}
        board = Board("copenhagen")
        for ply, text in enumerate(row[0].split()):
            if text == "timeout":
                break
            mover = Side.ATTACKERS if ply % 2 == 0 else Side.DEFENDERS
            written[mover] += text.count("x")
        # The columns count written captures (a duplicated square counts twice).
        assert (written[Side.ATTACKERS], written[Side.DEFENDERS]) == (int(row[1]), int(row[2]))
        del board
        # The engine counts each piece once and includes a captured king.
        engine_counts = dict(r.captured_by)
        assert engine_counts[Side.DEFENDERS] <= written[Side.DEFENDERS]
        assert engine_counts[Side.ATTACKERS] <= written[Side.ATTACKERS] + 1


def test_games_ending_on_their_last_move_agree_with_the_recorded_winner(replays) -> None:
    reasons: Counter[str] = Counter()
    for row, r in replays:
        if r.outcome is not None and not r.moves_after_end and r.stopped_by is None:
            assert WINNER.get(row[3]) is r.outcome.winner, row[0][:60]
            reasons[r.outcome.reason] += 1
    assert reasons == Counter({"king_escaped": 233, "king_captured": 45, "edge_fort": 48,
                               "encirclement": 24, "no_moves": 20})
    assert sum(reasons.values()) == 370


# Records (CSV line numbers) whose fort stands only because a wall piece is guarded by a
# defender outside the wall that can never be captured itself (docs/rules.md, Edge fort).
FORTS_GUARDED_FROM_OUTSIDE = (222, 611, 717, 858, 1165, 1197, 1373, 1378)


def test_edge_forts_guarded_from_outside_end_recorded_defender_wins(replays) -> None:
    for line in FORTS_GUARDED_FROM_OUTSIDE:
        row, r = replays[line - 1]
        assert r.outcome == Outcome(Side.DEFENDERS, "edge_fort"), line
        assert not r.moves_after_end and r.stopped_by is None and row[3] == "White", line


def test_timeouts_lose_for_the_side_to_move(replays) -> None:
    timeouts = [(row, r) for row, r in replays if r.stopped_by == "timeout"]
    assert len(timeouts) == 273
    for row, r in timeouts:
        if r.outcome is None:
            assert WINNER[row[3]] is r.board.turn.other


def test_quirk_records_playing_on_after_a_threefold_repetition(replays) -> None:
    past = [(row, r) for row, r in replays if r.moves_after_end]
    assert len(past) == 11
    assert {r.outcome.reason for _row, r in past} == {"repetition"}
    assert Counter(row[3] for row, _r in past) == Counter({"Black": 9, "White": 2})


def test_strict_replay_stops_at_the_first_move_after_the_end() -> None:
    stopped = 0
    for row in _records():
        moves = row[0].split()
        try:
            replay("copenhagen", moves)
        except ReplayError as exc:
            assert "already over" in exc.reason and not exc.malformed
            stopped += 1
    assert stopped == 11


def test_quirk_defenders_recreating_an_earlier_position() -> None:
    count = 0
    for row in _records():
        b = Board("copenhagen")
        hit = False
        for text in tokenize(row[0]):
            if text == "timeout":
                break
            b.resume()
            mover = b.turn
            b.push(b.parse_move(text))
            hit |= mover is Side.DEFENDERS and b.repetitions() >= 2
        count += hit
    assert count == 35


def test_summary_reports_position_captures_and_outcome() -> None:
    row = _records()[33]
    r = replay("copenhagen", row[0].split())
    text = "\n".join(summary_lines(r))
    assert "outcome: defenders win (king_escaped)" in text
    assert "captured by attackers:" in text and "position: /" in text
