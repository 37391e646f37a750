"""A real power cut: the kiosk's process is SIGKILLed mid-move and a new one resumes from the journal.

The table (SimWorld) and the gantry controller (GRBL simulator on its pty) live
in the test's process; the kiosk (controller, camera thread, gantry thread,
search process) in a spawned process that the test kills like a pulled plug.
"""
from __future__ import annotations

import random
import time

import pytest

from calibration.config import Config
from engine import Board, Side
from robot.simulator import GrblSimulator

from kiosk.simnode import KioskNode
from kiosk.simworld import SimWorld

pytestmark = pytest.mark.slow        # a real kiosk process killed and resumed


def wait_view(node: KioskNode, cond, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        view = node.poll(0.05)
        if view is not None and cond(view):
            return view
        assert node.process.is_alive(), f"kiosk process died (exit {node.process.exitcode})"
    raise AssertionError(f"kiosk process not there in {timeout_s} s: {node.view}")


def test_sigkill_mid_move_then_resume_with_the_same_position(tmp_path):
    config = Config()
    world = SimWorld(config, hand_seconds=0.25)
    world.place_position("copenhagen", Board("copenhagen").pieces())
    sim = GrblSimulator(config, speed_factor=3.0, world=world, layout=world.layout)   # slow: a long move
    port = sim.start()
    state = str(tmp_path / "state")
    node = KioskNode(world, config, state, port, seed=3,
                     start=("copenhagen", {}, Side.ATTACKERS, "medium"))
    node2 = None
    try:
        wait_view(node, lambda v: v.state == "visitor_turn", 60)
        board = Board("copenhagen")
        move = random.Random(2).choice([m for m in board.legal_moves if not board.captures_of(m)])
        world.visitor_move(move.from_sq, move.to_sq)
        view = wait_view(node, lambda v: v.state == "robot_moving", 60)
        moves = view.moves
        assert len(moves) == 2
        deadline = time.monotonic() + 30
        while world.table.holding is None and time.monotonic() < deadline:
            time.sleep(0.005)                # until the magnet drags the robot's piece
        assert world.table.holding is not None
        time.sleep(0.1)
        old_pid = view.pid
        node.kill()
        world.drop_everything()              # the magnet lets go where it is
        sim.disconnect()                     # the gantry controller is on the same mains
        port = sim.reconnect()
        sim.set_speed_factor(25.0)           # only the cut had to land mid-move: the rest may be quick
        node2 = KioskNode(world, config, state, port, seed=3)
        view = wait_view(node2, lambda v: v.resumed, 60)
        assert view.pid != old_pid and view.moves == moves
        view = wait_view(node2, lambda v: v.state == "visitor_turn", 90)
        assert view.moves == moves
        after = Board("copenhagen")
        for m in moves:
            after.push(after.parse_move(m))
        assert world.square_pieces() == after.pieces()
    finally:
        for n in (node, node2):
            if n is not None and n.process.is_alive():
                n.stop()
        sim.stop()
