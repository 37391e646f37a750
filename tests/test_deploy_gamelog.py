"""kiosk/gamelog.py: finished games appended to the state directory, read back and counted."""
from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from kiosk import gamelog
from kiosk.gamelog import GameRecord, append_game, otn_text, read_games, record_from_board, summary

REPO = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 11, 29, 14, 0, tzinfo=timezone.utc)


def _game(**changes) -> GameRecord:
    fields: dict[str, Any] = dict(variant="copenhagen", visitor_side="defenders", level="easy", result="visitor",
                  reason="king escaped", moves=["d1-d3", "f4-e4", "k7-i7xh7"],
                  started_at=T0, ended_at=T0 + timedelta(minutes=6), winner="defenders",
                  move_times_s=[20.0, 31.5, 60.25], language="sv")
    fields.update(changes)
    return GameRecord(**fields)


def test_a_game_is_one_json_line_in_its_month_file(tmp_path: Path) -> None:
    path = append_game(tmp_path, _game())
    assert path == tmp_path / "gamelog" / "2026-11.jsonl"
    lines = path.read_text().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["schema"] == 1
    assert data["moves"] == ["d1-d3", "f4-e4", "k7-i7xh7"]
    assert data["otn"] == "1. d1-d3 f4-e4 2. k7-i7xh7"
    assert data["visitor_side"] == "defenders" and data["robot_side"] == "attackers"
    assert data["started_at"] == "2026-11-29T14:00:00Z" and data["ended_at"] == "2026-11-29T14:06:00Z"
    assert data["plies"] == 3 and data["level"] == "easy" and data["reason"] == "king escaped"
    assert oct(path.stat().st_mode & 0o777) == "0o640"


def test_games_append_and_read_back_across_months(tmp_path: Path) -> None:
    december = T0 + timedelta(days=3)
    append_game(tmp_path, _game())
    append_game(tmp_path, _game(result="robot", winner="attackers", reason="king captured"))
    append_game(tmp_path, _game(started_at=december, ended_at=december + timedelta(minutes=1)))
    assert sorted(p.name for p in (tmp_path / "gamelog").iterdir()) == ["2026-11.jsonl", "2026-12.jsonl"]
    games = read_games(tmp_path).games
    assert [g.result for g in games] == ["visitor", "robot", "visitor"]
    assert games[0] == _game()


def test_a_torn_last_line_from_a_power_cut_is_skipped_and_reported(tmp_path: Path) -> None:
    path = append_game(tmp_path, _game())
    line = _game(level="hard").to_json()
    with path.open("a") as handle:
        handle.write(line[: len(line) // 2])          # the write that the power cut stopped
    result = read_games(tmp_path)
    assert len(result.games) == 1
    assert len(result.bad_lines) == 1 and result.bad_lines[0].startswith("2026-11.jsonl:2:")
    append_game(tmp_path, _game(level="medium"))     # the kiosk carries on after the restart
    assert summary(tmp_path).bad_lines == 1


def test_summary_counts(tmp_path: Path) -> None:
    append_game(tmp_path, _game())                                                    # 6 min
    append_game(tmp_path, _game(level="hard", result="robot", winner="attackers",
                                reason="king captured", ended_at=T0 + timedelta(minutes=10)))
    append_game(tmp_path, _game(variant="tablut", level="hard", result="visitor", visitor_side="attackers",
                                winner="attackers", reason="king captured", moves=["e1-e3"],
                                move_times_s=[], ended_at=T0 + timedelta(minutes=2)))
    append_game(tmp_path, _game(result="abandoned", winner=None, reason="idle timeout",
                                ended_at=T0 + timedelta(minutes=2)))
    s = summary(tmp_path)
    assert s.games == 4
    assert s.by_variant == {"copenhagen": 3, "tablut": 1}
    assert s.by_level == {"easy": 2, "hard": 2}
    assert s.by_result == {"visitor": 2, "robot": 1, "abandoned": 1}
    assert s.visitor_wins_by_level == {"easy": 1, "hard": 1}
    assert s.by_visitor_side == {"defenders": 3, "attackers": 1}
    assert s.mean_plies == (3 + 3 + 1 + 3) / 4
    assert s.mean_duration_s == pytest.approx((6 + 10 + 2 + 2) * 60 / 4)
    text = s.as_text()
    assert "games: 4" in text and "visitor wins by level: easy 1/2, hard 1/2" in text
    later = summary(tmp_path, since=T0 + timedelta(minutes=5))
    assert later.games == 2


def test_summary_of_an_empty_or_missing_state_dir(tmp_path: Path) -> None:
    s = summary(tmp_path / "nothing-here")
    assert s.games == 0 and s.mean_plies == 0.0
    assert s.as_text().startswith("games: 0")


@pytest.mark.parametrize("changes, message", [
    ({"visitor_side": "swedes"}, "visitor_side 'swedes'"),
    ({"result": "won"}, "result 'won'"),
    ({"winner": "white"}, "winner 'white'"),
    ({"move_times_s": [1.0]}, "move_times_s has 1 entries for 3 moves"),
    ({"started_at": datetime(2026, 11, 29, 14, 0)}, "no time zone"),
])
def test_bad_records_are_refused_with_a_clear_message(changes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _game(**changes)


def test_otn_text_numbers_the_moves() -> None:
    assert otn_text([]) == ""
    assert otn_text(["a4-a2"]) == "1. a4-a2"
    assert otn_text(["a", "b", "c", "d"]) == "1. a b 2. c d"


def test_cli_summary_and_csv(tmp_path: Path, capsys) -> None:
    append_game(tmp_path, _game())
    append_game(tmp_path, _game(result="draw", winner=None, reason="repetition"))
    assert gamelog.main(["summary", str(tmp_path)]) == 0
    assert "games: 2" in capsys.readouterr().out
    assert gamelog.main(["csv", str(tmp_path)]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0][:4] == ["game_id", "started_at", "ended_at", "variant"]
    assert [row[rows[0].index("result")] for row in rows[1:]] == ["visitor", "draw"]
    assert rows[1][-1] == "1. d1-d3 f4-e4 2. k7-i7xh7"
    assert gamelog.main(["summary", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert gamelog.main(["summary", str(tmp_path), "--since", "yesterday"]) == 2


def _real_game_with_captures(max_plies: int = 40) -> list[str]:
    """The opening of the first recorded Copenhagen game that captures within max_plies."""
    for row in csv.reader((REPO / "tests/data/copenhagen-games.csv").open()):
        moves = row[0].split()[:max_plies]
        if any("x" in move for move in moves):
            return moves
    raise AssertionError("no game with an early capture in the data file")


def test_record_from_a_real_engine_board_keeps_the_captures(tmp_path: Path) -> None:
    engine = pytest.importorskip("engine")
    recorded = _real_game_with_captures()
    board = engine.Board("copenhagen")
    for text in recorded:
        board.push(board.parse_move(text.split("x")[0]))
    record = record_from_board(board, visitor_side=engine.Side.DEFENDERS, level="medium",
                               result="abandoned", reason="ended by staff", started_at=T0,
                               ended_at=T0 + timedelta(minutes=20))
    # Captures as the engine writes them: each captured square once, in its order.
    assert [m.split("x")[0] for m in record.moves] == [m.split("x")[0] for m in recorded]
    assert [sorted(set(m.split("x")[1:])) for m in record.moves] == \
        [sorted(set(m.split("x")[1:])) for m in recorded]
    assert record.visitor_side == "defenders"
    assert len(board.move_stack) == len(recorded)            # the kiosk's board is untouched
    append_game(tmp_path, record)
    assert read_games(tmp_path).games[0].moves == record.moves


def test_the_controllers_archived_journals_are_not_read_as_games(tmp_path: Path) -> None:
    """kiosk/journal.py archives each game's journal in <state_dir>/games/; the log lives apart."""
    archive = tmp_path / "games"
    archive.mkdir()
    (archive / "20261129T140000-copenhagen.jsonl").write_text('{"event": "state", "state": "setup"}\n')
    (tmp_path / "journal.jsonl").write_text('{"event": "state"}\n')
    append_game(tmp_path, _game())
    s = summary(tmp_path)
    assert s.games == 1 and s.bad_lines == 0
