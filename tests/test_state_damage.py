"""Fault injection: every state file damaged in every way, and the real kiosk process booted on it.

The kiosk runs in a process of its own (kiosk/simnode.py: controller, camera
thread, gantry thread on the GRBL simulator's pty, search process) on a table
kept by the test. Before each boot one state file of a game in progress is
damaged in one way. Each boot must come up without a traceback (a crash at
boot is a crash loop under the unit's Restart=always), log a line naming the
damaged file, and either resume the game or declare it lost (and clear the
board). A boot is stopped as soon as that is seen, to keep the module quick.

The robot's ledger is the one book of where the pieces stand; an old
install's storage book (`inventory.json`) is merged into it once at boot, so
that file is damaged here too: each way is named in the log and the game goes
on. A journal cut exactly at a line end, or deleted while the board is full,
is found by the journal's mark (kiosk/journal.py) and never taken for a fresh
start.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from calibration.config import Config
from calibration.config_file import config_to_toml
from engine import Board
from robot.layout import TableLayout
from robot.ledger import Ledger
from robot.simulator import GrblSimulator

from kiosk.journal import CURRENT_NAME, Journal, _line
from kiosk.simnode import KioskNode, NodeView
from kiosk.simworld import SimWorld

pytestmark = pytest.mark.slow        # the real kiosk process booted on every damage

LEDGER_NAME = "gantry-ledger-board-11.json"
INVENTORY_NAME = "inventory.json"           # an old install's storage book
PLIES = 4


def game_moves() -> tuple[list[str], Board]:
    """Four plies of copenhagen without captures, the same on every run."""
    board, moves = Board("copenhagen"), []
    for _ in range(PLIES):
        move = next(m for m in sorted(board.legal_moves, key=board.move_to_otn) if not board.captures_of(m))
        moves.append(board.move_to_otn(move))
        board.push(move)
    return moves, board


def write_state(state: Path) -> tuple[list[str], Board]:
    """A game in progress: its journal (the visitor to move), and the robot's ledger."""
    moves, board = game_moves()
    j = Journal(state)
    j.append("game_started", variant="copenhagen", options={}, visitor_side="attackers", level="easy")
    j.append("setup_done")
    for i, otn in enumerate(moves):
        if i % 2 == 0:
            j.append("visitor_move", move=otn, captures=[], left=[])
        else:
            j.append("robot_move", move=otn, captures=[], plan=[])
            j.append("robot_move_done")
    j.append("state", state="visitor_turn")
    j.close()
    layout = TableLayout(Config())
    ledger = Ledger.in_storage(layout)
    ledger.places = {sq: p.value for sq, p in board.pieces().items()}
    ledger.save(state / LEDGER_NAME)
    return moves, board


def write_old_inventory(state: Path) -> None:
    """The storage book an old install kept beside the ledger: every slot empty (all on the board)."""
    rows = [[slot.side, slot.index, None] for slot in TableLayout(Config()).slots()]
    (state / INVENTORY_NAME).write_text(json.dumps({"board-11": rows}, indent=1) + "\n")


# --------------------------------------------------------------------------- ways to damage a file

def _middle_line(data: bytes, new: bytes) -> bytes:
    lines = data.split(b"\n")
    k = len(lines) // 2
    return b"\n".join(lines[:k] + [new] + lines[k + 1:])


def _impossible(path: Path, data: bytes) -> bytes:
    if path.name == CURRENT_NAME:          # a well-formed line, checksum and all, with an illegal move
        seq = data.count(b"\n") + 1
        return data + (_line(seq, time.time(), "visitor_move", {"move": "a1-a2", "captures": [], "left": []})
                       + "\n").encode()
    if path.name == INVENTORY_NAME:          # five kings in storage
        return json.dumps({"board-11": [["defenders", i, "K"] for i in range(5)]}).encode()
    ledger = json.loads(data)
    ledger["places"] = [[sq, "K"] for sq in range(5)]       # five kings
    return json.dumps(ledger).encode()


DAMAGE = {
    "zero bytes": lambda p, d: b"",
    "random bytes": lambda p, d: random.Random(7).randbytes(3000),
    "truncated": lambda p, d: d[:len(d) // 2],
    "torn last line": lambda p, d: d[:-12],
    "bad middle line": lambda p, d: _middle_line(d, b'{"seq": 4, "kind": "visitor_move", "move": "zz"}'),
    "null": lambda p, d: b"null\n",
    "[]": lambda p, d: b"[]\n",
    "{}": lambda p, d: b"{}\n",
    "invalid UTF-8": lambda p, d: d[:len(d) // 2] + b"\xff\xfe\xc3" + d[len(d) // 2 + 3:],
    "deleted": None,
    "impossible contents": _impossible,
}


# --------------------------------------------------------------------------- the kiosk process

class Boot(KioskNode):
    """One kiosk process on the test's table, its log in a file."""

    def __init__(self, world: SimWorld, config: Config, state: Path, port: str, log_path: Path) -> None:
        super().__init__(world, config, str(state), port, seed=1, log_path=str(log_path))
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait(self, done, timeout_s: float) -> NodeView:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            view = self.poll(0.05)
            if view is not None and done(view, self.log()):
                return view
            assert self.process.is_alive(), f"kiosk died (exit {self.process.exitcode}):\n{self.log()}"
        raise AssertionError(f"not booted in {timeout_s} s: {self.view}\n{self.log()}")


@pytest.fixture
def table(tmp_path):
    """A game in progress: the state directory, and the table showing its position."""
    config = Config()
    state = tmp_path / "state"
    moves, board = write_state(state)
    world = SimWorld(config, hand_seconds=0.25)
    world.place_position("copenhagen", board.pieces())
    sim = GrblSimulator(config, speed_factor=25.0, world=world, layout=world.layout)
    port = sim.start()
    boots: list[Boot] = []

    def boot() -> Boot:
        b = Boot(world, config, state, port, tmp_path / "kiosk.log")
        boots.append(b)
        return b

    yield state, moves, world, boot
    # Each test asserts on its boot before this point; how a kiosk stops is not examined here.
    # An orderly stop would wait ~1.4 s for work in flight (the gantry's connect and homing,
    # the camera's frame); a pulled plug ends it at once, and the table outlives it as it does
    # a power cut (the search process notices its parent is gone and ends by itself).
    for b in boots:
        if b.process.is_alive():
            b.kill()
    sim.stop()


def damage(path: Path, way: str) -> None:
    change = DAMAGE[way]
    if change is None:
        path.unlink()
    else:
        path.write_bytes(change(path, path.read_bytes()))


def settled(moves: list[str], path: Path, camera_check: bool = False):
    """The boot is over once the file is named in the log and the game is resumed (after a
    damaged journal: once the camera agreed with the rebuilt game) or declared lost."""
    def done(view: NodeView, log: str) -> bool:
        named = str(path) in log
        lost = "the game is lost" in log and view.state in ("clearing", "idle")
        resumed = view.resumed and list(view.moves) == moves[:len(view.moves)] and view.state in (
            "visitor_turn", "thinking", "robot_moving", "verify") and "the game is lost" not in log \
            and (not camera_check or "the camera agrees" in log)
        return named and (lost or resumed)
    return done


def no_traceback(log: str) -> None:
    assert "Traceback" not in log and "Error:" not in log.replace("LedgerError", ""), log


@pytest.mark.parametrize("way", list(DAMAGE))
def test_a_damaged_journal_never_stops_the_kiosk(table, way):
    state, moves, world, boot = table
    path = state / CURRENT_NAME
    damage(path, way)
    b = boot()
    view = b.wait(settled(moves, path, camera_check=True), 90)
    log = b.log()
    assert "WARNING kiosk.journal" in log and "damaged journal" in log
    if way == "deleted":
        # the journal's mark says a game was running: lost, said so, and the board is cleared
        assert "the journal is missing" in log and "the game is lost" in log and view.state in ("clearing", "idle")
    else:
        assert list(path.parent.glob(CURRENT_NAME + ".damaged-*")), "the damaged journal is kept for staff"
    if way in ("torn last line", "impossible contents"):
        assert view.resumed and list(view.moves) == moves          # nothing acknowledged was lost
    no_traceback(log)


def test_a_journal_cut_exactly_at_a_line_end_is_noticed(table):
    state, moves, world, boot = table
    path = state / CURRENT_NAME
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:-4]) + b"\n")     # whole lines, in order: only the mark can tell
    b = boot()
    view = b.wait(settled(moves, path, camera_check=True), 90)
    log = b.log()
    assert "WARNING kiosk.journal" in log and "records are missing" in log
    # the camera then decides: the board shows the robot's lost move, more than the rebuilt game has
    assert "the game is lost" in log and view.state in ("clearing", "idle")
    no_traceback(log)


@pytest.mark.parametrize("way", list(DAMAGE))
def test_a_damaged_old_storage_book_never_stops_the_kiosk(table, way):
    state, moves, world, boot = table
    path = state / INVENTORY_NAME
    write_old_inventory(state)
    damage(path, way)
    b = boot()
    if way == "deleted":
        # no old book: nothing to merge and nothing to say; the ledger alone carries storage
        view = b.wait(lambda v, log: v.resumed and v.state in ("visitor_turn", "thinking", "robot_moving",
                                                                "verify"), 90)
        assert str(path) not in b.log()
    else:
        view = b.wait(settled(moves, path), 90)
        log = b.log()
        named = [line for line in log.splitlines() if str(path) in line]
        assert len(named) == 1, named
        if way == "{}":
            assert named[0].startswith("INFO kiosk.inventory") and "merged into the robot's ledger" in named[0]
        else:
            assert named[0].startswith("WARNING kiosk.inventory") and "damaged storage book" in named[0] and "storage must be checked" in named[0]
            assert list(state.glob(INVENTORY_NAME + ".damaged-*"))
            assert json.loads((state / LEDGER_NAME).read_text())["storage_check_needed"] is True
    assert view.resumed and list(view.moves) == moves
    assert not path.exists()
    no_traceback(b.log())


def test_a_good_old_storage_book_is_merged_once_and_moved_aside(table):
    state, moves, world, boot = table
    write_old_inventory(state)
    b = boot()
    view = b.wait(settled(moves, state / INVENTORY_NAME), 90)
    log = b.log()
    assert view.resumed and "merged into the robot's ledger (gantry-ledger-board-11.json)" in log
    assert not (state / INVENTORY_NAME).exists() and list(state.glob(INVENTORY_NAME + ".merged-*"))
    assert "storage_check_needed" not in json.loads((state / LEDGER_NAME).read_text())
    no_traceback(log)


@pytest.mark.parametrize("way", list(DAMAGE))
def test_a_damaged_ledger_never_stops_the_kiosk(table, way):
    state, moves, world, boot = table
    path = state / LEDGER_NAME
    damage(path, way)
    b = boot()
    view = b.wait(settled(moves, path), 90)
    log = b.log()
    assert view.resumed and list(view.moves) == moves                  # the journal carries the game
    if way == "deleted":
        assert f"{path}: no ledger yet" in log
    else:
        assert "WARNING kiosk.robot" in log and "damaged ledger" in log and "storage must be checked" in log
        assert list(state.glob(LEDGER_NAME + ".damaged-*"))
    no_traceback(log)


# --------------------------------------------------------------------------- the config file

def run_kiosk(tmp_path: Path, config_path: Path) -> tuple[int | None, str]:
    """`tafl-kiosk --config FILE` on a simulated table, stopped once it is up (or when it exits)."""
    proc = subprocess.Popen([sys.executable, "-m", "kiosk", "--config", str(config_path), "--simulate",
                             "--headless", "--autoplay", "1", "--state", str(tmp_path / "state")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    out = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:                  # the first game's line means it is up and playing
            out.append(line)
            if line.startswith("autoplay:"):
                break
        if proc.poll() is None:
            proc.terminate()
        rest, _ = proc.communicate(timeout=30)
        out.append(rest or "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, "".join(out)


CONFIG_DAMAGE = {**{k: v for k, v in DAMAGE.items() if k != "impossible contents"},
                 "impossible contents": lambda p, d: b'[gantry]\nmagnet_on = "M9"\nmagnet_off = "M9"\n',
                 "5,000 nested [": lambda p, d: b"x = " + b"[" * 5000 + b"\n"}


@pytest.mark.parametrize("way", list(CONFIG_DAMAGE))
def test_a_damaged_config_is_named_in_one_line_and_never_a_traceback(tmp_path, way):
    path = tmp_path / "config.toml"
    config = Config()
    config.kiosk.reward_secret = "0123456789abcdef0123"
    path.write_text(config_to_toml(config))
    damage(path, way) if way in DAMAGE and way != "impossible contents" else path.write_bytes(
        CONFIG_DAMAGE[way](path, path.read_bytes()))
    code, out = run_kiosk(tmp_path, path)
    assert "Traceback" not in out, out
    assert str(path) in out, out
    if way in ("zero bytes", "deleted"):
        # a kiosk without its config comes up on the defaults and says loudly what it lacks
        assert "WARNING" in out and "built-in defaults" in out and "autoplay:" in out
    else:
        # anything else in the file is refused, every problem named, in lines that name the file
        assert code == 2 and out.startswith("tafl-kiosk: ") and "autoplay:" not in out, out
