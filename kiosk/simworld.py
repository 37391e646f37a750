"""The simulated museum table: the truth the controller must discover through its sensors.

WHY: in simulation the controller must work exactly as with hardware, so this
world is the only place that knows where the pieces really are. The pieces
and the magnet are the robot package's physical table model
(robot/table.py: discs in board millimetres, dragged by the GRBL simulator's
magnet); this module adds what the robot package does not model: which
variant is played, a visitor's hand over the board, the visitor's moves (by
the rules, removing the pieces they capture or forgetting to), a tray for
pieces taken off the table, and the camera's view of it all through the
vision renderer. The controller never calls the getters here.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from calibration.config import Config
from engine import Board, Move, Piece, Side, position_from_pieces
from robot.layout import Location, Slot, TableLayout
from robot.table import Table

from kiosk.board_names import board_name_for


@dataclass(frozen=True)
class Hand:
    """A visitor's hand (and arm) over the table until `until` (the world's clock)."""

    x: float
    y: float
    until: float


@dataclass(frozen=True)
class WorldSnapshot:
    """What the camera can see at one instant: the pieces on the squares and a hand."""

    board_name: str
    size: int
    squares: dict[int, str]
    hand: Hand | None
    t: float


@dataclass
class SimWorld:
    """The table (robot.table.Table), a tray beside it, a hand over it, the rules in play."""

    config: Config
    board_name: str | None = None
    clock: Callable[[], float] = time.monotonic
    hand_seconds: float = 0.6
    catch_radius_mm: float | None = None
    variant: str | None = None
    tray: list[Piece] = field(default_factory=list)
    hand: Hand | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __post_init__(self) -> None:
        self.board_name = self.board_name or self.config.board
        self.layout = TableLayout(self.config, self.board_name)
        self.table = Table(self.layout, catch_radius_mm=self.catch_radius_mm)
        self.version = 0          # bumped on every change the camera could see
        self.carriage: tuple[float, float] | None = None

    # -- the board and its storage ---------------------------------------
    @property
    def size(self) -> int:
        return self.layout.size

    def use_variant(self, variant: str) -> None:
        """Put the board that fits `variant` on the table (in simulation a board swap is free:
        the pieces of the old board go to its storage, the new board's set is in storage)."""
        with self._lock:
            name = board_name_for(self.config, variant)
            if name != self.board_name:
                self.board_name = name
                self.layout = TableLayout(self.config, name)
                self.table = Table.in_storage(self.layout, catch_radius_mm=self.catch_radius_mm)
                self.tray.clear()
                self._changed()
            self.variant = variant

    def position_of(self, loc: Location) -> tuple[float, float]:
        return self.layout.position(loc)

    def fill_storage(self, variant: str) -> None:
        """Every piece in its storage slot, the board empty (a fresh install)."""
        with self._lock:
            self.use_variant(variant)
            self.table = Table.in_storage(self.layout, catch_radius_mm=self.catch_radius_mm)
            self.tray.clear()
            self._changed()

    def place_position(self, variant: str, squares: dict[int, Piece]) -> None:
        """These pieces on the board, the rest of the set in storage: a test's starting point."""
        with self._lock:
            self.fill_storage(variant)
            for sq, piece in squares.items():
                slot = next(s for s, p in sorted(self.storage_pieces().items()) if p == piece)
                pid = self.table.piece_id_at(slot)
                assert pid is not None          # fill_storage just put a piece there
                self.table.remove(pid)
                self.table.put(sq, piece.value)
            self._changed()

    # -- the truth (for the visitor, the autoplay and tests; never the controller)
    def square_pieces(self) -> dict[int, Piece]:
        return {sq: Piece(p) for sq, p in self.table.square_pieces().items()}

    def storage_pieces(self) -> dict[Slot, Piece]:
        return {slot: Piece(p) for slot, p in self.table.storage_pieces().items()}

    def snapshot(self) -> WorldSnapshot:
        now = self.clock()
        with self._lock:
            hand = self.hand if self.hand is not None and self.hand.until > now else None
            squares = {sq: p.value for sq, p in self.square_pieces().items()}
            return WorldSnapshot(self.board_name or "", self.size, squares, hand, now)

    def hand_over_board(self) -> bool:
        return self.snapshot().hand is not None

    # -- the visitor -----------------------------------------------------
    def show_hand(self, x: float, y: float, seconds: float | None = None) -> None:
        """A hand over the table at board millimetres (x, y) for a moment."""
        with self._lock:
            until = self.clock() + (self.hand_seconds if seconds is None else seconds)
            if self.hand is not None and self.hand.until > until:
                until = self.hand.until
            self.hand = Hand(x, y, until)
            self._changed()

    def rules_board(self, mover: Piece) -> Board:
        """The position on the table as an engine board, `mover`'s side to move."""
        if self.variant is None:
            raise RuntimeError("no variant chosen: call use_variant first")
        turn = Side.ATTACKERS if mover == Piece.ATTACKER else Side.DEFENDERS
        return Board.from_otn(self.variant, position_from_pieces(self.square_pieces(), self.size), turn=turn)

    def captures_of(self, from_sq: int, to_sq: int) -> tuple[int, ...]:
        """What the rules capture if the piece on from_sq goes to to_sq (nothing if illegal)."""
        mover = self.square_pieces().get(from_sq)
        if mover is None:
            raise ValueError(f"no piece on square {from_sq}")
        board = self.rules_board(mover)
        move = Move(from_sq, to_sq)
        return tuple(board.captures_of(move)) if board.is_legal(move) else ()

    def visitor_move(self, from_sq: int, to_sq: int, remove_captures: bool = True) -> tuple[int, ...]:
        """The visitor slides a piece (legal or not), with a hand over the board for a moment.

        With `remove_captures` the visitor also takes the pieces the move
        captures off the board (into the tray); without it they stay for the
        robot to park. Returns the squares the rules capture.
        """
        with self._lock:
            captures = self.captures_of(from_sq, to_sq)
            self.table.move_by_hand(from_sq, to_sq)
            if remove_captures:
                for sq in captures:
                    self.take_from_square(sq)
            self.show_hand(*self.layout.position(to_sq))
            return captures

    def take_from_square(self, loc: Location) -> Piece | None:
        """A hand lifts whatever stands at `loc` into the tray."""
        with self._lock:
            pid = self.table.piece_id_at(loc)
            if pid is None:
                return None
            piece = Piece(self.table.remove(pid).piece)
            self.tray.append(piece)
            self.show_hand(*self.layout.position(loc))
            return piece

    def put_on(self, loc: Location, piece: Piece) -> None:
        """A hand puts a piece (from the tray if one is there) on a square or in a slot."""
        with self._lock:
            if piece in self.tray:
                self.tray.remove(piece)
            if self.table.piece_id_at(loc) is not None:
                self.take_from_square(loc)
            self.table.put(loc, piece.value)
            self.show_hand(*self.layout.position(loc))

    def set_squares(self, wanted: dict[int, Piece | None]) -> None:
        """A helpful person makes the listed squares hold what is listed (None = empty),
        taking pieces from where they wrongly stand, else from the tray or storage.

        A person asked about a square reaches over it even when it already holds what is
        asked (an empty square asked to be emptied): the hand comes and goes, the camera
        takes a new picture, as with a real attendant checking the square."""
        with self._lock:
            for sq, piece in wanted.items():
                if piece is None or self.square_pieces().get(sq) not in (None, piece):
                    if self.take_from_square(sq) is None:
                        self.show_hand(*self.layout.position(sq))
                elif self.square_pieces().get(sq) == piece:
                    self.show_hand(*self.layout.position(sq))
            for sq, piece in wanted.items():
                if piece is None or self.square_pieces().get(sq) == piece:
                    continue
                if piece not in self.tray:
                    slot = next((s for s, p in sorted(self.storage_pieces().items()) if p == piece), None)
                    if slot is not None:
                        self.take_from_square(slot)
                self.put_on(sq, piece)

    def refill_storage(self) -> int:
        """Staff put the tray's pieces back into free storage slots; returns how many."""
        with self._lock:
            n = 0
            for piece in list(self.tray):
                side = "attackers" if piece == Piece.ATTACKER else "defenders"
                occupied = self.table.storage_pieces()
                free = [s for s in self.layout.slots(side) if s not in occupied]
                if piece == Piece.KING and Slot("defenders", 0) in free:
                    free = [Slot("defenders", 0)]
                elif piece == Piece.DEFENDER:
                    free = [s for s in free if s.index != 0] or free
                if not free:
                    continue
                self.tray.remove(piece)
                self.table.put(free[0], piece.value)
                n += 1
            self._changed()
            return n

    def nudge(self, loc: Location, dx: float, dy: float) -> bool:
        """Shift the piece at a location by (dx, dy) mm (a knock; it stays on its square)."""
        with self._lock:
            pid = self.table.piece_id_at(loc)
            if pid is None:
                return False
            self.table.nudge(pid, dx, dy)
            self._changed()
            return True

    # -- the magnet under the board (robot.table.MagnetWorld, driven by the GRBL simulator)
    # The simulator keeps one world for its whole life; the world forwards to the
    # table of the board in play, so a board swap needs no new simulator.
    def magnet_on(self, x: float, y: float) -> bool:
        return self.table.magnet_on(x, y)

    def magnet_move(self, x: float, y: float) -> None:
        self.table.magnet_move(x, y)

    def magnet_off(self) -> None:
        self.table.magnet_off()

    def carriage_at(self, x: float, y: float) -> None:
        self.carriage = (x, y)

    def drop_everything(self) -> None:
        """A power cut: the magnet lets go wherever it is."""
        self.table.magnet_off()

    def _changed(self) -> None:
        self.version += 1
