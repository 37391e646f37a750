"""Storage book-keeping: which slot beside the board holds which piece.

WHY: the camera usually cannot see the storage areas, so the robot must
remember what it parked where; after a power cut this file (written
atomically after every booked transfer) and the journal are that memory.
One record per board, because a board's slot layout is fixed: every side gets
as many slots as the most pieces any variant on that board puts on it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from calibration.durable import atomic_write_text
from engine import Board, Piece
from robot.layout import PieceSet

from kiosk.ports import Slot

INVENTORY_NAME = "inventory.json"


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


class InventoryFile:
    """`<state_dir>/inventory.json`: {board name: inventory}, saved atomically."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.path = Path(state_dir) / INVENTORY_NAME

    def load(self, board_name: str) -> StorageInventory | None:
        if not self.path.exists():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            rows = data.get(board_name)
            return StorageInventory.from_json(rows) if rows is not None else None
        except (ValueError, TypeError, KeyError):
            return None

    def save(self, board_name: str, inventory: StorageInventory) -> None:
        data: dict = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except ValueError:
                data = {}
        data[board_name] = inventory.to_json()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(data))
