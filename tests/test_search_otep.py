"""`tafl-engine otep` and `tafl-engine bestmove` driven as OpenTafl and scripts drive them: a real subprocess.

The OTEP test plays a short scripted game the way OpenTafl does it: rules,
side, start, then for each of the engine's turns `opponent-move <move>
<position>`, `play`, `clock`, reading the engine's `move` and confirming it
with `move <position>`. Every engine move is checked legal on our own board.
"""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.board import Board
from engine.otep import (OtepSession, OtepSettings, match_rules, parse_rules_record, simple_move,
                         variant_record)

REPO = Path(__file__).resolve().parents[1]
OPENTAFL_COPENHAGEN = ("dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y "
                       "start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")
FETLAR = ("dim:11 atkf:n start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")


class Engine:
    """A `python -m engine ...` subprocess with line-based, timeout-guarded reading."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        self.proc = subprocess.Popen([sys.executable, "-m", "engine", *args], cwd=REPO, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, prefix: str, timeout: float = 30.0) -> str:
        """The next line starting with `prefix` (status lines are skipped)."""
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError(f"engine exited while waiting for {prefix!r}: "
                                     f"{self.proc.stderr.read() if self.proc.stderr else ''}")
            if line.startswith(prefix):
                return line
            if not line.startswith("status"):
                raise AssertionError(f"expected {prefix!r}, got {line!r}")

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def test_otep_handshake_rejection_and_a_short_game() -> None:
    eng = Engine("otep", "--level", "medium", "--time", "0.3")
    try:
        assert eng.expect("hello") == "hello"
        eng.send("hello")
        eng.send("rules " + FETLAR)
        assert eng.expect("error").startswith("error -1 rules not supported")
        eng.send("rules " + OPENTAFL_COPENHAGEN)
        eng.send("side defenders")
        eng.send("start")
        board = Board("copenhagen")
        for attacker_move in ("d1-d3", "h11-h9", "a4-c4"):
            mv = board.parse_move(attacker_move)
            if not board.is_legal(mv):
                break
            board.push(mv)
            eng.send(f"opponent-move {attacker_move} {board.position_otn()}")
            eng.send("play defenders")
            eng.send("clock 600000 600000 0 0 0")
            reply = eng.expect("move ")
            text = reply.split()[1]
            ours = board.parse_move(text)          # raises if the engine's move is illegal
            board.push(ours)
            eng.send(f"move {board.position_otn()}")
        eng.send("analyze 1 0.3")
        analysis = eng.expect("analysis")
        parts = analysis.split()
        assert parts[1] == "1" and len(parts) == 4
        first = parts[2].split("|")[0]
        assert board.is_legal(board.parse_move(first))
        int(parts[3])
        eng.send("finish 0")
        eng.send("goodbye")
        assert eng.close() == 0
    finally:
        if eng.proc.poll() is None:
            eng.proc.kill()


def test_otep_plays_attackers_and_follows_an_opponent_move_list() -> None:
    eng = Engine("otep", "--level", "easy")
    try:
        eng.expect("hello")
        eng.send("rules " + variant_record("tablut"))
        eng.send("side attackers")
        eng.send("start")
        board = Board("tablut")                    # the Swedes (defenders) move first
        board.push(board.parse_move("e3-d3"))
        eng.send(f"opponent-move e3-d3 {board.position_otn()}")
        eng.send("play attackers")
        eng.send("clock 1000 1000 0 0 0")          # one second left: the clock bounds the think
        text = eng.expect("move ").split()[1]
        board.push(board.parse_move(text))
        eng.send("goodbye")
        assert eng.close() == 0
    finally:
        if eng.proc.poll() is None:
            eng.proc.kill()


# ---------------------------------------------------------------- rules records (no subprocess)

def test_rules_records_of_our_variants_round_trip_and_others_are_refused() -> None:
    assert match_rules(OPENTAFL_COPENHAGEN) == "copenhagen"
    # spelled differently but equal after the spec's defaults
    assert match_rules("dim:11 atkf:y ka:y ks:y sw:s efe:y esc:c cor:a1,k1,a11,k11, "
                       "start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
                       ) == "copenhagen"
    for v in ("york", "tablut", "tawlbwrdd"):
        assert match_rules(variant_record(v)) == v
    with pytest.raises(ValueError, match="atkf"):
        match_rules(FETLAR)
    with pytest.raises(ValueError):
        match_rules(OPENTAFL_COPENHAGEN.replace("efe:y", "efe:n"))
    with pytest.raises(ValueError, match="berserk"):
        match_rules(OPENTAFL_COPENHAGEN + " ber:c")
    with pytest.raises(ValueError, match="dim"):
        parse_rules_record("atkf:y start:/11/")


def test_simple_moves_from_full_otn_records() -> None:
    assert simple_move("Ke5-e1-") == "e5-e1"
    assert simple_move("e5-e8xe9/f8") == "e5-e8"
    assert simple_move("a3-e3+") == "a3-e3"
    with pytest.raises(ValueError):
        simple_move("---")


def test_session_resynchronises_on_a_position_it_did_not_expect() -> None:
    s = OtepSession(OtepSettings(level="easy"))
    s.handle("rules " + OPENTAFL_COPENHAGEN)
    b = Board("copenhagen")
    b.push(b.parse_move("d1-d3"))
    b.push(b.parse_move("f4-c4"))
    b.push(b.parse_move("h1-h3"))
    out = s.handle(f"opponent-move h1-h3 {b.position_otn()}")   # two moves were never sent
    assert any("resynchronised" in line for line in out)
    assert s.board.position_otn() == b.position_otn()
    assert s.board.turn.value == "defenders"
    assert s.handle("bogus")[0].startswith("status")
    assert s.handle("side middle")[0].startswith("error 0")


# ---------------------------------------------------------------- bestmove

def test_bestmove_prints_the_move_last_and_reports_bad_input() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run = subprocess.run(
        [sys.executable, "-m", "engine", "bestmove", "--variant", "copenhagen",
         "--position", "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
         "--turn", "attackers", "--level", "easy", "--seed", "4"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    last = run.stdout.strip().splitlines()[-1]
    board = Board("copenhagen")
    assert board.is_legal(board.parse_move(last))
    bad = subprocess.run(
        [sys.executable, "-m", "engine", "bestmove", "--variant", "copenhagen", "--level", "hard",
         "--moves", "d1-d3 d3-d1"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "move 2" in bad.stderr
