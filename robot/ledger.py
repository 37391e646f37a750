"""The ledger: where the robot believes every physical piece stands, kept on disk.

WHY: the camera cannot see the storage areas, and the gantry has no sensor of
its own, so this record is the robot's only memory of the pieces it parked. It
is saved atomically (temporary file, fsync, rename, fsync of the directory)
after every completed step, and a step in progress is written down *before*
it starts: after a power cut or an alarm the robot knows exactly which piece
may be lying part-way along which path (`pending`), and `Gantry.recover()`
sweeps that path again.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from calibration.durable import atomic_write_text
from robot.layout import KING, Location, PieceSet, Slot, TableLayout, location_from_json, \
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

    @classmethod
    def in_storage(cls, layout: TableLayout) -> "Ledger":
        """A fresh install: every piece in its storage slot."""
        return cls(layout.board_name, layout.size, layout.piece_set, dict(layout.storage_start()))

    # -- views -------------------------------------------------------------
    def board(self) -> dict[int, str]:
        return {loc: p for loc, p in self.places.items() if isinstance(loc, int)}

    def storage(self) -> dict[Slot, str]:
        return {loc: p for loc, p in self.places.items() if isinstance(loc, Slot)}

    def piece_at(self, loc: Location) -> str | None:
        return self.places.get(loc)

    def free_slots(self, layout: TableLayout, side: str) -> list[Slot]:
        return [s for s in layout.slots(side) if s not in self.places]

    # -- changes -----------------------------------------------------------
    def apply(self, src: Location, dst: Location, piece: str) -> None:
        """Record that the piece at `src` now stands at `dst`."""
        have = self.places.get(src)
        if have != piece:
            raise LedgerError(f"ledger has {have or 'nothing'} at {src}, not {piece}")
        if dst in self.places and dst != src:
            raise LedgerError(f"ledger already has {self.places[dst]} at {dst}")
        del self.places[src]
        self.places[dst] = piece
        self.steps_done += 1

    def check(self, layout: TableLayout) -> None:
        """Every place exists and the king, if stored, is in his own slot."""
        for loc, piece in self.places.items():
            layout.position(loc)
            if isinstance(loc, Slot) and side_of(piece) != loc.side:
                raise LedgerError(f"{piece} parked in the {loc.side}' slot {loc}")

    # -- disk ----------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "board": self.board_name,
            "size": self.size,
            "piece_set": {"attackers": self.piece_set.attackers, "defenders": self.piece_set.defenders},
            "places": [[location_to_json(loc), p] for loc, p in sorted(
                self.places.items(), key=lambda kv: (isinstance(kv[0], Slot), str(kv[0])))],
            "pending": self.pending,
            "steps_done": self.steps_done,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Ledger":
        try:
            if data.get("format") != FORMAT:
                raise LedgerError(f"unknown ledger format {data.get('format')!r}")
            ps = data["piece_set"]
            places: dict[Location, str] = {}
            for loc_json, piece in data["places"]:
                loc = location_from_json(loc_json)
                if piece not in ("t", "T", KING):
                    raise LedgerError(f"bad piece {piece!r} in ledger")
                if loc in places:
                    raise LedgerError(f"two pieces at {loc} in ledger")
                places[loc] = piece
            return cls(str(data["board"]), int(data["size"]),
                       PieceSet(int(ps["attackers"]), int(ps["defenders"])), places,
                       data.get("pending"), int(data.get("steps_done", 0)))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, LedgerError):
                raise
            raise LedgerError(f"corrupt ledger: {exc}") from None

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically: a power cut leaves the old or the new file, never half of one."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Ledger":
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise LedgerError(f"{path}: not a ledger (bad JSON: {exc})") from None
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
            return cls.in_storage(layout)
        ledger = cls.load(path)
        if ledger.board_name != layout.board_name or ledger.size != layout.size:
            raise LedgerError(f"{path}: ledger is for {ledger.board_name} ({ledger.size}x"
                              f"{ledger.size}), the configured board is {layout.board_name}")
        if ledger.piece_set != layout.piece_set:
            raise LedgerError(f"{path}: ledger counts {ledger.piece_set}, the board's set is "
                              f"{layout.piece_set}")
        ledger.check(layout)
        return ledger
