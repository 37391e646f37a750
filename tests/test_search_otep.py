"""`tafl-engine otep` and `tafl-engine bestmove` driven as OpenTafl and scripts drive them: a real subprocess.

The OTEP test plays a short scripted game the way OpenTafl does it: rules,
side, start, then for each of the engine's turns `opponent-move <move>
<position>`, `play`, `clock`, reading the engine's `move` and confirming it
with `move <position>`. Every engine move is checked legal on our own board.
"""
from __future__ import annotations

import os
import queue
import random
import re
import subprocess
import sys
import threading
from dataclasses import dataclass as _dataclass
from pathlib import Path

import pytest

from engine.board import Board
from engine.types import Side
from engine.otep import (OtepSession, OtepSettings, match_rules, parse_rules_record, run_stdio, simple_move,
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
    assert match_rules(OPENTAFL_COPENHAGEN).variant == "copenhagen"
    # spelled differently but equal after the spec's defaults
    assert match_rules("dim:11 atkf:y ka:y ks:y sw:s efe:y esc:c cor:a1,k1,a11,k11, "
                       "start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
                       ).variant == "copenhagen"
    for v in ("york", "tablut", "tawlbwrdd"):
        assert match_rules(variant_record(v)).variant == v
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


# ---------------------------------------------------------------- OpenTafl's exact messages
#
# What OpenTafl's ExternalEngineHost writes, per message (jslater89/OpenTafl,
# opentafl-engine-protocol.txt and ExternalEngineHost.java):
#   rules <RulesSerializer record>      entries only where not default; start last
#   side attackers|defenders            before 'start'; after 'position', the side to move
#   clock <a-ms>[*] <d-ms>[*] <ot-s> <a-ots> <d-ots>      (a trailing space; '*' = in overtime)
#   play attackers|defenders            sent right AFTER its clock line (code), spec says before
#   opponent-move <from-to>[|...] <position>     simple notation by default
#   move <position>                     confirms our move; 'error <1..4>' refuses it
#   analyze <number> <seconds>          after 'position', 'side', 'clock'
#   finish <0..3>, goodbye
# A position record's FIRST row is rank 1 (Coord y=0 is written "a1"): hand-written below,
# not produced by our Board, so an orientation mismatch would show.


#: OpenTafl's own move-record pattern (MoveSerializer.getMoveRegex, simple subset): what it parses
JAVA_MOVE = re.compile(r"^([tcnkTCNK]?)([a-s][0-9]{1,2})([\^=\-]{1,2})([a-s][0-9]{1,2})"
                       r"(x[tcnkTCNK]?[a-s][0-9]{1,2}(/[tcnkTCNK]?[a-s][0-9]{1,2}){0,3})?([+|\-]{1,3})?$")
#: the Copenhagen record exactly as RulesSerializer.getRulesRecord writes it (Copenhagen.java:
#: attackers first, tfr:w, strong shieldwall, edge forts; every space group at its default)
OT_COPENHAGEN = ("dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y "
                 "start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")
#: the start after the attackers' d1-d3, written by hand in OpenTafl's row order (rank 1 first)
AFTER_D1_D3 = "/4tttt3/5t5/3t7/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"


@_dataclass
class _FakeResult:
    move: object
    move_text: str
    score: int = 12
    depth: int = 1
    nodes: int = 1
    elapsed_s: float = 0.0
    pv: list | None = None


class RecordingSearch:
    """Stands in for the search: plays the first legal move and records the time it was given."""

    def __init__(self, fail: bool = False) -> None:
        self.seconds: list[float] = []
        self.fail = fail

    def __call__(self, board, level, seconds, seed):
        self.seconds.append(seconds)
        if self.fail:
            raise RuntimeError("boom")
        mv = board.legal_moves[0]
        return _FakeResult(mv, board.move_to_otn(mv), pv=[board.move_to_otn(mv)])


def test_opentafl_copenhagen_record_and_orientation() -> None:
    assert match_rules(OT_COPENHAGEN).variant == "copenhagen"
    relaxed = OT_COPENHAGEN.replace("name:Copenhagen", "name:Copenhagen_(relaxed_shieldwall)") \
                           .replace("efe:y", "swf:n efe:y")
    assert match_rules(relaxed).options_dict["shieldwall_flank"] == "false"
    # fort piece lists mean nothing without forts (spec and code disagree on dforp's default)
    assert match_rules(OT_COPENHAGEN.replace("efe:y", "efe:y dforp:TCNK aforre:")).variant == "copenhagen"
    for extra in ("spd:2", "spd:1,2,", "cenre:K", "ks:c", "ka:h", "surf:n", "esc:e", "cenh:"):
        with pytest.raises(ValueError):
            match_rules(OT_COPENHAGEN.replace("efe:y", "efe:y " + extra))
    b = Board("copenhagen")
    b.push(b.parse_move("d1-d3"))
    assert b.position_otn() == AFTER_D1_D3


def test_session_copenhagen_game_as_opentafl_sends_it() -> None:
    search = RecordingSearch()
    s = OtepSession(OtepSettings(level="hard"), search)
    assert s.greeting() == ["hello"]
    assert s.handle("rules " + OT_COPENHAGEN) == ["status playing copenhagen (repetition=mover_loses)"]
    assert s.handle("side defenders") == []
    assert s.handle("start") == []
    # OpenTafl: opponent-move, then clock (before play, as its code does), then play
    assert s.handle(f"opponent-move d1-d3 {AFTER_D1_D3}") == []      # no resync: same orientation
    assert s.handle("clock 300000 299000 30 3 3 ") == []
    out = s.handle("play defenders")
    assert out[-1].startswith("move ") and JAVA_MOVE.match(out[-1][5:])
    assert sum(1 for line in out if not line.startswith("status")) == 1
    # 299 s main + 3 x 30 s overtime: (299 - 0.3) / 30 + 0.6 * 30 > the level's 4 s cap
    assert search.seconds[-1] == pytest.approx(4.0)
    mine = Board("copenhagen")
    mine.push(mine.parse_move("d1-d3"))
    mine.push(mine.parse_move(out[-1][5:]))
    assert s.handle(f"move {mine.position_otn()}") == []              # confirmation, in step
    assert s.board.position_otn() == mine.position_otn()
    # main time nearly gone: the budget follows the clock, far below the level's 4 s
    attacker = mine.legal_moves[0]
    simple = mine.move_to_otn(attacker).split("x")[0]       # OpenTafl's simple notation
    mine.push(attacker)
    assert s.handle(f"opponent-move {simple} {mine.position_otn()}") == []
    assert s.board.position_otn() == mine.position_otn()
    s.handle("clock 280000 3000 0 0 0 ")
    s.handle("play defenders")
    assert 0.05 <= search.seconds[-1] <= (3.0 - 0.3) / 30 + 1e-9
    # in overtime ('*'): 5 s left of the period, never more than 60 % of it
    s.handle("error 2")                     # refused: OpenTafl re-sends opponent-move, clock, play
    assert s.handle(f"opponent-move {simple} {mine.position_otn()}") == []   # already known
    s.handle("clock 280000 5000* 10 3 2 ")
    out = s.handle("play defenders")
    assert out[-1].startswith("move ")
    assert search.seconds[-1] <= 0.6 * 5.0
    assert s.board.position_otn() == mine.position_otn()              # the refused move not played
    assert s.handle("finish 3") == [] and s.finished
    assert s.handle("goodbye") == [] and s.done


def test_session_clock_after_play_and_search_failure_still_answer_a_move() -> None:
    s = OtepSession(OtepSettings(level="hard", think_s=2.0), RecordingSearch(fail=True))
    s.handle("rules " + OT_COPENHAGEN)
    s.handle("side attackers")
    s.handle("start")
    out = s.handle("play attackers")        # the search raises: a legal move all the same
    assert out[-1].startswith("move ") and Board("copenhagen").is_legal(
        Board("copenhagen").parse_move(out[-1][5:]))
    assert any("search failed" in line for line in out)


def test_session_analysis_as_opentafl_requests_it() -> None:
    search = RecordingSearch()
    s = OtepSession(OtepSettings(level="hard"), search)
    s.handle("rules " + OT_COPENHAGEN)
    # OpenTafl's analyzePosition: position, side (the side TO MOVE), clock, analyze
    s.handle(f"position {AFTER_D1_D3}")
    s.handle("side defenders")
    s.handle("clock 300000 300000 30 3 3 ")
    out = s.handle("analyze 5 30")
    assert len(out) == 1 and out[0].startswith("analysis ")
    parts = out[0][len("analysis "):].split(" ")
    assert len(parts) % 2 == 1 and int(parts[0]) == (len(parts) - 1) // 2 >= 1   # Java's check
    float(parts[2])                                                  # Double.parseDouble
    for mv in parts[1].split("|"):
        assert JAVA_MOVE.match(mv)
    board = Board.from_otn("copenhagen", AFTER_D1_D3, turn="defenders")
    assert board.is_legal(board.parse_move(parts[1].split("|")[0]))
    assert search.seconds[-1] <= 30


def test_run_stdio_takes_the_clock_sent_before_play_and_writes_only_protocol_lines() -> None:
    import io

    search = RecordingSearch()
    feed = io.StringIO("rules " + OT_COPENHAGEN + "\nside attackers\nstart\n"
                       "clock 60000 60000 0 0 0 \nplay attackers\ndump 3\ngoodbye\n")
    out = io.StringIO()
    assert run_stdio(OtepSettings(level="hard"), feed, out, search=search) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "hello"
    assert search.seconds == [pytest.approx((60.0 - 0.3) / 30)]
    moves = [line for line in lines if line.startswith("move ")]
    assert len(moves) == 1 and JAVA_MOVE.match(moves[0][5:])
    for line in lines:
        assert line.split(" ")[0] in ("hello", "status", "move", "error", "analysis")
        assert line.isascii()


def test_otep_subprocess_copenhagen_attackers_with_clock_and_analysis() -> None:
    eng = Engine("otep", "--level", "hard", "--time", "0.3")
    try:
        assert eng.expect("hello") == "hello"
        eng.send("rules " + OT_COPENHAGEN)
        eng.send("side attackers")
        eng.send("start")
        board = Board("copenhagen")
        for _ in range(2):
            eng.send("clock 120000 120000 10 1 1 ")
            eng.send("play attackers")
            text = eng.expect("move ", timeout=30).split(" ", 1)[1]
            assert JAVA_MOVE.match(text)
            board.push(board.parse_move(text))
            eng.send(f"move {board.position_otn()}")
            reply = board.legal_moves[len(board.legal_moves) // 2]
            eng.send(f"opponent-move {board.move_to_otn(reply).split('x')[0]} "
                     f"{(board.push(reply), board.position_otn())[1]}")
        eng.send("finish 0")
        eng.send("goodbye")
        assert eng.close() == 0
        # a separate analysis engine, as OpenTafl runs one
        ana = Engine("otep", "--level", "hard", "--time", "0.3")
        try:
            ana.expect("hello")
            ana.send("rules " + OT_COPENHAGEN)
            ana.send(f"position {board.position_otn()}")
            ana.send(f"side {board.turn.value}")
            ana.send("clock 120000 120000 10 1 1 ")
            ana.send("analyze 5 2")
            parts = ana.expect("analysis", timeout=30).split(" ")[1:]
            assert len(parts) % 2 == 1 and float(parts[2]) == float(parts[2])
            assert board.is_legal(board.parse_move(parts[1].split("|")[0]))
            ana.send("goodbye")
            assert ana.close() == 0
        finally:
            if ana.proc.poll() is None:
                ana.proc.kill()
    finally:
        if eng.proc.poll() is None:
            eng.proc.kill()


def test_session_still_moves_when_our_board_thinks_the_game_is_over() -> None:
    """Our board may think the game over where the host does not (a resynchronised position
    lost its history): OpenTafl still asks for a move, and gets one."""
    search = RecordingSearch()
    s = OtepSession(OtepSettings(level="hard"), search)
    s.handle("rules " + OT_COPENHAGEN)
    s.handle("side attackers")
    s.board.outcome = lambda: "over"        # what a repetition loss on our side looks like
    out = s.handle("play attackers")
    assert out[-1].startswith("move ")
    assert Board("copenhagen").is_legal(Board("copenhagen").parse_move(out[-1][5:]))


# ---------------------------------------------------------------- a whole game, as OpenTafl hosts it
#
# ExternalEnginePlayer / ExternalEngineHost (OpenTafl 0.4.8.0b), an untimed game:
#   host starts the engine and at once sends   rules <getOTRString>     (setGame; maybe before hello)
#   engine                                     hello
#   each engine turn: opponent-move <a-b> <position>  (moves since our last; none before a first move)
#                     [clock ...] only in timed games (GameClock null: clockUpdate sends nothing)
#                     play <attackers|defenders>
#   engine                                     move <a-b>
#   host                                       move <position>   or   error 2, then opponent-move
#                                              (the prior move, the right position) and play again
#   game over                                  finish <0..3>, then goodbye
# The host referees with its own rules: here our Board with the options the record means.



def _host_reply(board: Board, rng: random.Random) -> str:
    """The scripted opponent: a winning move, else a capture, else a seeded random move."""
    moves = board.legal_moves
    scored = []
    for mv in moves:
        caps = board.push(mv)
        end = board.outcome()
        board.pop()
        scored.append((end is not None and end.winner == board.turn, bool(caps), rng.random(), mv))
    return board.move_to_otn(max(scored, key=lambda t: t[:3])[3]).split("x")[0]


@pytest.mark.parametrize("record, engine_side", [
    (OT_COPENHAGEN, "defenders"),                                        # tfr:w, sw:s
    (OT_COPENHAGEN.replace("tfr:w ", "").replace("efe:y", "swf:n efe:y"), "attackers"),  # tfr:d swf:n
])
def test_otep_whole_game_with_opentafls_message_sequence(record: str, engine_side: str) -> None:
    host = match_rules(record)
    board = Board(host.variant, host.options_dict)          # the host's referee
    rng = random.Random(7)
    eng = Engine("otep", "--level", "easy", "--time", "0.05", "--seed", "3")
    replies: list[str] = []

    def until_move() -> str:
        """Every line up to the engine's move: only status lines may come before it."""
        while True:
            line = eng.lines.get(timeout=30)
            assert line is not None, "the engine exited mid-game"
            replies.append(line)
            if line.startswith("move "):
                return line[5:]
            assert line.startswith("status "), line
            assert "resynchronised" not in line and "failed" not in line, line

    try:
        eng.send("rules " + record)                         # before hello, as setGame does
        assert eng.lines.get(timeout=30) == "hello"
        assert eng.lines.get(timeout=30) == f"status playing {host.describe()}"
        last_opponent: str | None = None
        refused_once = False
        while board.outcome() is None and board.ply < 400:
            if board.turn.value != engine_side:
                last_opponent = _host_reply(board, rng)
                board.push(board.parse_move(last_opponent))
                continue
            if last_opponent is not None:
                eng.send(f"opponent-move {last_opponent} {board.position_otn()}")
            eng.send(f"play {engine_side}")
            text = until_move()
            assert JAVA_MOVE.match(text), text
            mv = board.parse_move(text)                     # raises if illegal for the host
            if not refused_once and last_opponent is not None:
                refused_once = True                         # the host refuses it once: error 2
                eng.send("error 2")
                eng.send(f"opponent-move {last_opponent} {board.position_otn()}")
                eng.send(f"play {engine_side}")
                text = until_move()
                mv = board.parse_move(text)
            board.push(mv)
            eng.send(f"move {board.position_otn()}")
        end = board.outcome()
        code = 0 if end is None else 1 if end.winner is None else 2 if end.winner == Side.ATTACKERS else 3
        eng.send(f"finish {code}")
        eng.send("goodbye")
        assert eng.close() == 0
        rest = []
        while (line := eng.lines.get(timeout=5)) is not None:
            rest.append(line)
        assert all(line.startswith("status ") for line in rest), rest
        assert not any(line.startswith("error") for line in replies + rest)
        assert end is not None and refused_once          # the game was played to its end
    finally:
        if eng.proc.poll() is None:
            eng.proc.kill()


def test_run_stdio_searches_a_play_without_a_clock_at_once() -> None:
    """No fixed wait: the search starts as soon as ``play`` is read (the old loop waited 0.25 s
    for a clock that an untimed OpenTafl game never sends). The gap is logged by the search
    itself; the bound is far above a queue hand-off and below the old wait."""
    import io
    import time

    started = threading.Event()
    log: dict[str, float] = {}

    class Search(RecordingSearch):
        def __call__(self, board, level, seconds, seed):
            log["search"] = time.monotonic()
            started.set()
            return super().__call__(board, level, seconds, seed)

    def feed():
        yield "rules " + OT_COPENHAGEN + "\n"
        log["play"] = time.monotonic()
        yield "play attackers\n"
        started.wait(10)                 # the host sends nothing more until it has a move
        yield "goodbye\n"

    out = io.StringIO()
    search = Search()
    assert run_stdio(OtepSettings(level="hard"), feed(), out, search=search) == 0
    assert search.seconds == [4.0]                      # the level's time: there is no clock
    assert log["search"] - log["play"] < 0.2
    assert [line for line in out.getvalue().splitlines() if line.startswith("move ")]


def test_hostile_lines_get_an_error_and_the_session_goes_on() -> None:
    s = OtepSession(OtepSettings(level="easy"), RecordingSearch())
    for line in ("rules dim:99999 start:/1/", "rules dim:\u0661\u0661 " + OT_COPENHAGEN[7:],
                 "rules " + OT_COPENHAGEN.replace("/11/", "/100000000/", 1)):
        out = s.handle(line)
        assert len(out) == 1 and out[0].startswith("error -1 rules not supported"), out
    assert s.handle("rules " + OT_COPENHAGEN)[0].startswith("status playing")
    for line in ("position /100000000/" + "11/" * 10, "position " + "9" * 5000,
                 "opponent-move d01-d3 " + AFTER_D1_D3.replace("/3t7/", "/3t07/"), "side \u0661"):
        out = s.handle(line)
        assert len(out) == 1 and out[0].startswith("error 0") and len(out[0]) < 400, out
    assert s.board.position_otn() == Board("copenhagen").position_otn()
    assert s.handle("play attackers")[-1].startswith("move ")
