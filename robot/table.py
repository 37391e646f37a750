"""The physical table of the simulation: pieces as discs, a magnet under the board.

WHY its own module: this is the "truth" of the simulated world. The GRBL
simulator moves the magnet; the kiosk's camera renderer reads `snapshot()` to
draw the pieces; tests read it to see what really happened. It never knows
what the robot *believes* (that is the ledger).

Coordinates are board millimetres (docs/hardware.md, "Coordinates"). A piece
whose centre is within the catch radius of the energised magnet is pulled to
the magnet's centre and follows it, also when the moving magnet sweeps under a
piece (a steel core is caught wherever the magnet passes). Two pieces closer
than the sum of their radii touch: that is recorded as a collision and the
pushed piece is shoved aside, as a real disc would be.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Protocol

from robot.layout import Location, Slot, TableLayout


class MagnetWorld(Protocol):
    """What the GRBL simulator needs of a physical world (board millimetres)."""

    def magnet_on(self, x: float, y: float) -> bool: ...

    def magnet_move(self, x: float, y: float) -> None: ...

    def magnet_off(self) -> None: ...


@dataclass(frozen=True)
class TablePiece:
    """One disc on the table."""

    id: int
    piece: str             # 't', 'T' or 'K'
    x: float
    y: float
    radius: float


@dataclass(frozen=True)
class Collision:
    """The dragged piece touched another one."""

    t: float
    moving: int
    other: int
    x: float
    y: float

    def __str__(self) -> str:
        return f"collision: piece {self.moving} touched piece {self.other} at ({self.x:.1f}, {self.y:.1f}) mm"


class Table:
    """Pieces on the table and the magnet under it; thread-safe."""

    def __init__(self, layout: TableLayout, catch_radius_mm: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 on_collision: Callable[[Collision], None] | None = None):
        self.layout = layout
        # A piece is caught when its steel core is over the magnet's pole: within half the
        # smallest piece's radius of the magnet's centre (model figure, not hardware).
        self.catch_radius = (catch_radius_mm if catch_radius_mm is not None
                             else min(layout.radius(p) for p in ("t", "T", "K")) / 2)
        self.clock = clock
        self.on_collision = on_collision
        self.collisions: list[Collision] = []
        self._pieces: dict[int, TablePiece] = {}
        self._next_id = 0
        self._magnet: tuple[float, float] = (0.0, 0.0)
        self._energised = False
        self._held: int | None = None
        self._contacts: set[tuple[int, int]] = set()
        self._lock = threading.RLock()

    @classmethod
    def in_storage(cls, layout: TableLayout, **kwargs: object) -> "Table":
        """Every piece of the board's set in its storage slot (a fresh install)."""
        table = cls(layout, **kwargs)   # type: ignore[arg-type]
        for slot, piece in layout.storage_start().items():
            table.put(slot, piece)
        return table

    # -- setting the scene ---------------------------------------------------
    def put(self, loc: Location, piece: str) -> int:
        """Place a piece at a square or slot centre (a hand); returns its id."""
        x, y = self.layout.position(loc)
        return self.put_at(x, y, piece)

    def put_at(self, x: float, y: float, piece: str) -> int:
        with self._lock:
            pid = self._next_id
            self._next_id += 1
            self._pieces[pid] = TablePiece(pid, piece, x, y, self.layout.radius(piece))
            return pid

    def remove(self, pid: int) -> TablePiece:
        with self._lock:
            if self._held == pid:
                self._held = None
            return self._pieces.pop(pid)

    def move_by_hand(self, src: Location, dst: Location) -> None:
        """A visitor carries the piece at `src` to the centre of `dst`."""
        with self._lock:
            pid = self.piece_id_at(src)
            if pid is None:
                raise ValueError(f"no piece at {self.layout.name(src)}")
            x, y = self.layout.position(dst)
            self._pieces[pid] = replace(self._pieces[pid], x=x, y=y)

    def nudge(self, pid: int, dx: float, dy: float) -> None:
        with self._lock:
            p = self._pieces[pid]
            self._pieces[pid] = replace(p, x=p.x + dx, y=p.y + dy)

    # -- reading it ----------------------------------------------------------
    def snapshot(self) -> tuple[TablePiece, ...]:
        """Every piece as it stands now (immutable records, safe to keep)."""
        with self._lock:
            return tuple(self._pieces.values())

    @property
    def magnet(self) -> tuple[float, float, bool]:
        """Magnet position (board mm) and whether it is energised."""
        with self._lock:
            return (*self._magnet, self._energised)

    @property
    def holding(self) -> int | None:
        return self._held

    def piece_id_at(self, loc: Location, tolerance: float | None = None) -> int | None:
        x, y = self.layout.position(loc)
        tol = self.layout.pitch / 2 if tolerance is None else tolerance
        with self._lock:
            best = min(self._pieces.values(), key=lambda p: math.hypot(p.x - x, p.y - y),
                       default=None)
            if best is not None and math.hypot(best.x - x, best.y - y) <= tol:
                return best.id
        return None

    def occupancy(self, tolerance: float | None = None) -> dict[Location, str]:
        """Which square or slot each piece stands on (within `tolerance` of its centre,
        default a quarter pitch); pieces elsewhere are left out."""
        out: dict[Location, str] = {}
        for p in self.snapshot():
            loc = self.layout.location_at((p.x, p.y), tolerance)
            if loc is not None:
                out[loc] = p.piece
        return out

    def square_pieces(self) -> dict[int, str]:
        return {loc: p for loc, p in self.occupancy().items() if isinstance(loc, int)}

    def storage_pieces(self) -> dict[Slot, str]:
        return {loc: p for loc, p in self.occupancy().items() if isinstance(loc, Slot)}

    # -- the magnet (driven by the GRBL simulator) -----------------------------
    def magnet_on(self, x: float, y: float) -> bool:
        with self._lock:
            self._magnet = (x, y)
            self._energised = True
            self._catch()
            return self._held is not None

    def magnet_move(self, x: float, y: float) -> None:
        with self._lock:
            self._magnet = (x, y)
            if not self._energised:
                return
            if self._held is None:
                self._catch()
            if self._held is not None:
                p = self._pieces[self._held]
                self._pieces[self._held] = replace(p, x=x, y=y)
                self._check_contacts(self._held)

    def magnet_off(self) -> None:
        with self._lock:
            self._energised = False
            self._held = None

    def carriage_at(self, x: float, y: float) -> None:
        """Where the (switched-off) magnet is, for a renderer that draws the carriage."""
        with self._lock:
            if not self._energised:
                self._magnet = (x, y)

    def _catch(self) -> None:
        x, y = self._magnet
        best, best_d = None, self.catch_radius
        for p in self._pieces.values():
            d = math.hypot(p.x - x, p.y - y)
            if d <= best_d:
                best, best_d = p.id, d
        self._held = best
        if best is not None:
            self._pieces[best] = replace(self._pieces[best], x=x, y=y)

    def _check_contacts(self, pid: int) -> None:
        mover = self._pieces[pid]
        for other in list(self._pieces.values()):
            if other.id == pid:
                continue
            dx, dy = other.x - mover.x, other.y - mover.y
            d = math.hypot(dx, dy)
            reach = mover.radius + other.radius
            pair = (min(pid, other.id), max(pid, other.id))
            if d < reach - 1e-6:
                if pair not in self._contacts:
                    self._contacts.add(pair)
                    c = Collision(self.clock(), pid, other.id, mover.x, mover.y)
                    self.collisions.append(c)
                    if self.on_collision is not None:
                        self.on_collision(c)
                # shove the other disc out to touching distance
                ux, uy = (dx / d, dy / d) if d > 1e-9 else (1.0, 0.0)
                self._pieces[other.id] = replace(other, x=mover.x + ux * reach,
                                                 y=mover.y + uy * reach)
            elif d > reach + 0.5:
                self._contacts.discard(pair)
