"""What must lie inside the gantry's travel: every storage slot and every corner of the board.

Three checks ask it: the config file's validation (calibration/config_file.py,
so a board origin that puts a slot out of reach is refused at load), the
gantry calibration before it saves a fit (calibration/gantry.py) and the
kiosk's self-check (calibration/selfcheck.py). The slot counts follow the
robot's storage layout, so the slots checked are the slots the robot uses.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from calibration.config import Config
from calibration.geometry import BoardGeometry, GantryTransform, Point


@dataclass(frozen=True)
class LimitProblem:
    what: str          # "attackers' slot 3", "square a1", ...
    board_mm: Point
    machine_mm: Point

    def __str__(self) -> str:
        return (f"{self.what} at board ({self.board_mm[0]:.1f}, {self.board_mm[1]:.1f}) mm is at "
                f"machine ({self.machine_mm[0]:.1f}, {self.machine_mm[1]:.1f}) mm, outside the travel")


def storage_slot_counts(config: Config, board_name: str | None = None) -> dict[str, int]:
    """Slots each side needs on this board: its largest start position over every variant of that size.

    Same rule as the robot's storage layout (robot.layout.PieceSet.for_board),
    so that the slots checked here are the slots the robot will use; the counts
    come from the engine's start positions (the king parks with the defenders).
    """
    from engine import VARIANTS, Board, Piece  # deferred: only the limits check needs the rules

    size = config.boards[board_name or config.board].squares
    counts = {"attackers": 0, "defenders": 0}
    for name in VARIANTS:
        board = Board(name)
        if board.size != size:
            continue
        pieces = list(board.pieces().values())
        counts["attackers"] = max(counts["attackers"], sum(p == Piece.ATTACKER for p in pieces))
        counts["defenders"] = max(counts["defenders"], sum(p != Piece.ATTACKER for p in pieces))
    if not any(counts.values()):
        raise ValueError(f"no variant is played on a {size}x{size} board")
    return counts


def check_soft_limits(geometry: BoardGeometry, transform: GantryTransform,
                      travel_mm: Sequence[float], slot_counts: dict[str, int]) -> list[LimitProblem]:
    """Every storage slot and every board corner must be inside 0..travel on both axes."""
    points: list[tuple[str, Point]] = []
    for side, count in slot_counts.items():
        for i, p in enumerate(geometry.storage_slots(side, count)):
            points.append((f"{side}' slot {i}", p))
    w = geometry.width
    for name, p in (("board corner a1", (0.0, 0.0)), ("board corner (W, 0)", (w, 0.0)),
                    ("board corner (W, W)", (w, w)), ("board corner (0, W)", (0.0, w))):
        points.append((name, p))
    problems = []
    for what, p in points:
        mx, my = transform.to_machine(*p)
        if not (0.0 <= mx <= travel_mm[0] and 0.0 <= my <= travel_mm[1]):
            problems.append(LimitProblem(what, p, (mx, my)))
    return problems
