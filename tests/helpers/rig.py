"""The game controller on the fast fake ports (tests/helpers/fakes.py) over a simulated world,
stepped on a manual clock, and a whole game played on it by a random visitor."""
from __future__ import annotations

import random

from calibration.config import Config
from engine import Move, Side
from kiosk.board_names import board_name_for
from kiosk.controller import GameController
from kiosk.simworld import SimWorld
from tests.helpers.fakes import InstantEngine, ManualClock, WorldCamera, WorldGantry

STEP = 0.1


class Rig:
    """A controller on a simulated world with a manual clock."""

    def __init__(self, tmp_path, variant: str = "copenhagen", seed: int = 0) -> None:
        self.config = Config(board=board_name_for(Config(), variant))   # the variant's board installed
        self.clock = ManualClock()
        self.world = SimWorld(self.config, clock=self.clock)
        self.world.fill_storage(variant)
        self.camera = WorldCamera(self.world, self.clock)
        self.gantry = WorldGantry(self.world)
        self.engine = InstantEngine(seed)
        self.state_dir = tmp_path / "state"
        self.ctrl = self.make()
        self.rng = random.Random(seed)

    def make(self) -> GameController:
        ctrl = GameController(self.config, self.camera, self.gantry, self.engine, str(self.state_dir),
                              clock=self.clock, stable_s=0.3)
        ctrl.start()        # the journal replayed, the gantry homing (nothing happens in the constructor)
        return ctrl

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            self.clock.now += STEP
            self.ctrl.poll()

    def run_until(self, states: set[str], limit: int = 2000) -> str:
        for _ in range(limit):
            if self.ctrl.view().state in states:
                return self.ctrl.view().state
            self.step()
        raise AssertionError(f"still {self.ctrl.view().state} (wanted {states})")

    def visitor_random_move(self, remove_captures: bool = True, prefer_captures: bool = False) -> Move:
        """Play a random legal move (a capturing one first, if asked) and wait until the
        controller has taken it in."""
        board = self.ctrl.view().board
        assert board is not None, "no game on"
        ply = len(board.move_stack)
        capturing = [m for m in board.legal_moves if board.captures_of(m)] if prefer_captures else []
        move = self.rng.choice(capturing or board.legal_moves)
        self.world.visitor_move(move.from_sq, move.to_sq, remove_captures=remove_captures)
        for _ in range(200):
            self.step()
            if self.ctrl.view().ply > ply:
                return move
        raise AssertionError(f"move not taken in: {self.ctrl.view()}")


def visitor_turn(tmp_path, camera_cls: type = WorldCamera, seed: int = 0) -> Rig:
    """A Copenhagen game set up on a rig whose camera is `camera_cls`, the visitor (attackers) to move."""
    rig = Rig(tmp_path, seed=seed)
    rig.camera = camera_cls(rig.world, rig.clock)
    rig.ctrl = rig.make()
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    return rig


def play_game(rig: Rig, visitor_side: Side, max_plies: int = 400, prefer_captures: bool = False) -> None:
    assert rig.world.variant is not None, "the world has no game set up"
    rig.ctrl.start_game(rig.world.variant, {}, visitor_side, "easy")
    for _ in range(max_plies):
        state = rig.run_until({"visitor_turn", "game_over", "place_piece", "fix_board"})
        assert state not in ("place_piece", "fix_board"), rig.ctrl.view()
        if state == "game_over":
            return
        rig.visitor_random_move(prefer_captures=prefer_captures)
    raise AssertionError("game did not end")


def one_move_in(tmp_path, seed: int) -> Rig:
    """A Copenhagen game with the visitor's first move and the robot's reply played, the visitor to move."""
    rig = Rig(tmp_path, seed=seed)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    rig.visitor_random_move()
    rig.run_until({"visitor_turn"})
    return rig
