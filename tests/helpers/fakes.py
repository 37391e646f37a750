"""Fast stand-ins for the controller's ports, for the controller's unit tests.

WHY: the controller's logic (turns, illegal moves, captures left standing,
missed pickups, resume) is tested here on a manual clock in milliseconds.
The camera reads the simulated world's squares directly instead of a rendered
frame, and the gantry drags the world's pieces with its magnet without G-code.
The full chain (renderer, vision reader, GRBL simulator on a pty, search
process) is tested in tests/test_simulation_*.py.
"""
from __future__ import annotations

import random
import time
from typing import Any
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from engine import Board, Piece

from kiosk.camera_thread import Frame
from kiosk.ports import CameraPort, CameraReading, EnginePort, GantryEvent, GantryEventKind, GantryPort, Transfer
from kiosk.simworld import SimWorld


@dataclass
class ManualClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


class WorldCamera(CameraPort):
    """Reads the world's squares exactly; no reading while a hand is over the board."""

    def __init__(self, world: SimWorld, clock: ManualClock) -> None:
        self.world, self.clock = world, clock
        self.seq = 0
        self.unplugged = False

    def read_latest(self) -> CameraReading | None:
        self.seq += 1
        t = self.clock()
        if self.unplugged:
            return CameraReading(self.seq, t, False, "camera.no_frames")
        if self.world.hand_over_board():
            return CameraReading(self.seq, t, False, "hand over board")
        sq = self.world.square_pieces()
        return CameraReading(self.seq, t, True, None,
                             tuple(sq.get(i) for i in range(self.world.size * self.world.size)),
                             tuple(1.0 for _ in range(self.world.size * self.world.size)))

    def use_board(self, board_name: str, variant: str) -> None:
        self.world.use_variant(variant)

    def stop(self) -> None:
        pass


@dataclass
class WorldGantry(GantryPort):
    """Carries one transfer per poll with the world's magnet; can be told to fail."""

    world: SimWorld
    queue: list = field(default_factory=list)
    fail_next: str | None = None
    carried: list = field(default_factory=list)
    ledger: Any = None                 # the kiosk's robot.ledger.Ledger, booked as the real gantry does
    ledger_path: str | None = None

    def use_ledger(self, ledger: Any, path: str) -> None:
        self.ledger, self.ledger_path = ledger, path

    @property
    def busy(self) -> bool:
        return bool(self.queue)

    def use_board(self, board_name: str, variant: str) -> None:
        self.world.use_variant(variant)

    def submit(self, job: int, transfers: list[Transfer], places: dict | None = None) -> None:
        if self.ledger is not None and self.ledger.pending is None:
            # the camera's squares into the ledger, as the gantry adapter's begin() does
            self.ledger.replace_board({loc: p for loc, p in (places or {}).items() if isinstance(loc, int)})
        self.queue.append(("carry", job, list(transfers), 0))

    def home(self, job: int) -> None:
        self.queue.append(("home", job, [], 0))

    def poll(self) -> list[GantryEvent]:
        if not self.queue:
            return []
        kind, job, transfers, i = self.queue[0]
        if kind == "home":
            self.queue.pop(0)
            return [GantryEvent(GantryEventKind.HOMED, job)]
        if i >= len(transfers):
            self.queue.pop(0)
            return [GantryEvent(GantryEventKind.DONE, job, len(transfers), len(transfers))]
        if self.fail_next:
            error, self.fail_next = self.fail_next, None
            self.queue.pop(0)
            return [GantryEvent(GantryEventKind.ERROR, job, i, len(transfers), error=error)]
        t = transfers[i]
        x, y = self.world.position_of(t.src)
        table = self.world.table
        table.magnet_on(x + t.offset_mm[0], y + t.offset_mm[1])
        table.magnet_move(*self.world.position_of(t.dst))
        table.magnet_off()
        if self.ledger is not None:
            self.ledger.put(t.src, None)
            self.ledger.put(t.dst, t.piece.value)
            self.ledger.save(self.ledger_path)
        self.carried.append(t)
        self.queue[0] = (kind, job, transfers, i + 1)
        return [GantryEvent(GantryEventKind.STEP, job, i, len(transfers), transfer=t)]

    def stop(self) -> None:
        pass


class InstantEngine(EnginePort):
    """Answers at once: the first legal move that captures, else a seeded random legal move."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.pending: tuple[int, str] | None = None

    def request(self, request_id, variant, options, moves_otn, level) -> None:
        board = Board(variant, options=options)
        for m in moves_otn:
            board.push(board.parse_move(m))
        moves = board.legal_moves
        capturing = [m for m in moves if board.captures_of(m)]
        move = capturing[0] if capturing else self.rng.choice(moves)
        self.pending = (request_id, board.move_to_otn(move))

    def poll(self):
        reply, self.pending = self.pending, None
        return reply

    def cancel(self) -> None:
        self.pending = None

    def stop(self) -> None:
        pass


def pieces_letters(squares: dict[int, Piece]) -> dict[int, str]:
    return {sq: p.value for sq, p in squares.items()}


@contextmanager
def real_gantry_chain(tmp_path, speed_factor: float = 25.0):
    """A controller on the real chain below it, for staff commands.

    Controller -> gantry thread -> GantryMover -> GrblDriver -> GRBL simulator
    on a pty; the camera is the fast WorldCamera on a manual clock. Yields
    (controller, simulator); both threads are stopped afterwards.
    """
    from calibration.config import Config
    from kiosk.controller import GameController
    from kiosk.gantry_thread import GantryThread
    from kiosk.robot_adapter import GantryMover
    from robot.simulator import GrblSimulator

    config = Config()
    clock = ManualClock()
    world = SimWorld(config, clock=clock)
    world.fill_storage("copenhagen")
    sim = GrblSimulator(config, speed_factor=speed_factor, world=world, layout=world.layout)
    sim.start()
    mover = GantryMover(config, port_provider=lambda: sim.port or "",
                        board_name=world.board_name)
    gantry = GantryThread(mover)
    try:
        ctrl = GameController(config, WorldCamera(world, clock), gantry, InstantEngine(0),
                              str(tmp_path / "state"), clock=clock, stable_s=0.3)
        yield ctrl, sim
    finally:
        gantry.stop()
        sim.stop()


class OnePictureFeed:
    """A FrameFeed (kiosk/camera_thread.py) that shows one picture: the first frame new, every
    further one a repeat of it; frame n is taken at t = n s. `pause_s` is a camera's frame
    interval, so a threaded camera does not spin."""

    def __init__(self, image: np.ndarray | None = None, pause_s: float = 0.0) -> None:
        self.image = image if image is not None else np.zeros((2, 2, 3), np.uint8)
        self.pause_s = pause_s
        self.grabs = 0

    def grab(self) -> Frame:
        if self.pause_s:
            time.sleep(self.pause_s)
        self.grabs += 1
        return Frame(float(self.grabs), self.image, repeat=self.grabs > 1)

    def use_board(self, board_name: str, variant: str) -> None:
        pass

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        pass


class ReadsAnything:
    """A FrameReader (kiosk/camera_thread.py) for which every frame reads as an empty board."""

    def read(self, frame: Frame, seq: int) -> CameraReading:
        return CameraReading(seq, frame.t, True, None)

    def use_board(self, board_name: str, variant: str) -> None:
        pass

    def confirm(self, reading: CameraReading, squares: dict) -> None:
        pass

    def hands_off(self) -> None:
        pass
