"""Storage book-keeping: which slot beside the board holds which piece.

WHY: the camera usually cannot see the storage areas, so the robot must
remember what it parked where; after a power cut this file (written
atomically after every booked transfer) and the journal are that memory.
One record per board, because a board's slot layout is fixed: every side gets
as many slots as the most pieces any variant on that board puts on it.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from calibration.durable import atomic_write_text, set_aside
from engine import Board, Piece
from robot.layout import PieceSet

from kiosk.ports import Slot

INVENTORY_NAME = "inventory.json"

log = logging.getLogger("kiosk.inventory")


def slot_counts(size: int) -> dict[str, int]:
    """Slots per side on a board of `size`: the most pieces of that side any variant uses."""
    pieces = PieceSet.for_board(size)
    return {"attackers": pieces.attackers, "defenders": pieces.defenders}


@dataclass
class StorageInventory:
    """Slot -> piece (None = empty) for one board."""

    slots: dict[Slot, Piece | None] = field(default_factory=dict)

    @classmethod
    def empty(cls, size: int) -> "StorageInventory":
        counts = slot_counts(size)
        return cls({Slot(side, i): None for side, n in counts.items() for i in range(n)})

    @classmethod
    def full_for(cls, variant: str, on_board: dict[int, Piece] | None = None) -> "StorageInventory":
        """Storage holding every piece of `variant` that is not on the board: the
        assumption on a fresh install (the first game ever on this board)."""
        board = Board(variant)
        inv = cls.empty(board.size)
        left = list(board.pieces().values())
        for p in (on_board or {}).values():
            if p in left:
                left.remove(p)
        if Piece.KING in left:
            inv.slots[Slot("defenders", 0)] = Piece.KING
            left.remove(Piece.KING)
        for piece in left:
            side = "attackers" if piece == Piece.ATTACKER else "defenders"
            slot = next(s for s in sorted(inv.slots) if s.side == side and inv.slots[s] is None
                        and not (side == "defenders" and s.index == 0))
            inv.slots[slot] = piece
        return inv

    def count(self, piece: Piece) -> int:
        return sum(1 for p in self.slots.values() if p == piece)

    def to_json(self) -> list:
        return [[s.side, s.index, p.value if p else None] for s, p in sorted(self.slots.items())]

    @classmethod
    def from_json(cls, rows: list) -> "StorageInventory":
        return cls({Slot(str(side), int(i)): (Piece(p) if p else None) for side, i, p in rows})


class InventoryError(ValueError):
    """An inventory file that cannot be trusted (unreadable, or against its schema)."""


def check_rows(rows: object, size: int | None) -> StorageInventory:
    """The inventory of one board from its JSON rows, checked against what can be true.

    Each row is ``[side, slot index, piece or null]``. The side must be a
    storage side, the slot must exist on a board of ``size`` (when given), no
    slot may be booked twice, an attackers' slot holds only attackers and a
    defenders' slot defenders or the king, and no kind may be booked more
    often than the largest set on that board has pieces (one king).
    """
    if not isinstance(rows, list):
        raise InventoryError(f"expected a list of slots, found {type(rows).__name__}")
    counts = slot_counts(size) if size is not None else None
    slots: dict[Slot, Piece | None] = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3):
            raise InventoryError(f"a slot must be [side, index, piece], not {row!r:.60}")
        side, index, value = row
        if side not in ("attackers", "defenders"):
            raise InventoryError(f"unknown storage side {side!r:.30}")
        if isinstance(index, bool) or not isinstance(index, int) or index < 0 \
                or (counts is not None and index >= counts[side]):
            raise InventoryError(f"slot {side} {index!r:.20} does not exist on this board")
        slot = Slot(side, index)
        if slot in slots:
            raise InventoryError(f"slot {side} {index} is booked twice")
        piece: Piece | None = None
        if value is not None:
            try:
                piece = Piece(value)
            except ValueError:
                raise InventoryError(f"unknown piece {value!r:.20} in slot {side} {index}") from None
            if (piece == Piece.ATTACKER) != (side == "attackers"):
                raise InventoryError(f"a {piece.name.lower()} cannot be in an {side} slot ({side} {index})")
        slots[slot] = piece
    if sum(1 for p in slots.values() if p == Piece.KING) > 1:
        raise InventoryError("more than one king in storage")
    if counts is not None:
        for side, most in counts.items():
            booked = sum(1 for s, p in slots.items() if p is not None and s.side == side)
            if booked > most:
                raise InventoryError(f"{booked} {side} booked, but the set has only {most}")
    return StorageInventory(slots)


class InventoryFile:
    """`<state_dir>/inventory.json`: {board name: inventory}, saved atomically.

    A damaged file (a power cut mid-write on a bad SD card, an edit by hand)
    is moved aside for staff and named in one WARNING, with a staff notice;
    the kiosk then starts from the fresh-install assumption, which staff
    confirm with "Pieces are back / count storage again".
    """

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.path = Path(state_dir) / INVENTORY_NAME

    def _read(self) -> dict:
        """The whole file as {board: rows}; raises InventoryError naming what is wrong."""
        try:
            data = json.loads(self.path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError:
            raise InventoryError("not UTF-8 text") from None
        except (ValueError, RecursionError) as exc:
            raise InventoryError(f"not JSON ({str(exc)[:60]})") from None
        if not isinstance(data, dict):
            raise InventoryError(f"expected an object of boards, found {type(data).__name__}")
        return data

    def load(self, board_name: str, size: int | None = None) -> StorageInventory | None:
        """This board's inventory, or None when there is none (or it was damaged and set aside)."""
        if not self.path.exists():
            return None
        try:
            rows = self._read().get(board_name)
            return check_rows(rows, size) if rows is not None else None
        except (InventoryError, OSError) as exc:
            self._set_aside(str(exc))
            return None

    def _set_aside(self, problem: str) -> None:
        from kiosk import notices

        kept = ""
        try:
            kept = f"; the damaged file is kept as {set_aside(self.path).name}"
        except OSError:
            pass
        notices.post(str(self.path), f"damaged storage book: {problem}",
                     "storage is assumed full: check it and press 'Pieces are back' in staff mode" + kept,
                     logger=log)

    def save(self, board_name: str, inventory: StorageInventory) -> None:
        data: dict = {}
        if self.path.exists():
            try:
                data = self._read()
            except (InventoryError, OSError) as exc:
                self._set_aside(str(exc))
                data = {}
        data[board_name] = inventory.to_json()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(data))
