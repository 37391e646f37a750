"""Plan the transfers that turn the board the camera sees into the board the robot wants.

WHY one planner for everything: setting up a game, parking captures, clearing
the board, retrying a missed pickup and resuming after a power cut are all the
same question: here is what is on the squares (the camera) and in storage (the
ledger), here is what should be on the squares; which pieces go where? Pieces
of one kind are interchangeable, so any attacker may fill any attacker's square.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine import Piece

from kiosk.inventory import StorageInventory
from kiosk.ports import Slot, Transfer


@dataclass
class Reconciliation:
    transfers: list[Transfer]
    missing: dict[int, Piece] = field(default_factory=dict)   # target squares with no piece to fill them
    no_slot: dict[int, Piece] = field(default_factory=dict)   # pieces that could not be parked

    @property
    def complete(self) -> bool:
        return not self.missing and not self.no_slot


def side_of(piece: Piece) -> str:
    return "attackers" if piece == Piece.ATTACKER else "defenders"


def park_slot(inventory: dict[Slot, Piece | None], piece: Piece) -> Slot | None:
    """A free slot for `piece`: the king's own slot (defenders 0) for the king,
    the other defenders' slots before slot 0 for defenders."""
    side = side_of(piece)
    free = sorted(s for s, p in inventory.items() if s.side == side and p is None)
    if not free:
        return None
    if piece == Piece.KING and Slot("defenders", 0) in free:
        return Slot("defenders", 0)
    if piece == Piece.DEFENDER:
        others = [s for s in free if s.index != 0]
        if others:
            return others[0]
    return free[0]


def reconcile(observed: dict[int, Piece], target: dict[int, Piece],
              inventory: StorageInventory, offset_mm: tuple[float, float] = (0.0, 0.0),
              board_kind: str = "move") -> Reconciliation:
    """Transfers from `observed` (squares) + `inventory` (storage) to `target` (squares).

    Order: pieces already on the board slide straight to a square that needs
    them; the rest are parked; then empty target squares are filled from
    storage. `offset_mm` shifts every pickup on the board (a missed-pickup retry).
    """
    board = dict(observed)
    slots = dict(inventory.slots)
    transfers: list[Transfer] = []

    def wrong() -> list[int]:
        return sorted(sq for sq, p in board.items() if target.get(sq) != p)

    progress = True
    while progress:
        progress = False
        for sq in wrong():
            piece = board[sq]
            dst = next((n for n in sorted(target) if target[n] == piece and n not in board), None)
            if dst is None:
                continue
            transfers.append(Transfer(sq, dst, piece, board_kind, offset_mm))
            board[dst] = board.pop(sq)
            progress = True

    result = Reconciliation(transfers)
    for sq in wrong():
        piece = board[sq]
        slot = park_slot(slots, piece)
        if slot is None:
            result.no_slot[sq] = piece
            continue
        transfers.append(Transfer(sq, slot, piece, "park", offset_mm))
        slots[slot] = piece
        del board[sq]

    for sq in sorted(target):
        if board.get(sq) == target[sq] or sq in board:
            continue
        piece = target[sq]
        slot = next((s for s in sorted(slots) if slots[s] == piece), None)
        if slot is None:
            result.missing[sq] = piece
            continue
        transfers.append(Transfer(slot, sq, piece, "setup"))
        slots[slot] = None
        board[sq] = piece
    return result


def apply_transfer(inventory: StorageInventory, transfer: Transfer) -> None:
    """Book a done transfer into the storage inventory."""
    if isinstance(transfer.src, Slot):
        inventory.slots[transfer.src] = None
    if isinstance(transfer.dst, Slot):
        inventory.slots[transfer.dst] = transfer.piece


def diff_squares(observed: dict[int, Piece], target: dict[int, Piece]) -> dict[int, Piece | None]:
    """Squares whose content differs: square -> what belongs there (None = empty)."""
    out: dict[int, Piece | None] = {}
    for sq in set(observed) | set(target):
        if observed.get(sq) != target.get(sq):
            out[sq] = target.get(sq)
    return dict(sorted(out.items()))
