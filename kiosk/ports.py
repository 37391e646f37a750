"""The narrow ports between the game controller and the hardware (or its simulation).

WHY: the controller is the same with the real camera and gantry and in
simulation. It only ever sees these small records and protocols; the camera
thread, the gantry thread and the engine worker implement them on top of the
vision, robot and engine packages, so switching hardware is one place.

Locations: a piece is either on a board square (an int, `rank * size + file`)
or in a storage slot (`Slot(side, index)`, docs/hardware.md "Storage").
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Protocol

from engine import Piece


# Places are the robot package's (robot/layout.py): one naming for the planner,
# the ledger, the simulator's table and the controller.
from robot.layout import Location, Slot, location_from_json, location_to_json  # noqa: F401 - Slot is re-exported

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Transfer:
    """Carry one piece from one location to another (one step of a robot plan).

    `kind` says why, for the screen and the journal: 'move' (the robot's own
    move), 'park' (a captured piece to storage), 'setup', 'clear', 'restore'.
    `offset_mm` shifts the pickup point: a missed pickup is retried with small
    offsets because a piece that was nudged off its square's centre is not
    under the magnet any more.
    """

    src: Location
    dst: Location
    piece: Piece
    kind: str = "move"
    offset_mm: tuple[float, float] = (0.0, 0.0)

    def to_json(self) -> dict:
        return {"src": location_to_json(self.src), "dst": location_to_json(self.dst),
                "piece": self.piece.value, "kind": self.kind, "offset": list(self.offset_mm)}

    @classmethod
    def from_json(cls, obj: dict) -> "Transfer":
        return cls(location_from_json(obj["src"]), location_from_json(obj["dst"]),
                   Piece(obj["piece"]), obj.get("kind", "move"),
                   tuple(obj.get("offset", (0.0, 0.0))))


@dataclass(frozen=True)
class CameraReading:
    """What the camera thread made of one frame.

    `ok` is False when the board could not be read (markers hidden by a hand,
    no frame from the camera); `reason` then says why, for the screen.
    `squares[i]` is the most likely content of square i, `confidence[i]` its
    probability. `raw` keeps the reader's own result for move inference.
    """

    seq: int
    t: float
    ok: bool
    reason: str | None = None
    squares: tuple[Piece | None, ...] = ()
    confidence: tuple[float, ...] = ()
    raw: object = None
    fresh: bool = True       # False: the same picture as the last reading (a simulated still scene)

    def occupancy(self) -> dict[int, Piece]:
        return {sq: p for sq, p in enumerate(self.squares) if p is not None}


class CameraPort(Protocol):
    """The camera. Implementations subclass this, so the optional methods have
    their do-nothing defaults and the controller calls them without probing."""

    def read_latest(self) -> CameraReading | None:
        """The newest reading, or None before the first; never blocks."""

    def stop(self) -> None: ...

    # -- optional (defaults: nothing to do) --
    def snapshot(self) -> "np.ndarray | None":
        """The newest frame (BGR) for staff mode; None when the port keeps no frames."""
        return None

    def use_board(self, board_name: str, variant: str) -> None:
        """Another board is in play."""
        return None

    def refresh(self) -> None:
        """The controller doubts a reading: take a genuinely new picture next."""
        return None

    def confirm(self, reading: CameraReading, squares: dict[int, Piece]) -> None:
        """The controller confirmed what `reading` showed (the reader may learn from it)."""
        return None

    def hands_off(self) -> None:
        """The visitor says no hand is over the board the camera refuses for glare alone: read that
        still picture again, trusting it (vision.reader.BoardReader.hands_off)."""
        return None


class GantryEventKind(str, Enum):
    STEP = "step"          # a transfer done
    DONE = "done"          # the whole job done
    ERROR = "error"
    HOMED = "homed"
    JOGGED = "jogged"      # a staff jog finished; `activity` is the carriage position "x,y" in mm
    RAN = "ran"            # a staff call (a calibration step) finished; `result` is what it returned


@dataclass(frozen=True)
class GantryEvent:
    """Progress from the gantry thread (see GantryEventKind)."""

    kind: GantryEventKind
    job: int
    step: int = 0
    total: int = 0
    activity: str = ""
    error: str | None = None
    transfer: Transfer | None = None
    result: object = None


class GantryPort(Protocol):
    def submit(self, job: int, transfers: list[Transfer], places: dict[Location, str]) -> None:
        """Start carrying out the transfers in order (in the background). `places` is
        the table as the controller believes it (square or slot -> piece letter), so
        the planner can route around the standing pieces."""

    def home(self, job: int) -> None: ...

    def use_ledger(self, ledger: Any, path: str) -> None:
        """The robot's ledger (robot.ledger.Ledger, saved at `path`) of the board in play: the
        gantry books every step it carries in it, durably, before it reports the step."""

    def poll(self) -> list[GantryEvent]:
        """Events since the last call; never blocks."""

    @property
    def busy(self) -> bool: ...

    def stop(self) -> None: ...

    # -- optional (defaults: this gantry cannot) --
    def use_board(self, board_name: str, variant: str) -> None:
        """Another board is in play."""
        return None

    def jog(self, job: int, dx_mm: float, dy_mm: float) -> None:
        """Staff only: move the carriage, answered by a 'jogged' or 'error' event."""
        raise RuntimeError("this gantry cannot jog")

    def run(self, job: int, label: str, call: Callable[[Any], object]) -> None:
        """Staff only: run `call(mover)` where the transfers run, answered by 'ran' or 'error'."""
        raise RuntimeError("this gantry cannot calibrate")

    # -- optional: the exhibit's stop (kiosk/exhibit.py; defaults: the job just runs on) --
    def hold(self) -> None:
        """Stop at once without dropping a piece; no further transfer of the job starts."""
        return None

    def release(self) -> None:
        """After `hold()`: the held carry goes on to its destination."""
        return None

    def set_feed(self, feed_mm_min: float | None) -> None:
        """The drag speed of the carries that follow (None: the configured one)."""
        return None


class EnginePort(Protocol):
    def request(self, request_id: int, variant: str, options: dict[str, str],
                moves_otn: list[str], level: str) -> None:
        """Start searching the position after `moves_otn` (from the start position)."""

    def poll(self) -> tuple[int, str] | None:
        """(request_id, move in OTN) once the search has answered; never blocks."""

    def cancel(self) -> None: ...

    def stop(self) -> None: ...

    # -- optional (default: just wait) --
    def ponder(self, variant: str, options: dict[str, str], moves_otn: list[str], level: str) -> None:
        """Think on the visitor's time until the next request (kiosk/engine_worker.py)."""
        return None

    # -- optional hints (kiosk/teaching.py; default: none offered) --
    def offers_hints(self) -> bool:
        return False

    def request_hint(self, hint_id: int, variant: str, options: dict[str, str], moves_otn: list[str],
                     level: str) -> None:
        """Search a hint for the side to move; the answer comes from `poll_hint()`."""
        return None

    def poll_hint(self) -> Any:
        """The hint's answer (kiosk.engine_worker.HintReply) once it is there; never blocks."""
        return None
