"""The search process (kiosk/engine_worker.py): replies, superseded requests, pondering."""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from multiprocessing.connection import Connection
from pathlib import Path

from engine import Board
from kiosk.engine_worker import EngineWorker, ponder, search_move

LEVELS = {
    "easy": {"time_s": 0.2, "max_depth": 1, "noise": 40.0, "blunder_guard": True},
    "hard": {"time_s": 0.5, "max_depth": 64, "noise": 0.0, "blunder_guard": True},
}
OPENING = ["d11-d9", "f4-d4"]


def _answer(worker: EngineWorker, wait_s: float = 60.0):
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        reply = worker.poll()
        if reply is not None:
            return reply
        time.sleep(0.02)
    return None


def _legal_after(moves: list[str], reply: str) -> bool:
    board = Board("copenhagen")
    for m in moves:
        board.push(board.parse_move(m))
    return board.is_legal(board.parse_move(reply.split("x")[0]))


def test_a_request_interrupts_a_ponder_and_is_answered_from_the_same_process():
    # a ponder allowed ten minutes: only the interruption can make the reply come back
    worker = EngineWorker(LEVELS, seed=1, ponder_max_s=600.0)
    try:
        worker.ponder("copenhagen", {}, OPENING, "hard")
        time.sleep(1.0)                          # the ponder is under way
        moves = OPENING + ["h11-h9"]
        worker.request(7, "copenhagen", {}, moves, "hard")
        reply = _answer(worker)
        assert reply is not None, "the ponder was not interrupted by the request"
        assert reply[0] == 7 and _legal_after(moves, reply[1])
    finally:
        worker.stop()


def test_only_the_latest_request_is_answered():
    worker = EngineWorker(LEVELS, seed=2)
    try:
        worker.request(1, "copenhagen", {}, [], "easy")
        worker.request(2, "copenhagen", {}, OPENING, "easy")
        reply = _answer(worker)
        assert reply is not None and reply[0] == 2 and _legal_after(OPENING, reply[1])
        worker.cancel()
        worker.request(3, "copenhagen", {}, [], "easy")
        reply = _answer(worker)
        assert reply is not None and reply[0] == 3
    finally:
        worker.stop()


def test_pondering_is_skipped_for_shallow_levels_and_fills_the_table_otherwise():
    table: dict = {}
    assert ponder("copenhagen", {}, OPENING, LEVELS["easy"] | {"name": "easy"}, 0, table,
                  interrupted=lambda: False, max_s=5.0) is None
    assert table == {}
    calls = {"n": 0}

    def after_a_while() -> bool:           # interrupt after a fixed amount of work, not of time
        calls["n"] += 1
        return calls["n"] > 3000        # about 48,000 nodes
    result = ponder("copenhagen", {}, OPENING, LEVELS["hard"] | {"name": "hard"}, 0, table,
                    interrupted=after_a_while, max_s=600.0)
    assert result is not None and len(table) > 2000
    board = Board("copenhagen")
    for m in OPENING:
        board.push(board.parse_move(m))
    assert board.is_legal(board.parse_move(result.expected.split("x")[0]))     # the visitor's move it expects
    assert result.depth >= 2 and result.reply                                  # and the answer it searched
    # the robot's search after the visitor's move starts from that table and still answers legally
    moves = OPENING + [result.expected.split("x")[0]]
    assert _legal_after(moves, search_move("copenhagen", {}, moves, LEVELS["hard"] | {"name": "hard"}, 0, tt=table))


def test_a_bad_history_comes_back_as_an_error_and_pondering_can_be_off():
    worker = EngineWorker(LEVELS, seed=3, pondering=False)
    try:
        worker.ponder("copenhagen", {}, [], "hard")      # pondering off: nothing is sent
        worker.request(5, "copenhagen", {}, ["zz-99"], "easy")
        deadline = time.monotonic() + 60
        error = None
        while time.monotonic() < deadline and error is None:
            try:
                worker.poll()
            except RuntimeError as exc:
                error = str(exc)
            time.sleep(0.02)
        assert error is not None and "history move 1" in error
    finally:
        worker.stop()


def _kiosk_that_dies_at_once(conn: Connection) -> None:
    """A kiosk process that starts its search process and is gone before that has started."""
    worker = EngineWorker(LEVELS, seed=4)
    conn.send(worker.pid)
    os._exit(0)                          # no goodbye: as a crash at boot or a pulled plug


def _running(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_a_search_process_whose_kiosk_died_while_it_started_ends_by_itself():
    # the kiosk is gone before the spawned search process runs a line of its own: it was left to
    # init at once, so only the kiosk's pid handed over at the start tells it that it is alone
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    kiosk = ctx.Process(target=_kiosk_that_dies_at_once, args=(there,))
    kiosk.start()
    pid = here.recv()
    kiosk.join(timeout=30)
    assert pid is not None and kiosk.exitcode == 0
    deadline = time.monotonic() + 30
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    lingering = _running(pid)
    if lingering:
        os.kill(pid, signal.SIGKILL)     # leave no orphan behind a failed test
    assert not lingering, "the search process outlived its kiosk"
