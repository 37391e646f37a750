"""Faults on the full simulation rig: the controller notices and recovers by itself.

Rendered frames, the vision reader, the GRBL simulator on a pty and the search
process are all real here; each test starts from the set-up start position.
The power cut (a real SIGKILL of the kiosk's process) is in test_simulation_powercut.py.
"""
from __future__ import annotations

import random
import time
from typing import Any

import pytest

from calibration.config import Config
from engine import Board, Side

from kiosk.autoplay import SimVisitor, VisitorStyle
from kiosk.sim_kiosk import SimKiosk
from tests.helpers.simulation import quick_settings

pytestmark = pytest.mark.slow        # faults on the full simulation rig


def make_rig(tmp_path, seed: int = 3) -> SimKiosk:
    rig = SimKiosk(Config(), str(tmp_path / "state"), "copenhagen", quick_settings(seed))
    rig.world.place_position("copenhagen", Board("copenhagen").pieces())
    return rig


def until(rig: SimKiosk, cond, timeout_s: float = 40.0, visitor: SimVisitor | None = None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rig.poll()
        view = rig.controller.view()
        if cond(view):
            return view
        if visitor is not None:
            visitor.act(view, time.monotonic())
        time.sleep(0.01)
    raise AssertionError(f"condition not met in {timeout_s} s: {rig.controller.view()}")


def visitor_for(rig: SimKiosk, **style) -> SimVisitor:
    kw: dict[str, Any] = dict(mode="yielding", illegal_rate=0.0, forget_capture_rate=0.0, think_s=(0.0, 0.05))
    kw.update(style)
    return SimVisitor(rig.world, random.Random(1), VisitorStyle(**kw))


def start(rig: SimKiosk) -> None:
    rig.controller.start_game("copenhagen", {}, Side.ATTACKERS, "medium")
    until(rig, lambda v: v.state == "visitor_turn")


def test_missed_pickup_is_retried_until_the_camera_sees_it_done(tmp_path):
    rig = make_rig(tmp_path, seed=4)
    try:
        start(rig)
        visitor = visitor_for(rig)
        until(rig, lambda v: v.state == "thinking", visitor=visitor)
        rig.sim.inject("miss")        # the next energising of the magnet catches nothing
        view = until(rig, lambda v: v.state == "visitor_turn", 60)
        assert rig.world.square_pieces() == view.board.pieces()
        plans = [r for r in rig.controller.journal.records if r.kind == "plan" and r.get("purpose") == "move"]
        assert plans, "the camera should have shown the missed pickup and the robot retried"
    finally:
        rig.close()


def test_camera_unplugged_then_back(tmp_path):
    rig = make_rig(tmp_path, seed=5)
    try:
        start(rig)
        ply = rig.controller.view().ply
        rig.source.unplug(3.0)
        board = rig.controller.view().board
        move = next(m for m in board.legal_moves if not board.captures_of(m))
        rig.world.visitor_move(move.from_sq, move.to_sq)
        view = until(rig, lambda v: not v.camera_ok, 10)
        assert view.camera_reason == "camera.no_frames" and view.state == "visitor_turn"
        assert view.ply == ply
        view = until(rig, lambda v: v.ply > ply, 30)
        assert view.camera_ok
        assert view.board.move_stack[ply] == move
    finally:
        rig.close()


def test_illegal_move_is_refused_and_put_back(tmp_path):
    rig = make_rig(tmp_path, seed=3)
    try:
        start(rig)
        board = rig.controller.view().board
        # the attacker on d1 slides diagonally to e2: not along a rank or file
        src, dst = 3, 15
        assert board.piece_at(src) is not None and board.piece_at(dst) is None
        rig.world.visitor_move(src, dst)
        view = until(rig, lambda v: v.state == "fix_board", 20)
        assert view.message == "illegal_move.not_straight", view.fix_squares
        assert view.fix_squares == {src: board.piece_at(src), dst: None}
        rig.world.set_squares(view.fix_squares)
        view = until(rig, lambda v: v.state == "visitor_turn" and v.message is None, 20)
        assert rig.world.square_pieces() == view.board.pieces()
    finally:
        rig.close()
