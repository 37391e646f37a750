"""Planner: straight slides, street routes, capture order, set-up/clear; the collision checker."""
from __future__ import annotations

import itertools
import math

import pytest

from calibration.config import Config
from robot.collision import check_plan, point_segment_distance
from robot.layout import KING_SLOT, PieceSet, Slot, TableLayout, start_position
from robot.ledger import Ledger
from robot.planner import MotionPlanner, PlanError, Step, apply_step, assign




def sq(layout, name):
    return layout.parse(name)


def board_with(layout, **squares):
    """Storage full except for the pieces placed on the named squares."""
    places = dict(layout.storage_start())
    for name, piece in squares.items():
        side = "attackers" if piece == "t" else "defenders"
        slot = next(s for s in reversed(layout.slots(side)) if places.get(s) == piece)
        del places[slot]
        places[layout.parse(name)] = piece
    return places


def test_layout_positions_come_from_the_configuration(layout):
    assert layout.position(sq(layout, "a1")) == (20.0, 20.0)
    assert layout.position(sq(layout, "k11")) == (420.0, 420.0)
    assert layout.position(KING_SLOT) == (440 + 80, 20.0)
    assert layout.machine_position(sq(layout, "a1")) == (190.0, 60.0)
    assert layout.piece_set == PieceSet(24, 13)
    assert layout.name(Slot("attackers", 3)) == "att-3"
    with pytest.raises(ValueError):
        layout.parse("l1")
    other = Config()
    other.gantry.board_origin_mm = (100.0, 10.0)
    assert TableLayout(other).machine_position(0) == (120.0, 30.0)


def test_a_legal_move_slides_straight(layout, planner):
    places = board_with(layout, e1="t", e3="T")
    steps = planner.plan_move(places, sq(layout, "e1"), sq(layout, "e2"))
    assert steps[0].path == (layout.position(sq(layout, "e1")), layout.position(sq(layout, "e2")))


def test_street_route_never_crosses_an_occupied_centre(layout, planner):
    # a wall of pieces on the e-file from e2 to e10 between f6 and storage on the left
    wall = {f"e{r}": "t" for r in range(2, 11)}
    places = board_with(layout, f6="T", **wall)
    steps = planner.plan_park(places, sq(layout, "f6"))
    step = steps[0]
    assert step.dst.side == "defenders"
    for name in wall:
        c = layout.position(sq(layout, name))
        for a, b in zip(step.path, step.path[1:]):
            assert point_segment_distance(c, a, b) >= 18.0
    assert check_plan(layout, places, steps, margin_mm=0.5) == []


def test_route_threads_between_pieces_along_a_street(layout, planner):
    # d6 boxed in by c5 c6 c7 d5 d7 e5 e6 e7: the only way out is along the streets
    ring = {n: "t" for n in ("c5", "c6", "c7", "d5", "d7", "e5", "e6", "e7")}
    places = board_with(layout, d6="T", **ring)
    step = planner.transfer(places, sq(layout, "d6"), Slot("defenders", 12))
    assert check_plan(layout, places, [step], margin_mm=0.5) == []
    assert len(step.path) > 2                      # not a straight line through the ring


def test_collision_checker_catches_a_deliberately_bad_path(layout):
    places = board_with(layout, a1="t", c1="T")
    a1, c1 = sq(layout, "a1"), sq(layout, "c1")
    bad = Step(a1, sq(layout, "e1"), "t", "move", (layout.position(a1), layout.position(sq(layout, "e1"))))
    found = check_plan(layout, places, [bad])
    assert len(found) == 1 and "T at c1" in str(found[0]) and found[0].gap_mm < 0
    # grazing: passing 17 mm from a centre with 9 + 9 mm radii is a touch
    y = layout.position(c1)[1] + 17.0
    graze = Step(a1, sq(layout, "a2"), "t", "park",
                 (layout.position(a1), (20.0, y), (120.0, y), layout.position(sq(layout, "a2"))))
    assert check_plan(layout, places, [graze])
    # and picking up from an empty square or dropping on a piece is reported too
    ghost = Step(sq(layout, "b5"), sq(layout, "c1"), "t", "move",
                 (layout.position(sq(layout, "b5")), layout.position(c1)))
    msgs = " ".join(str(v) for v in check_plan(layout, places, [ghost]))
    assert "nothing to pick up" in msgs and "already at c1" in msgs


def test_multi_capture_order_is_the_shortest(layout, planner):
    # an attacker arriving on e4 takes the defenders on e3, e5 and f4
    places = board_with(layout, e3="T", e5="T", f4="T", d4="t")
    dst = sq(layout, "e4")
    caps = [sq(layout, n) for n in ("e3", "e5", "f4")]
    steps = planner.plan_move(places, sq(layout, "d4"), dst, caps)
    assert [s.kind for s in steps] == ["move", "park", "park", "park"]
    assert {s.src for s in steps[1:]} == set(caps)
    assert all(isinstance(s.dst, Slot) and s.dst.side == "defenders" and s.dst != KING_SLOT
               for s in steps[1:])
    assert check_plan(layout, places, steps, margin_mm=0.5) == []

    def estimate(order):
        cur = apply_step(places, steps[0])
        pos, total = layout.position(dst), 0.0
        for c in order:
            p = layout.position(c)
            slot = planner.park_slot(cur, cur[c], p)
            total += math.dist(pos, p) + math.dist(p, layout.position(slot))
            cur = apply_step(cur, Step(c, slot, cur[c], "park", (p,)))
            pos = layout.position(slot)
        return total

    chosen = [s.src for s in steps[1:]]
    assert estimate(chosen) == pytest.approx(min(estimate(o) for o in itertools.permutations(caps)))


def test_captured_king_goes_to_his_own_slot(layout, planner):
    places = board_with(layout, f6="K")           # the king left his slot for f6
    assert KING_SLOT not in places
    step = planner.plan_park(places, sq(layout, "f6"))[0]
    assert step.dst == KING_SLOT


@pytest.mark.parametrize("board, variant", [("board-11", "copenhagen"), ("board-11", "tawlbwrdd"),
                                            ("board-9", "tablut")])
def test_setup_from_storage_and_clear_back_are_collision_free(board, variant):
    cfg = Config()
    cfg.board = board
    lay = TableLayout(cfg)
    pl = MotionPlanner(lay)
    ledger = Ledger.in_storage(lay)
    target = start_position(variant)
    steps = pl.plan_arrangement(ledger.places, target)
    assert check_plan(lay, ledger.places, steps, margin_mm=0.5) == []
    cur = dict(ledger.places)
    for s in steps:
        cur = apply_step(cur, s)
    assert {k: v for k, v in cur.items() if isinstance(k, int)} == target
    assert cur.get(KING_SLOT) is None
    back = pl.plan_arrangement(cur, {}, kind="clear")
    assert check_plan(lay, cur, back, margin_mm=0.5) == []
    for s in back:
        cur = apply_step(cur, s)
    assert all(isinstance(k, Slot) for k in cur) and cur[KING_SLOT] == "K"


def test_setup_keeps_pieces_already_in_place(layout, planner):
    target = start_position("copenhagen")
    places = dict(layout.storage_start())
    f6, f7 = sq(layout, "f6"), sq(layout, "f7")
    places.pop(KING_SLOT)
    places[f6] = "K"                               # the king already stands on the throne
    places.pop(Slot("defenders", 12))
    places[sq(layout, "a1")] = "T"                 # a defender where nothing belongs
    steps = planner.plan_arrangement(places, target)
    assert all(s.src != f6 for s in steps)
    # the defender on a1 is one of the twelve the start needs: it goes board to board
    a1 = next(s for s in steps if s.src == sq(layout, "a1"))
    assert target[a1.dst] == "T"
    assert len(steps) == len(target) - 1
    assert f7 in {s.dst for s in steps}


def test_setup_short_of_pieces_is_a_clear_error(layout, planner):
    places = {k: v for k, v in layout.storage_start().items() if v != "t" or k.index < 3}
    with pytest.raises(PlanError) as err:
        planner.plan_arrangement(places, start_position("copenhagen"))
    assert "hold 3 of the 24 't' pieces" in str(err.value)


def test_no_path_and_taken_destination_are_plan_errors(layout, planner):
    places = board_with(layout, a1="t", b1="T")
    with pytest.raises(PlanError):
        planner.transfer(places, sq(layout, "a1"), sq(layout, "b1"))
    with pytest.raises(PlanError):
        planner.transfer(places, sq(layout, "c3"), sq(layout, "c4"))


def test_assignment_is_optimal_on_small_cases():
    import random
    rnd = random.Random(7)
    for _ in range(30):
        n, m = rnd.randint(1, 5), rnd.randint(5, 6)
        cost = [[rnd.uniform(0, 100) for _ in range(m)] for _ in range(n)]
        cols = assign(cost)
        assert len(set(cols)) == n
        best = min(sum(cost[i][p[i]] for i in range(n)) for p in itertools.permutations(range(m), n))
        assert sum(cost[i][cols[i]] for i in range(n)) == pytest.approx(best)


def test_step_json_round_trip(layout, planner):
    step = planner.plan_park(board_with(layout, c3="t"), sq(layout, "c3"))[0]
    assert Step.from_json(step.to_json()).to_json() == step.to_json()
