"""The controller's small parts: journal, reconciliation, faults, CLI."""
from __future__ import annotations

import json
import math

import pytest

from engine import Piece

from kiosk.cli import main as cli_main
from kiosk.faults import FAULT_KINDS, parse_faults
from kiosk.inventory import StorageBook
from kiosk.journal import Journal, read_records
from kiosk.ports import Slot
from kiosk.reconcile import diff_squares, reconcile
from kiosk.states import State, check_transition


def test_journal_survives_a_torn_last_line_and_archives(tmp_path):
    j = Journal(tmp_path)
    j.append("game_started", variant="copenhagen", options={}, visitor_side="attackers", level="easy")
    j.append("visitor_move", move="d1-d3")
    with open(j.path, "a", encoding="utf-8") as f:
        f.write('{"seq": 3, "kind": "robot_mo')          # the power went here
    again = Journal(tmp_path)
    assert [r.kind for r in again.records] == ["game_started", "visitor_move"]
    rec = again.append("robot_move", move="f4-c4")
    assert rec.seq == 3
    assert json.loads(again.path.read_text().splitlines()[-1])["move"] == "f4-c4"
    assert [r.kind for r in Journal(tmp_path).records] == ["game_started", "visitor_move", "robot_move"]
    target = again.archive("copenhagen")
    assert target is not None and target.parent.name == "games"
    assert read_records(target)[0].kind == "game_started"
    assert Journal(tmp_path).records == []


def test_closed_journal_refuses_writes(tmp_path):
    j = Journal(tmp_path)
    j.close()
    with pytest.raises(RuntimeError):
        j.append("state", state="idle")


def _planner():
    from calibration.config import Config
    from robot.layout import TableLayout
    from robot.planner import MotionPlanner

    return MotionPlanner(TableLayout(Config(), "board-11"))


def test_reconcile_keeps_pieces_in_place_moves_board_to_board_and_uses_storage_for_the_difference():
    inv = {Slot("attackers", 0): Piece.ATTACKER}
    observed = {5: Piece.ATTACKER, 7: Piece.DEFENDER, 30: Piece.ATTACKER}
    target = {6: Piece.ATTACKER, 8: Piece.ATTACKER, 30: Piece.ATTACKER}
    plan = reconcile(observed, target, inv, _planner())
    assert plan.complete
    moves = {(t.src, t.dst) for t in plan.transfers}
    assert all(30 not in (t.src, t.dst) for t in plan.transfers)          # already on its square: stays
    assert (5, 6) in moves or (5, 8) in moves                             # board to board, not via storage
    parked = [t for t in plan.transfers if t.src == 7]
    assert len(parked) == 1 and parked[0].dst.side == "defenders" and parked[0].dst != Slot("defenders", 0)
    assert [t.src for t in plan.transfers if isinstance(t.src, Slot)] == [Slot("attackers", 0)]


def test_reconcile_reports_missing_pieces_and_diff():
    plan = reconcile({}, {60: Piece.KING}, {}, _planner())
    assert not plan.complete and plan.missing == {60: Piece.KING}
    assert diff_squares({1: Piece.ATTACKER}, {2: Piece.ATTACKER}) == {1: None, 2: Piece.ATTACKER}


def test_the_storage_book_is_the_robots_ledger_and_counts_a_fresh_install_from_the_camera(tmp_path):
    from calibration.config import Config
    from robot.ledger import Ledger, ledger_path

    book = StorageBook(tmp_path, Config())
    ledger = book.open("board-11")
    assert ledger.fresh and book.path == ledger_path(tmp_path, "board-11")
    book.first_look({60: Piece.KING, 5: Piece.ATTACKER}, "copenhagen")   # two pieces are on the board
    stored = book.storage()
    assert Piece.KING not in stored.values() and list(stored.values()).count(Piece.ATTACKER) == 23
    assert list(stored.values()).count(Piece.DEFENDER) == 12
    again = Ledger.load(book.path)                                       # saved at once, for tafl-robot too
    assert again.storage() == ledger.storage() and not again.fresh
    assert book.missing({60: Piece.KING}, "copenhagen") == {"t": 1}      # the one not seen and not stored


def test_state_table_refuses_a_jump():
    check_transition(State.THINKING, State.ROBOT_MOVING)
    with pytest.raises(RuntimeError):
        check_transition(State.IDLE, State.ROBOT_MOVING)


def test_fault_names():
    assert parse_faults("hand, missed-pickup,hand") == ("hand", "missed-pickup")
    assert parse_faults("all") == FAULT_KINDS
    with pytest.raises(ValueError, match="unknown fault 'hnd'"):
        parse_faults("hnd")


@pytest.mark.parametrize("argv, text", [
    (["--simulate", "--headless"], "--headless needs --autoplay"),
    (["--autoplay", "2"], "--autoplay needs --simulate --headless"),
    (["--simulate", "--headless", "--autoplay", "1", "--faults", "fire"], "unknown fault"),
    (["--simulate", "--headless", "--autoplay", "1", "--variant", "chess"], "unknown variant"),
    (["--visitors", "3"], "--visitors needs --simulate --headless"),
    (["--simulate", "--headless", "--visitors", "0"], "at least 1 visitor"),
    (["--simulate", "--headless", "--visitors", "2", "--level", "impossible"], "unknown level"),
    (["--simulate", "--headless", "--visitors", "2", "--autoplay", "2"], "two different runs"),
])
def test_cli_refuses_bad_arguments_in_one_line(argv, text, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert text in err and len(err.splitlines()) == 1


def test_a_power_cut_whose_moment_passed_is_refunded_and_may_strike_later():
    import random

    from kiosk.faults import FaultPlan

    plan = FaultPlan(kinds=("power-cut",), rng=random.Random(0), rates={"power-cut": 1.0})
    assert plan.strikes("power-cut")
    assert not plan.strikes("power-cut")          # one per game
    plan.refund("power-cut")                      # the robot had stopped: it never happened
    assert plan.summary() == "power-cut 0"
    assert plan.strikes("power-cut") and plan.summary() == "power-cut 1"


def test_a_captured_piece_parks_where_the_robots_planner_says(planner):
    """One rule for where a piece leaving the board goes (robot/planner.py park_slot, which
    kiosk/robot_jobs.py asks): the king's own slot for the king, else the free slot of its side
    nearest the square, never the king's."""
    from robot.planner import PlanError

    layout = planner.layout

    def park(storage: dict[Slot, Piece], piece: Piece, sq: int) -> Slot | None:
        try:
            return planner.park_slot({s: p.value for s, p in storage.items()}, piece.value, layout.position(sq))
        except PlanError:
            return None

    assert park({}, Piece.KING, 60) == Slot("defenders", 0)
    for sq in (0, 60, 120):
        slot = park({}, Piece.DEFENDER, sq)
        assert slot is not None and slot.side == "defenders" and slot != Slot("defenders", 0)
        nearest = min((s for s in layout.slots("defenders") if s.index != 0),
                      key=lambda s: math.dist(layout.position(s), layout.position(sq)))
        assert slot == nearest
    full = {slot: Piece.ATTACKER for slot in layout.slots("attackers")}
    assert park(full, Piece.ATTACKER, 60) is None          # storage full: a person is asked
    booked: dict[Slot, Piece] = {}
    first = park(booked, Piece.ATTACKER, 0)
    assert first is not None
    booked[first] = Piece.ATTACKER
    assert park(booked, Piece.ATTACKER, 0) not in (None, first)   # a booked slot is taken


def test_the_headless_simulation_runs_in_the_light_asked_for():
    """`--light hard` reaches the simulated camera's renderer (a museum day in bad light); the default
    stays the museum's light."""
    from kiosk.cli import build_parser, headless_settings

    args = build_parser().parse_args(["--simulate", "--headless", "--visitors", "2", "--light", "hard",
                                      "--speed", "9"])
    settings = headless_settings(args)
    assert settings.condition == "hard" and settings.speed_factor == 9
    assert headless_settings(build_parser().parse_args(["--simulate", "--headless"])).condition == "museum"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--simulate", "--light", "candle"])
