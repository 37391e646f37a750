"""Turnaround between two games: MotionPlanner.plan_reset goes straight from the final
position to the next start (board to board where it can, storage only for the difference)."""
from __future__ import annotations

import csv
import itertools
from pathlib import Path

import numpy as np
import pytest

from calibration.config import Config
from engine import Board
from robot.collision import check_plan
from robot.layout import KING_SLOT, Slot, TableLayout, start_position
from robot.planner import MotionPlanner, MotionTimes, ResetPlan, apply_step, plan_board_swap

GAMES = Path(__file__).resolve().parent / "data" / "copenhagen-games.csv"




@pytest.fixture(scope="module")
def layout9():
    cfg = Config()
    cfg.board = "board-9"
    return TableLayout(cfg)


def sq(layout, name):
    return layout.parse(name)


def split(places):
    return ({k: v for k, v in places.items() if isinstance(k, int)},
            {k: v for k, v in places.items() if isinstance(k, Slot)})


def replay_on(layout, planner, places, plan: ResetPlan, target):
    """Run the plan on a model of the table: every drag clear of every standing piece at
    its moment, every pickup from an occupied place and drop on an empty one; the board
    ends as `target`. Returns the table afterwards."""
    assert check_plan(layout, places, list(plan.steps), margin_mm=planner.margin) == []
    cur = dict(places)
    for step in plan.steps:
        cur = apply_step(cur, step)
    assert split(cur)[0] == target
    return cur


def start_with(layout, variant="copenhagen", **changes):
    """The variant's start on the board (storage empty but for what is named):
    changes name squares -> piece or None (emptied) and 'att_N'/'def_N' slots -> piece."""
    places: dict = dict(start_position(variant))
    for name, piece in changes.items():
        loc = Slot("attackers" if name.startswith("att") else "defenders", int(name[4:])) \
            if name[:4] in ("att_", "def_") else sq(layout, name)
        if piece is None:
            places.pop(loc)
        else:
            places[loc] = piece
    return places


def final_position(layout, planner, text: str) -> tuple[dict, int]:
    """A recorded game replayed by the engine up to its end, captures parked as the robot
    parks them; returns the table and the last move's destination."""
    board = Board("copenhagen")
    for move_text in text.split():
        move = board.parse_move(move_text.split("x")[0])
        if board.is_game_over() or not board.is_legal(move):
            break
        board.push(move)
    return planner.table_after(board)


def test_pieces_in_place_stay_and_a_misplaced_piece_goes_board_to_board(layout, planner):
    target = start_position("copenhagen")
    # the attacker of d1 went to d3: the only step brings it back, straight
    places = start_with(layout, d1=None, d3="t")
    plan = planner.plan_reset(*split(places), target)
    assert [(s.src, s.dst, s.kind) for s in plan.steps] == [(sq(layout, "d3"), sq(layout, "d1"),
                                                             "transfer")]
    assert plan.steps[0].path == (layout.position(sq(layout, "d3")),
                                  layout.position(sq(layout, "d1")))
    replay_on(layout, planner, places, plan, target)


def test_nothing_in_place_moves_after_a_real_game(layout, planner):
    target = start_position("copenhagen")
    with open(GAMES, newline="") as fh:
        text = next(row[0] for row in csv.reader(fh) if len(row[0].split()) > 40)
    places, last = final_position(layout, planner, text)
    board, storage = split(places)
    plan = planner.plan_reset(board, storage, target, layout.position(last))
    in_place = {s for s, p in board.items() if target.get(s) == p}
    assert in_place and not in_place & {loc for s in plan.steps for loc in (s.src, s.dst)}
    # every piece of the right kind on a wrong square goes board to board
    for s in plan.steps:
        if isinstance(s.src, int) and target.get(s.src) != s.piece:
            wanted = sum(1 for q, p in target.items() if p == s.piece and board.get(q) != p)
            if wanted >= sum(1 for q, p in board.items() if p == s.piece and target.get(q) != p):
                assert isinstance(s.dst, int)
    replay_on(layout, planner, places, plan, target)
    assert plan.complete and plan.seconds >= plan.lower_bound_s > 0


def test_a_captured_piece_comes_back_from_storage(layout, planner):
    target = start_position("copenhagen")
    places = start_with(layout, a4=None, att_0="t", f7=None, def_5="T")
    plan = planner.plan_reset(*split(places), target)
    assert {(s.src, s.dst, s.kind) for s in plan.steps} == {
        (Slot("attackers", 0), sq(layout, "a4"), "setup"),
        (Slot("defenders", 5), sq(layout, "f7"), "setup")}
    replay_on(layout, planner, places, plan, target)


def test_extra_pieces_go_to_storage_the_king_to_his_own_slot(layout, planner):
    target = {s: p for s, p in start_position("copenhagen").items() if p != "K"}
    target.pop(sq(layout, "a4"))
    places = start_with(layout)
    plan = planner.plan_reset(*split(places), target)
    assert {(s.src, s.kind) for s in plan.steps} == {(sq(layout, "a4"), "park"),
                                                     (sq(layout, "f6"), "park")}
    king = next(s for s in plan.steps if s.piece == "K")
    assert king.dst == KING_SLOT
    attacker = next(s for s in plan.steps if s.piece == "t")
    assert attacker.dst.side == "attackers"
    replay_on(layout, planner, places, plan, target)


def test_the_king_comes_home_from_a_corner_and_from_his_slot(layout, planner):
    target = start_position("copenhagen")
    escaped = start_with(layout, f6=None, k11="K")
    plan = planner.plan_reset(*split(escaped), target)
    assert [(s.src, s.dst) for s in plan.steps] == [(sq(layout, "k11"), sq(layout, "f6"))]
    replay_on(layout, planner, escaped, plan, target)
    captured = start_with(layout, f6=None, def_0="K")
    plan = planner.plan_reset(*split(captured), target)
    assert [(s.src, s.dst) for s in plan.steps] == [(KING_SLOT, sq(layout, "f6"))]


def test_a_ring_of_wrong_kinds_is_broken_by_parking_one_piece_meanwhile(layout, planner):
    # the attacker of f2 and the defender of f4 swapped places, and storage is empty:
    # neither can go first, so one of them waits on a free square (or slot)
    target = start_position("copenhagen")
    places = start_with(layout, f2="T", f4="t")
    plan = planner.plan_reset(*split(places), target)
    assert len(plan.steps) == 3
    parked = plan.steps[0]
    assert parked.src in (sq(layout, "f2"), sq(layout, "f4"))
    assert parked.dst not in target and parked.dst not in places
    assert plan.steps[-1].src == parked.dst
    replay_on(layout, planner, places, plan, target)


def test_a_blocked_destination_waits_for_its_piece_to_leave(layout, planner):
    # a chain: a defender stands on d1 (an attacker's square) and belongs on e5; the
    # attacker of d1 stands on c3. d1 -> e5 must run before c3 -> d1.
    target = start_position("copenhagen")
    places = start_with(layout, d1="T", c3="t", e5=None)
    plan = planner.plan_reset(*split(places), target)
    assert [(s.src, s.dst) for s in plan.steps] == [(sq(layout, "d1"), sq(layout, "e5")),
                                                    (sq(layout, "c3"), sq(layout, "d1"))]
    replay_on(layout, planner, places, plan, target)


def test_the_assignment_is_minimal_on_a_hand_checked_case(layout, planner):
    # attackers wanted on a1 and c1; one stands on b1, one waits in slot att-0 (-80, 20).
    # b1 -> a1 and att-0 -> c1 drags 40 + 180 mm (and around a1); b1 -> c1 and
    # att-0 -> a1 only 40 + 100 mm: the second is the minimum, and the first is what
    # "the first square that needs it" (or nearest-first from b1) would choose.
    a1, b1, c1 = sq(layout, "a1"), sq(layout, "b1"), sq(layout, "c1")
    board, storage, target = {b1: "t"}, {Slot("attackers", 0): "t"}, {a1: "t", c1: "t"}
    plan = planner.plan_reset(board, storage, target)
    assert {(s.src, s.dst) for s in plan.steps} == {(b1, c1), (Slot("attackers", 0), a1)}
    places = {**board, **storage}
    replay_on(layout, planner, places, plan, target)


def test_the_assignment_matches_brute_force_on_small_random_cases(layout, planner):
    rnd = np.random.default_rng(5)
    times = MotionTimes.reference(layout)
    for _ in range(12):
        squares = rnd.choice(layout.size ** 2, size=8, replace=False)
        board = {int(s): "t" for s in squares[:3]}
        target = {int(s): "t" for s in squares[3:8]}
        storage = {Slot("attackers", int(i)): "t" for i in rnd.choice(20, size=2, replace=False)}
        carries, missing, no_slot = planner._reset_carries(board, storage, target, times)
        assert not missing and not no_slot

        def cost(pairs):
            return sum(float(times.carry_only([layout.position(a)], [layout.position(b)])[0, 0])
                       for a, b in pairs)

        sources = list(board) + list(storage)
        best = min(cost(zip(perm, target)) for perm in itertools.permutations(sources, len(target)))
        assert cost((c[0], c[1]) for c in carries) == pytest.approx(best)


def test_a_shortfall_is_reported_not_raised(layout, planner):
    target = start_position("copenhagen")
    places = start_with(layout, a4=None, a5=None)         # two attackers gone, none in storage
    plan = planner.plan_reset(*split(places), target)
    assert plan.missing == {sq(layout, "a4"): "t", sq(layout, "a5"): "t"} and not plan.complete
    assert plan.steps == ()


@pytest.mark.parametrize("variant", ["copenhagen", "york", "tawlbwrdd", "tablut"])
def test_every_variant_sets_up_from_storage_and_clears_back(variant, layout, layout9):
    lay = layout9 if variant == "tablut" else layout
    pl = MotionPlanner(lay)
    target = start_position(variant)
    places = dict(lay.storage_start())
    plan = pl.plan_reset({}, places, target)
    cur = replay_on(lay, pl, places, plan, target)
    back = pl.plan_reset(*split(cur), {})
    end = replay_on(lay, pl, cur, back, {})
    assert end == lay.storage_start()


def test_another_variant_on_the_same_board_starts_from_the_last_final_position(layout, planner):
    with open(GAMES, newline="") as fh:
        text = next(row[0] for row in csv.reader(fh) if len(row[0].split()) > 30)
    places, last = final_position(layout, planner, text)
    target = start_position("tawlbwrdd")
    plan = planner.plan_reset(*split(places), target, layout.position(last))
    replay_on(layout, planner, places, plan, target)


def test_copenhagen_final_position_to_a_tablut_start_on_the_9x9_board(layout, planner, layout9):
    with open(GAMES, newline="") as fh:
        text = next(row[0] for row in csv.reader(fh) if len(row[0].split()) > 30)
    places, last = final_position(layout, planner, text)
    planner9 = MotionPlanner(layout9)
    stored9 = dict(layout9.storage_start())
    target = start_position("tablut")
    clear, setup = plan_board_swap(planner, *split(places), planner9, *split(stored9), target,
                                   layout.position(last))
    cleared = replay_on(layout, planner, places, clear, {})
    assert sorted(cleared.values()) == sorted(places.values())     # nothing lost
    replay_on(layout9, planner9, stored9, setup, target)
    assert all(isinstance(s.src, Slot) for s in setup.steps)


def test_bad_input_is_a_clear_error(layout, planner):
    from robot.planner import PlanError

    with pytest.raises(PlanError, match="not on the 11x11 board"):
        planner.plan_reset({200: "t"}, {}, {})
    with pytest.raises(PlanError, match="stored in the attackers' slot"):
        planner.plan_reset({}, {Slot("attackers", 1): "T"}, {})
    with pytest.raises(PlanError, match="no storage slot att-99"):
        planner.plan_reset({}, {Slot("attackers", 99): "t"}, {})
    with pytest.raises(PlanError, match="target: not a piece: 'x' on a1"):
        planner.plan_reset({}, {}, {0: "x"})


def test_a_retry_offset_shifts_only_the_pickups_from_the_board(layout, planner):
    target = start_position("copenhagen")
    places = start_with(layout, d1=None, d3="t", a4=None, att_0="t")
    plan = planner.plan_reset(*split(places), target, pickup_offset=(3.0, -2.0))
    from_board = next(s for s in plan.steps if s.src == sq(layout, "d3"))
    from_slot = next(s for s in plan.steps if isinstance(s.src, Slot))
    x, y = layout.position(sq(layout, "d3"))
    assert from_board.path[0] == (x + 3.0, y - 2.0)
    assert from_slot.path[0] == layout.position(Slot("attackers", 0))
