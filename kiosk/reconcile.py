"""Plan the transfers that turn the board the camera sees into the board the robot wants.

WHY one planner for everything: setting up a game, resetting between two games,
clearing the board, retrying a missed pickup and resuming after a power cut are
all the same question: here is what is on the squares (the camera) and in
storage (the robot's ledger), here is what should be on the squares; which pieces
go where? Pieces of one kind are interchangeable, so any attacker may fill any
attacker's square. The answer is the robot's (robot/planner.py `plan_reset`);
this module only turns the kiosk's records into its input and back.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine import Piece

from robot.planner import MotionPlanner

from kiosk.ports import Slot, Transfer


@dataclass
class Reconciliation:
    transfers: list[Transfer]
    missing: dict[int, Piece] = field(default_factory=dict)   # target squares with no piece to fill them
    no_slot: dict[int, Piece] = field(default_factory=dict)   # pieces that could not be parked

    @property
    def complete(self) -> bool:
        return not self.missing and not self.no_slot


def reconcile(observed: dict[int, Piece], target: dict[int, Piece], storage: dict[Slot, Piece],
              planner: MotionPlanner, offset_mm: tuple[float, float] = (0.0, 0.0)) -> Reconciliation:
    """Transfers from `observed` (squares) + `storage` (the ledger's slots) to `target` (squares).

    The robot's reset planner decides (robot/planner.py `plan_reset`): pieces on
    their target square stay, pieces of the right kind on a wrong square go board
    to board, storage is used only for the difference, by a minimum-cost
    assignment in gantry time, in an order whose every drag has a clear route.
    `offset_mm` shifts every pickup on the board (a missed-pickup retry).
    """
    plan = planner.plan_reset(observed, dict(storage), target, pickup_offset=offset_mm)
    transfers = []
    for step in plan.steps:
        kind = "park" if isinstance(step.dst, Slot) else "setup" if isinstance(step.src, Slot) else "transfer"
        transfers.append(Transfer(step.src, step.dst, Piece(step.piece), kind,
                                  offset_mm if isinstance(step.src, int) else (0.0, 0.0)))
    return Reconciliation(transfers, {sq: Piece(p) for sq, p in plan.missing.items()},
                          {sq: Piece(p) for sq, p in plan.no_slot.items()})


def diff_squares(observed: dict[int, Piece], target: dict[int, Piece]) -> dict[int, Piece | None]:
    """Squares whose content differs: square -> what belongs there (None = empty)."""
    out: dict[int, Piece | None] = {}
    for sq in set(observed) | set(target):
        if observed.get(sq) != target.get(sq):
            out[sq] = target.get(sq)
    return dict(sorted(out.items()))


def king_in_storage(observed: dict[int, Piece], king_share: dict[int, float], storage: dict[Slot, Piece],
                    sure: float) -> tuple[dict[int, Piece], list[Slot]]:
    """The camera's board checked against a king the ledger has in storage.

    WHY: the reader takes a board to hold its king, as a board in play does (a
    captured king ends the game), and when it sees him nowhere it names the
    likeliest light piece the king (vision/classifier.likeliest_king), never
    surely. Once the robot has parked a captured king in his slot that guess is
    a defender: a museum day (`tafl-kiosk --simulate --visitors 12 --seed 4242
    --faults all`) had the reset carry a defender "king" from j10 to the throne,
    leave the real king in his slot, book two kings, and start the next game
    with a defender on the throne. So where storage holds the king, a king the
    camera is less than `sure` of (`king_share`: his share per square) is read
    the defender he is. A king it is sure of is there: the ledger's slot is the
    stale belief, returned to be unbooked.
    """
    stored = [slot for slot, p in storage.items() if p == Piece.KING]
    if not stored:
        return observed, []
    kings = [sq for sq, p in observed.items() if p == Piece.KING]
    if any(king_share.get(sq, 0.0) >= sure for sq in kings):
        return observed, stored
    return {sq: (Piece.DEFENDER if p == Piece.KING else p) for sq, p in observed.items()}, []
