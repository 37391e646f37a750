"""`tafl-engine` / `python -m engine`: the command-line contract (output shapes, exit codes, one-line errors)."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Side
from engine.cli import add_board_arguments, board_from_args, main

REPO = Path(__file__).resolve().parents[1]
START = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_lists_the_names(capsys) -> None:
    code, out, _ = run(capsys, "variants")
    assert code == 0 and out.split() == ["copenhagen", "york", "tablut", "tawlbwrdd"]


def test_moves_json_shape_sorted_with_captures_and_results(capsys) -> None:
    code, out, _ = run(capsys, "moves", "--variant", "copenhagen", "--json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 116
    assert [r["move"] for r in rows] == sorted(r["move"] for r in rows)
    assert rows[0] == {"move": "a4-a2", "captures": [], "result": None}
    code, out, _ = run(capsys, "moves", "--variant", "copenhagen", "--position",
                       "/11/11/tT9/11/2t8/11/11/11/11/K10/11/", "--turn", "attackers", "--json")
    rows = {r["move"]: r for r in json.loads(out)}
    assert rows["c5-c3"]["captures"] == ["b3"]
    code, out, _ = run(capsys, "moves", "--variant", "copenhagen", "--position",
                       "/11/11/11/11/11/11/K10/11/11/11/5t5/", "--turn", "defenders", "--json")
    rows = {r["move"]: r for r in json.loads(out)}
    assert rows["a7-a11"]["result"] == "defenders" and rows["a7-a8"]["result"] is None


def test_moves_reports_a_throw_board_piece_dying_on_arrival(capsys) -> None:
    code, out, _ = run(capsys, "moves", "--variant", "tawlbwrdd", "--position",
                       "/11/2T8/11/1t1t7/11/11/11/7K3/11/11/11/", "--turn", "defenders", "--json")
    rows = {r["move"]: r for r in json.loads(out)}
    assert rows["c2-c4"]["captures"] == ["c4"]


def test_moves_with_options(capsys) -> None:
    code, out, _ = run(capsys, "moves", "--variant", "york", "--json")
    plain = len(json.loads(out))
    code, out, _ = run(capsys, "moves", "--variant", "york", "--option", "corner_escape=true", "--json")
    assert code == 0 and len(json.loads(out)) == plain - 8


def test_perft_prints_the_count_last(capsys) -> None:
    code, out, _ = run(capsys, "perft", "--variant", "copenhagen", "--depth", "2")
    assert code == 0 and out.strip().splitlines()[-1] == "6788"
    code, out, _ = run(capsys, "perft", "--variant", "copenhagen", "--depth", "2", "--divide")
    lines = out.strip().splitlines()
    assert lines[-1] == "6788" and len(lines) == 117
    assert sum(int(line.split()[1]) for line in lines[:-1]) == 6788
    code, out, _ = run(capsys, "perft", "--variant", "copenhagen", "--depth", "1",
                       "--position", START, "--turn", "defenders")
    assert out.strip() == "60"


def test_replay_prints_the_summary(tmp_path, capsys) -> None:
    game = tmp_path / "game.txt"
    game.write_text("1. d1-d3 e5-e2\n2. g1-g3 f4-c4\n3. g3-e3xe2\n")
    code, out, _ = run(capsys, "replay", "--variant", "copenhagen", str(game))
    assert code == 0
    assert "captured by attackers: 1" in out and "outcome: none" in out
    assert "position: /" in out


def test_replay_from_stdin(monkeypatch, capsys) -> None:
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2 timeout"))
    code, out, _ = run(capsys, "replay", "--variant", "copenhagen", "-")
    assert code == 0 and "defenders timeout at ply 6" in out


def test_replay_illegal_move_exit_1_names_ply_and_reason(tmp_path, capsys) -> None:
    game = tmp_path / "g.txt"
    game.write_text("d1-d3 e5-e2 g1-g3 f4-c4 g3-e9")
    code, _, err = run(capsys, "replay", "--variant", "copenhagen", str(game))
    assert code == 1 and "ply 5" in err and "not along" in err and len(err.strip().splitlines()) == 1
    game.write_text("d1-d3 e5-e2 g1-g3 f4-c4 g3-e3")
    code, _, err = run(capsys, "replay", "--variant", "copenhagen", str(game))
    assert code == 1 and "captures differ" in err and "g3-e3xe2" in err


def test_replay_past_the_end(tmp_path, capsys) -> None:
    game = tmp_path / "g.txt"
    game.write_text("a7-a11 f2-f3 a11-a10")
    code, _, err = run(capsys, "replay", "--variant", "copenhagen", "--position",
                       "/11/5t5/11/11/11/11/K10/11/11/11/11/", "--turn", "defenders", str(game))
    assert code == 1 and "already over" in err and "ply 2" in err
    code, out, _ = run(capsys, "replay", "--variant", "copenhagen", "--continue-past-end", "--position",
                       "/11/5t5/11/11/11/11/K10/11/11/11/11/", "--turn", "defenders", str(game))
    assert code == 0 and "after ply 1" in out and "moves after the end: 2" in out


@pytest.mark.parametrize("argv, needle", [
    (["moves", "--variant", "copenhagen", "--position", "/3ttttt3/"], "ranks"),
    (["moves", "--variant", "york", "--option", "wings=true"], "unknown option 'wings'"),
    (["moves", "--variant", "york", "--option", "king_armed=maybe"], "bad value"),
    (["moves", "--variant", "york", "--option", "king_armed"], "KEY=VALUE"),
    (["moves", "--variant", "chess"], "unknown variant"),
    (["perft", "--variant", "copenhagen"], "--depth"),
    (["replay", "--variant", "copenhagen", "/no/such/file"], "cannot read"),
    (["bogus"], "invalid choice"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1


def test_malformed_move_in_a_replay_exits_2(tmp_path, capsys) -> None:
    game = tmp_path / "g.txt"
    game.write_text("d1-d3 e5e2")
    code, _, err = run(capsys, "replay", "--variant", "copenhagen", str(game))
    assert code == 2 and "malformed move 'e5e2'" in err


def test_board_arguments_are_reusable() -> None:
    parser = argparse.ArgumentParser()
    add_board_arguments(parser)
    args = parser.parse_args(["--variant", "york", "--option", "king_armed=yes", "--turn", "defenders"])
    b = board_from_args(args)
    assert b.variant == "york" and b.options["king_armed"] == "yes" and b.turn is Side.DEFENDERS


def test_python_dash_m_engine_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "engine", "perft", "--variant", "tablut", "--depth", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "56"
    proc = subprocess.run([sys.executable, "-m", "engine", "moves", "--variant", "tablut", "--turn", "x"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
