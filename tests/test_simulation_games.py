"""Whole games through the whole loop in simulation: rendered camera frames read by the vision
reader, the GRBL simulator on a pty driven through the real driver and gantry, the engine in a
spawned process, the simulated visitor acting only on the table."""
from __future__ import annotations

import random
import time
from typing import Any

import pytest

from calibration.config import Config
from engine import Board, Side

from kiosk.autoplay import SimVisitor, VisitorStyle
from kiosk.board_names import board_name_for
from kiosk.sim_kiosk import SimKiosk
from tests.helpers.simulation import quick_settings

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def play(rig: SimKiosk, variant: str, visitor: SimVisitor, side: Side, timeout_s: float) -> dict:
    """Start a game and let the visitor play it to the end; returns what was seen."""
    seen: dict[str, Any] = {"states": set(), "desync": [], "plies": 0}
    rig.controller.start_game(variant, {}, side, "hard")
    deadline = time.monotonic() + timeout_s
    last_state = ""
    while time.monotonic() < deadline:
        ctrl = rig.controller
        ctrl.poll()
        view = ctrl.view()
        seen["states"].add(view.state)
        if view.state != last_state:
            if view.state == "visitor_turn" and view.board is not None \
                    and rig.world.square_pieces() != view.board.pieces():
                seen["desync"].append(view.ply)
            last_state = view.state
        if view.state == "game_over":
            seen["plies"] = view.ply
            seen["view"] = view
            return seen
        visitor.act(view, time.monotonic())
        time.sleep(0.01)
    raise AssertionError(f"game not over in {timeout_s} s: {rig.controller.view()}")


@pytest.mark.parametrize("variant", ["copenhagen", "york", "tablut", "tawlbwrdd"])
def test_full_game_through_the_whole_loop(tmp_path, variant):
    config = Config(board=board_name_for(Config(), variant))      # the variant's board installed
    rig = SimKiosk(config, str(tmp_path / "state"), variant, quick_settings(11))
    try:
        if variant != "copenhagen":
            # the set-up from storage is the copenhagen game's; here the pieces stand ready
            rig.world.place_position(variant, Board(variant).pieces())
        visitor = SimVisitor(rig.world, random.Random(5),
                             VisitorStyle(mode="yielding", illegal_rate=0.0,
                                          forget_capture_rate=1.0, think_s=(0.0, 0.05)))
        seen = play(rig, variant, visitor, Side.ATTACKERS, timeout_s=240)
        view = seen["view"]
        print(variant, seen["plies"], "plies")
        assert view.outcome is not None
        assert not seen["desync"]
        assert rig.world.square_pieces() == view.board.pieces()
        assert {"setup", "visitor_turn", "thinking", "robot_moving", "verify"} <= seen["states"]
        if variant == "copenhagen":
            rig.controller.clear_board()
            deadline = time.monotonic() + 90
            while rig.controller.view().state != "idle" and time.monotonic() < deadline:
                rig.poll()
                time.sleep(0.01)
            assert rig.controller.view().state == "idle"
            assert rig.world.square_pieces() == {}
    finally:
        rig.close()
