"""`tafl-engine` keeps its contract for any input: one line on stderr, exit 2, bounded time and memory.

Each case of issue 14 runs the real command in a subprocess with a memory
limit (256 MB of address space: the 1.6 GB allocation of `/100000000/...`
fails loudly here instead of passing slowly) and a generous timeout (a hang
shows as a timeout, not as a slow pass).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from engine.otn import parse_move_text, parse_position
from engine.types import parse_square

REPO = Path(__file__).resolve().parents[1]
START = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
MIDDLE = "5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))


def run_cli(*args: str, stdin: bytes | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, env=env, input=stdin,
                          capture_output=True, timeout=timeout, preexec_fn=_limit_memory)


def assert_bad_input(run: subprocess.CompletedProcess, *words: str) -> str:
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 2, (run.returncode, err)
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    assert "Traceback" not in err and len(err) < 400
    for w in words:
        assert w in err, err
    assert run.stdout == b""
    return err


@pytest.mark.parametrize("position, words", [
    ("/3ttttt" + "9" * 5000 + "/" + MIDDLE + "/3ttttt3/", ("characters long",)),    # OverflowError before
    ("/100000000/" + MIDDLE + "/3ttttt3/", ("longer than 11",)),                   # 1.6 GB before
    ("/3ttttt3/" + MIDDLE + "/3ttttt\u0663/", ("bad character",)),                 # Arabic-Indic three
    ("/3ttttt3/" + MIDDLE + "/3ttttt03/", ("leading zero",)),
    ("/3ttttt3/" + MIDDLE + "/3tt\nttt3/", ("bad character '\\n'",)),              # newline in a rank
    ("/3ttttt3/" + MIDDLE + "/3ttttt0/", ("zero",)),
])
def test_bad_positions_are_one_line_and_exit_2(position: str, words: tuple[str, ...]) -> None:
    assert_bad_input(run_cli("moves", "--variant", "copenhagen", "--position", position), *words)


def test_perft_depth_is_bounded_and_ascii() -> None:
    assert_bad_input(run_cli("perft", "--variant", "copenhagen", "--depth", "1000000"), "depth")
    assert_bad_input(run_cli("perft", "--variant", "copenhagen", "--depth", "\u0661"), "--depth")
    assert_bad_input(run_cli("perft", "--variant", "copenhagen", "--depth", "9" * 5000), "--depth")
    ok = run_cli("perft", "--variant", "copenhagen", "--depth", "1")
    assert ok.returncode == 0 and ok.stdout.strip() == b"116"


def test_replay_of_an_endless_file_stops_with_one_line() -> None:
    assert_bad_input(run_cli("replay", "--variant", "copenhagen", "/dev/zero"), "/dev/zero")
    assert_bad_input(run_cli("replay", "--variant", "copenhagen", "-", stdin=b"\0" * (2 << 20)), "stdin")


def test_replay_input_that_is_not_a_record(tmp_path: Path) -> None:
    bad_utf8 = tmp_path / "bad.txt"
    bad_utf8.write_bytes(b"d1-d3 \xff\xfe h11-h9\n")
    assert_bad_input(run_cli("replay", "--variant", "copenhagen", str(bad_utf8)), "UTF-8")
    assert_bad_input(run_cli("replay", "--variant", "copenhagen", str(tmp_path)), "cannot read")
    long_token = tmp_path / "long.txt"
    long_token.write_text("x" * 100_000 + "\n")
    err = assert_bad_input(run_cli("replay", "--variant", "copenhagen", str(long_token)), "malformed")
    assert "100000 characters" in err


def test_timeout_in_the_middle_of_a_record_is_bad_input(tmp_path: Path) -> None:
    record = tmp_path / "game.txt"
    record.write_text("1. d1-d3 timeout\n2. h11-h9\n")
    assert_bad_input(run_cli("replay", "--variant", "copenhagen", str(record)), "last word", "ply 2")
    record.write_text("1. d1-d3 timeout\n")                    # at the end it is fine
    run = run_cli("replay", "--variant", "copenhagen", str(record))
    assert run.returncode == 0 and b"timeout at ply 2" in run.stdout


def test_leading_zeros_and_other_digits_in_moves(tmp_path: Path) -> None:
    record = tmp_path / "game.txt"
    for move in ("d01-d3", "d1-d\u0663", "d1-d3x\u0664"):
        record.write_text(move + "\n", encoding="utf-8")
        assert_bad_input(run_cli("replay", "--variant", "copenhagen", str(record)), "malformed")


def test_think_times_are_finite_and_bounded() -> None:
    for bad in ("nan", "inf", "1e400", "-1", "0", "\u0661", "1_0", "601"):
        assert_bad_input(run_cli("bestmove", "--variant", "copenhagen", "--time", bad), "--time")
    assert_bad_input(run_cli("bestmove", "--variant", "copenhagen", "--seed", "\u0661"), "--seed")


# ------------------------------------------------------------ the parser itself (no subprocess)

def test_parse_square_is_strict() -> None:
    assert parse_square("d1", 11) == 3 and parse_square("k11", 11) == 120
    for bad in ("d01", "d\u0661", "d", "d1 1", "d001", "l1", "d12", "d0"):
        with pytest.raises(ValueError):
            parse_square(bad, 11)


def test_parse_position_refuses_before_allocating() -> None:
    import tracemalloc

    tracemalloc.start()
    with pytest.raises(ValueError):
        parse_position("/" + "9" * 4 + "/" * 10, 11)
    with pytest.raises(ValueError):
        parse_position("/100000000/" + MIDDLE + "/3ttttt3/", 11)
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1 << 20
    assert parse_position(START, 11)[3] == 1          # the start still reads


def test_board_sizes_are_the_rules() -> None:
    with pytest.raises(ValueError, match="board size"):
        parse_position("/1/", 1)
    with pytest.raises(ValueError, match="board size"):
        parse_position("/" + "9/" * 100, 100)


def test_move_texts_are_strict() -> None:
    assert parse_move_text("e5-e8xe9", 11) == (48, 81, (92,))
    for bad in ("e5-\ne8", "e05-e8", "e5-e\u0668", "e5-e8x", "e5 -e8", "e5-e8" + "xe9" * 100):
        with pytest.raises(ValueError):
            parse_move_text(bad, 11)
