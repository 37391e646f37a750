"""The ledger: where the robot believes every physical piece stands, kept on disk.

WHY: the camera cannot see the storage areas, and the gantry has no sensor of
its own, so this record is the robot's only memory of the pieces it parked. It
is saved atomically (temporary file, fsync, rename, fsync of the directory)
after every completed step, and a step in progress is written down *before*
it starts: after a power cut or an alarm the robot knows exactly which piece
may be lying part-way along which path (`pending`), and `Gantry.recover()`
sweeps that path again.

Reading validates the file against the ledger's schema (shape, types, board
squares on the board, slots that exist, one king at most, no more pieces than
the set, a well-formed `pending` step), because a ledger that is believed but
wrong makes the gantry drag pieces into each other. `load_or_set_aside` never
fails on a damaged file: it moves it aside (kept for staff, named with the
time), starts from "every piece in storage" and marks the ledger
`storage_check_needed`, so the kiosk knows storage must be checked before it
is trusted (the flag is saved with the ledger until `storage_checked()`).

WHY the one book of where the pieces stand: the kiosk and `tafl-robot` both
keep their pieces here (one file per board, `ledger_path`). A piece is on a
board square or in a storage slot (`places`), on the magnet (`pending`), or
off the table: in the visitors' tray or lost (`off_table`, what the set has
that no place holds). This book, not the kiosk's, is the owner because the
gantry writes it durably around every carry (the step before it starts, the
result as soon as it is done): after a power cut it is never more than the
one pending step behind the table, and that step is swept again. A book the
kiosk wrote after hearing of a finished step would be a step behind at the
worst moment. The kiosk shares the one `Ledger` object with the gantry
thread, so every read and change holds the ledger's lock.
"""
from __future__ import annotations

import json
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from calibration.durable import atomic_write_text, set_aside
from robot.layout import ATTACKER, KING, PIECES, SIDES, Location, PieceSet, Slot, TableLayout, \
    location_to_json, side_of

FORMAT = 1
#: the robot package's own simulation rig (robot/simrig.py) keeps one board per state directory
LEDGER_FILE = "gantry-ledger.json"


def ledger_path(state_dir: str | os.PathLike, board_name: str) -> Path:
    """The one ledger file of a board in a state directory, for the kiosk and `tafl-robot` alike."""
    return Path(state_dir) / f"gantry-ledger-{board_name}.json"


class LedgerError(ValueError):
    """A ledger file that cannot be used, or a step that contradicts the ledger."""


@dataclass
class Ledger:
    """Every piece's place (board square or storage slot) and the step in progress."""

    board_name: str
    size: int
    piece_set: PieceSet
    places: dict[Location, str] = field(default_factory=dict)
    pending: dict | None = None          # the step being carried out, as Step.to_json()
    steps_done: int = 0
    storage_check_needed: bool = False   # the ledger was rebuilt: storage is a guess until checked
    fresh: bool = False                  # no file was found (a fresh install); not saved
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    @classmethod
    def in_storage(cls, layout: TableLayout) -> "Ledger":
        """A fresh install: every piece in its storage slot."""
        places: dict[Location, str] = {slot: piece for slot, piece in layout.storage_start().items()}
        return cls(layout.board_name, layout.size, layout.piece_set, places)

    # -- views -------------------------------------------------------------
    def board(self) -> dict[int, str]:
        with self.lock:
            return {loc: p for loc, p in self.places.items() if isinstance(loc, int)}

    def storage(self) -> dict[Slot, str]:
        with self.lock:
            return {loc: p for loc, p in self.places.items() if isinstance(loc, Slot)}

    def piece_at(self, loc: Location) -> str | None:
        return self.places.get(loc)

    def off_table(self, needed: dict[str, int], on_board: dict[int, str] | None = None) -> dict[str, int]:
        """Pieces of `needed` (piece letter -> how many a game uses) that no place holds: in
        the tray or lost. `on_board` replaces the ledger's squares (the camera's newer view)."""
        with self.lock:
            squares = self.board() if on_board is None else on_board
            placed = list(squares.values()) + list(self.storage().values())
        out = {p: n - placed.count(p) for p, n in needed.items()}
        return {p: n for p, n in out.items() if n > 0}

    # -- changes -----------------------------------------------------------
    def apply(self, src: Location, dst: Location, piece: str) -> None:
        """Record that the piece at `src` now stands at `dst`."""
        have = self.places.get(src)
        if have != piece:
            raise LedgerError(f"ledger has {have or 'nothing'} at {src}, not {piece}")
        if dst in self.places and dst != src:
            raise LedgerError(f"ledger already has {self.places[dst]} at {dst}")
        with self.lock:
            del self.places[src]
            self.places[dst] = piece
            self.steps_done += 1

    def put(self, loc: Location, piece: str | None) -> None:
        """Book what stands at `loc` (None: nothing), as the camera or a person found it."""
        with self.lock:
            if piece is None:
                self.places.pop(loc, None)
            else:
                self.places[loc] = piece

    def replace_board(self, squares: dict[int, str]) -> None:
        """The board squares as the camera reads them (the visitor moves pieces the robot never
        touched); storage stays as booked."""
        with self.lock:
            places: dict[Location, str] = {loc: p for loc, p in self.places.items() if isinstance(loc, Slot)}
            for sq, piece in squares.items():
                places[sq] = piece
            self.places = places

    def replace_storage(self, slots: dict[Slot, str]) -> None:
        """Storage as counted (staff, a fresh install); the board squares stay as booked."""
        with self.lock:
            places: dict[Location, str] = {loc: p for loc, p in self.places.items() if isinstance(loc, int)}
            for slot, piece in slots.items():
                places[slot] = piece
            self.places = places

    def storage_checked(self) -> None:
        """Staff or the robot confirmed what storage holds: the ledger is trusted again."""
        self.storage_check_needed = False

    def check(self, layout: TableLayout) -> None:
        """Every place exists and the king, if stored, is in his own slot."""
        for loc, piece in self.places.items():
            layout.position(loc)
            if isinstance(loc, Slot) and side_of(piece) != loc.side:
                raise LedgerError(f"{piece} parked in the {loc.side}' slot {loc}")

    # -- disk ----------------------------------------------------------------
    def to_json(self) -> dict:
        with self.lock:
            return self._to_json()

    def _to_json(self) -> dict:
        return {
            "format": FORMAT,
            "board": self.board_name,
            "size": self.size,
            "piece_set": {"attackers": self.piece_set.attackers, "defenders": self.piece_set.defenders},
            "places": [[location_to_json(loc), p] for loc, p in sorted(
                self.places.items(), key=lambda kv: (isinstance(kv[0], Slot), str(kv[0])))],
            "pending": self.pending,
            "steps_done": self.steps_done,
            **({"storage_check_needed": True} if self.storage_check_needed else {}),
        }

    @classmethod
    def from_json(cls, data: object) -> "Ledger":
        """A ledger from its JSON form; LedgerError naming the first thing that is wrong."""
        if not isinstance(data, dict):
            raise LedgerError(f"not a ledger: {_kind(data)} instead of an object")
        if data.get("format") != FORMAT:
            raise LedgerError(f"unknown ledger format {data.get('format')!r}")
        unknown = set(data) - {"format", "board", "size", "piece_set", "places", "pending", "steps_done",
                               "storage_check_needed"}
        if unknown:
            raise LedgerError(f"unknown keys {', '.join(sorted(map(str, unknown)))}")
        board, size = data.get("board"), data.get("size")
        if not isinstance(board, str) or not board:
            raise LedgerError(f"bad board name {board!r}")
        if not _is_int(size) or not 5 <= size <= 25 or size % 2 == 0:
            raise LedgerError(f"bad board size {size!r}")
        ps = data.get("piece_set")
        if not isinstance(ps, dict) or set(ps) != set(SIDES) or not all(
                _is_int(ps[s]) and 1 <= ps[s] <= size * size for s in SIDES):
            raise LedgerError(f"bad piece_set {ps!r}")
        piece_set = PieceSet(ps["attackers"], ps["defenders"])
        rows = data.get("places")
        if not isinstance(rows, list):
            raise LedgerError(f"places is {_kind(rows)}, not a list")
        places: dict[Location, str] = {}
        for row in rows:
            if not isinstance(row, list) or len(row) != 2:
                raise LedgerError(f"bad place entry {row!r}")
            loc = _location(row[0], size, piece_set)
            piece = row[1]
            if piece not in PIECES:
                raise LedgerError(f"bad piece {piece!r} in ledger")
            if loc in places:
                raise LedgerError(f"two pieces at {loc} in ledger")
            places[loc] = piece
        if not places:
            raise LedgerError("no pieces in ledger (not one on the board or in storage)")
        kings = sum(1 for p in places.values() if p == KING)
        if kings > 1:
            # none is possible: the king in a visitor's hand or the tray (off the table)
            raise LedgerError(f"{kings} kings in ledger (the set has one)")
        attackers = sum(1 for p in places.values() if p == ATTACKER)
        if attackers > piece_set.attackers or len(places) - attackers > piece_set.defenders:
            raise LedgerError(f"{attackers} attackers and {len(places) - attackers} defenders in ledger, "
                              f"more than the set's {piece_set.attackers} and {piece_set.defenders}")
        pending = data.get("pending")
        if pending is not None:
            _check_pending(pending, size, piece_set, places)
        steps = data.get("steps_done", 0)
        if not _is_int(steps) or steps < 0:
            raise LedgerError(f"bad steps_done {steps!r}")
        check_needed = data.get("storage_check_needed", False)
        if not isinstance(check_needed, bool):
            raise LedgerError(f"bad storage_check_needed {check_needed!r}")
        return cls(board, size, piece_set, places, pending, steps, check_needed)

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically: a power cut leaves the old or the new file, never half of one."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.lock:
            atomic_write_text(path, json.dumps(self._to_json(), indent=1) + "\n")
        self.fresh = False

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Ledger":
        try:
            with open(path, "rb") as fh:
                data = json.loads(fh.read().decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise LedgerError(f"{path}: not a ledger (not UTF-8 text at byte {exc.start})") from None
        except json.JSONDecodeError as exc:
            raise LedgerError(f"{path}: not a ledger (bad JSON: {exc})") from None
        except RecursionError:
            raise LedgerError(f"{path}: not a ledger (nested too deeply)") from None
        try:
            return cls.from_json(data)
        except LedgerError as exc:
            raise LedgerError(f"{path}: {exc}") from None

    @classmethod
    def load_or_new(cls, path: str | os.PathLike, layout: TableLayout) -> "Ledger":
        """The saved ledger, or a fresh one (all pieces stored) if there is none yet.

        Raises LedgerError if the saved one is for another board or piece set.
        """
        if not Path(path).exists():
            fresh = cls.in_storage(layout)
            fresh.fresh = True
            return fresh
        ledger = cls.load(path)
        if ledger.board_name != layout.board_name or ledger.size != layout.size:
            raise LedgerError(f"{path}: ledger is for {ledger.board_name} ({ledger.size}x"
                              f"{ledger.size}), the configured board is {layout.board_name}")
        if ledger.piece_set != layout.piece_set:
            raise LedgerError(f"{path}: ledger counts {ledger.piece_set}, the board's set is "
                              f"{layout.piece_set}")
        ledger.check(layout)
        return ledger


@dataclass(frozen=True)
class LedgerLoad:
    """What `load_or_set_aside` found: the ledger to use and, if the file was damaged, why."""

    ledger: Ledger
    damage: str | None = None          # None: the file was good, or there was none (a fresh install)
    kept_as: Path | None = None        # where the damaged file now is


def load_or_set_aside(path: str | os.PathLike, layout: TableLayout) -> LedgerLoad:
    """The saved ledger, or a fresh one if there is none; never fails on a damaged file.

    A damaged file (unreadable, against the schema, for another board or set)
    is moved aside and replaced by a fresh ledger that assumes every piece in
    storage and says `storage_check_needed`. The caller logs `damage`.
    """
    try:
        return LedgerLoad(Ledger.load_or_new(path, layout))
    except (LedgerError, OSError, ValueError) as exc:
        damage = str(exc)
        if damage.startswith(f"{path}: "):
            damage = damage[len(f"{path}: "):]
    kept_as = set_aside(path) if Path(path).exists() else None
    ledger = Ledger.in_storage(layout)
    ledger.storage_check_needed = True
    return LedgerLoad(ledger, damage or "unreadable", kept_as)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: object) -> str:
    return {type(None): "null", list: "a list", dict: "an object", str: "a string"}.get(
        type(value), type(value).__name__)


def _location(obj: object, size: int, piece_set: PieceSet) -> Location:
    """A board square on the board or a slot the set has; LedgerError otherwise."""
    if _is_int(obj):
        if not 0 <= obj < size * size:
            raise LedgerError(f"square {obj} is off the {size}x{size} board")
        return obj
    if isinstance(obj, list) and len(obj) == 2 and obj[0] in SIDES and _is_int(obj[1]):
        if not 0 <= obj[1] < piece_set.count(obj[0]):
            raise LedgerError(f"no storage slot {obj[0]} {obj[1]} (the set has "
                              f"{piece_set.count(obj[0])})")
        return Slot(obj[0], obj[1])
    raise LedgerError(f"not a place: {obj!r}")


def _check_pending(pending: object, size: int, piece_set: PieceSet, places: dict[Location, str]) -> None:
    """The step in progress has the shape of Step.to_json() and fits the places."""
    if not isinstance(pending, dict) or not {"src", "dst", "piece", "kind", "path"} <= set(pending):
        raise LedgerError(f"bad pending step {pending!r:.80}")
    src = _location(pending["src"], size, piece_set)
    _location(pending["dst"], size, piece_set)
    if pending["piece"] not in PIECES or not isinstance(pending["kind"], str):
        raise LedgerError("bad pending step: piece or kind")
    path = pending["path"]
    if not isinstance(path, list) or not path or not all(
            isinstance(p, list) and len(p) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in p)
            for p in path):
        raise LedgerError("bad pending step: its path is not a list of [x, y] millimetres")
    if places.get(src) != pending["piece"]:
        raise LedgerError(f"pending step carries {pending['piece']} from {src}, where the ledger has "
                          f"{places.get(src) or 'nothing'}")
