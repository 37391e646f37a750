"""The search's accounting: time budget, node cap, determinism, levels from config records.

Time is checked on an injected clock that advances a fixed step per read, so
"the search stopped within 10 % of its budget" is asserted on the search's own
accounting, independent of how busy the test machine is.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from engine.board import Board
from engine.levels import DEFAULT_LEVELS, Level, get_level, level_from_mapping
from engine.search import Searcher, best_move_text, search_board
from engine.timecontrol import (CHECK_EVERY, Deadline, GameClock, budget_from_clock,
                                parse_otep_clock)


class StepClock:
    """A clock that advances ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.t = 100.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.t += self.step
        return self.t


@pytest.mark.parametrize("variant", ["copenhagen", "tablut"])
def test_hard_stops_inside_its_budget_by_the_clock(variant: str) -> None:
    clock = StepClock(0.0005)   # ~16 nodes per read: a slow machine, about 30k node-reads/s
    board = Board(variant)
    level = replace(get_level("hard"), time_s=0.5)
    result = Searcher(board, level, seed=1, clock=clock).search()
    assert result.stopped_by == "time"
    assert result.elapsed_s <= 0.5 * 1.10
    assert result.depth >= 1 and result.move is not None
    assert board.ply == 0   # the board is restored after an interrupted search


@pytest.mark.parametrize("step", [0.0021, 0.0013, 0.0007, 0.0003])
def test_an_interrupted_search_restores_the_board_exactly(step: float) -> None:
    # different clock steps interrupt the search in different places (null moves,
    # reduced searches, the root); the position, hash and history must survive
    board = Board("copenhagen")
    for m in ("d1-d3", "f4-c4", "h1-h3", "d6-d5"):
        board.push(board.parse_move(m))
    before = (board.position_otn(), board.zobrist_hash(), board.turn, board.ply, _history(board))
    Searcher(board, replace(get_level("hard"), time_s=0.4), seed=3, clock=StepClock(step)).search()
    assert (board.position_otn(), board.zobrist_hash(), board.turn, board.ply, _history(board)) == before


def test_the_clock_is_read_often_enough() -> None:
    # between two reads at most CHECK_EVERY nodes run: with the step clock the
    # number of reads bounds the nodes searched
    clock = StepClock(0.001)
    result = Searcher(Board("copenhagen"), replace(get_level("hard"), time_s=0.3),
                      seed=1, clock=clock).search()
    assert result.nodes <= (clock.reads + 1) * CHECK_EVERY


def test_node_cap_stops_the_search_and_is_reproducible() -> None:
    level = replace(get_level("hard"), time_s=120.0, max_nodes=3000)
    a = search_board(Board("copenhagen"), level, seed=7)
    b = search_board(Board("copenhagen"), level, seed=7)
    assert a.stopped_by == "nodes"
    assert a.nodes <= 3000 + 1
    assert (a.move_text, a.score, a.nodes, a.depth) == (b.move_text, b.score, b.nodes, b.depth)


def test_noise_depends_on_the_seed_only() -> None:
    noisy = Level("noisy", time_s=60.0, max_depth=1, noise=400.0)
    moves = {search_board(Board("copenhagen"), noisy, seed=s).move_text for s in range(8)}
    again = {search_board(Board("copenhagen"), noisy, seed=s).move_text for s in range(8)}
    assert moves == again
    assert len(moves) > 1          # different seeds give different (human-like) choices


def test_depth_cap_is_honoured() -> None:
    result = search_board(Board("york"), replace(get_level("medium"), time_s=60.0), seed=0)
    assert result.depth == get_level("medium").max_depth
    assert result.stopped_by == "depth"


def test_best_move_text_plays_from_the_game_history_and_is_legal() -> None:
    moves = ["d1-d3", "f4-c4", "h1-h3"]
    text = best_move_text("copenhagen", {}, moves=moves,
                          level={"name": "medium", "time_s": 5.0, "max_depth": 2, "noise": 0.0,
                                 "blunder_guard": True}, seed=3)
    board = Board("copenhagen")
    for m in moves:
        board.push(board.parse_move(m))
    assert board.is_legal(board.parse_move(text))


def test_best_move_text_rejects_a_finished_game_and_bad_history() -> None:
    with pytest.raises(ValueError, match="history move 1"):
        best_move_text("copenhagen", moves=["a1-a2"], level="easy")
    # king already on a corner: game over
    with pytest.raises(ValueError, match="over"):
        best_move_text("copenhagen", position="/K10/11/11/11/11/5t5/11/11/11/11/10t/",
                       turn="attackers", level="easy")


# ---------------------------------------------------------------- levels

@dataclass
class ConfigLevel:             # the shape of calibration.config.LevelConfig
    time_s: float
    max_depth: int
    noise: float
    blunder_guard: bool = True


def test_levels_come_from_config_records_and_dicts() -> None:
    lv = level_from_mapping("easy", ConfigLevel(0.7, 2, 35.0))
    assert (lv.time_s, lv.max_depth, lv.noise, lv.blunder_guard, lv.max_nodes) == (0.7, 2, 35.0, True, 0)
    lv = level_from_mapping("hard", {"time_s": 3, "max_depth": 9, "max_nodes": 100, "note": "x"})
    assert (lv.time_s, lv.max_depth, lv.max_nodes) == (3.0, 9, 100)
    assert get_level("MEDIUM") == DEFAULT_LEVELS["medium"]
    with pytest.raises(ValueError, match="unknown level"):
        get_level("grandmaster")
    with pytest.raises(ValueError, match="time_s"):
        level_from_mapping("x", {"max_depth": 3})
    with pytest.raises(ValueError, match="max_depth"):
        level_from_mapping("x", {"time_s": 1, "max_depth": 0})


def test_engine_level_defaults_match_the_config_schema() -> None:
    from calibration.config import EngineConfig

    for name, cfg in EngineConfig().levels.items():
        ours = DEFAULT_LEVELS[name]
        assert (ours.time_s, ours.max_depth, ours.noise, ours.blunder_guard) == (
            cfg.time_s, cfg.max_depth, cfg.noise, cfg.blunder_guard), name


# ---------------------------------------------------------------- time control

def test_deadline_soft_and_hard_limits() -> None:
    t = [0.0]
    d = Deadline(1.0, clock=lambda: t[0])
    assert d.may_start_iteration() and not d.expired()
    t[0] = 0.5
    assert not d.may_start_iteration() and not d.expired()
    t[0] = 0.97
    assert d.expired()
    with pytest.raises(ValueError):
        Deadline(0.0)


def test_budget_from_an_otep_clock() -> None:
    att, dfd = parse_otep_clock("300000 240000* 30 3 2".split())
    assert att == GameClock(300.0, False, 30.0, 3)
    assert dfd == GameClock(240.0, True, 30.0, 2)
    # main time: a thirtieth of it plus most of an overtime period, capped by the level
    assert budget_from_clock(att, cap_s=100.0) == pytest.approx((300.0 - 0.3) / 30 + 18.0)
    assert budget_from_clock(att, cap_s=4.0) == 4.0
    # in overtime: at most 60 % of what is left of the period
    assert budget_from_clock(GameClock(2.0, True, 30.0, 1), cap_s=10.0) == pytest.approx(0.9)
    with pytest.raises(ValueError):
        parse_otep_clock(["12x", "5"])


def _history(board: Board) -> list[tuple[int, int]]:
    """Every earlier position's hash and repetition count, read by taking the moves back on a copy."""
    copy, out = board.copy(), []
    while copy.move_stack:
        out.append((copy.zobrist_hash(), copy.repetitions()))
        copy.pop()
    return out
