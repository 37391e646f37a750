"""Where every place a piece can stand is: board squares and storage slots, in millimetres.

WHY one module: the planner, the gantry, the ledger, the simulator's table and
the command line all name places and turn them into board or machine
millimetres. Every figure comes from the configuration through
calibration.geometry, so a museum with other hardware changes its config file.

A place (`Location`) is a board square (an int, `rank * size + file`) or a
storage slot (`Slot(side, index)`); the king's slot is `Slot('defenders', 0)`.
Pieces are the OTN letters 't' (attacker), 'T' (defender), 'K' (king), the
values of engine.Piece.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Union

from calibration.config import Config
from calibration.geometry import BoardGeometry, GantryTransform, Point

ATTACKER, DEFENDER, KING = "t", "T", "K"
PIECES = (ATTACKER, DEFENDER, KING)
SIDES = ("attackers", "defenders")


@dataclass(frozen=True, order=True)
class Slot:
    """A parking slot beside the board: 'attackers' left of it, 'defenders' right."""

    side: str
    index: int

    def __str__(self) -> str:
        return f"{self.side[:3]}-{self.index}"


Location = Union[int, Slot]
KING_SLOT = Slot("defenders", 0)


def piece_letter(piece: object) -> str:
    """'t', 'T' or 'K' from an engine.Piece or its letter."""
    letter = getattr(piece, "value", piece)
    if letter not in PIECES:
        raise ValueError(f"not a piece: {piece!r}")
    return str(letter)


def side_of(piece: str) -> str:
    return "attackers" if piece == ATTACKER else "defenders"


def location_to_json(loc: Location) -> object:
    return loc if isinstance(loc, int) else [loc.side, loc.index]


def location_from_json(obj: object) -> Location:
    if isinstance(obj, int) and not isinstance(obj, bool):
        return obj
    if isinstance(obj, (list, tuple)) and len(obj) == 2 and obj[0] in SIDES:
        return Slot(str(obj[0]), int(obj[1]))
    raise ValueError(f"not a location: {obj!r}")


@dataclass(frozen=True)
class PieceSet:
    """How many pieces each side owns (the king counts with the defenders): one storage
    slot each, so the robot can set up a game from storage alone."""

    attackers: int
    defenders: int

    def count(self, side: str) -> int:
        return self.attackers if side == "attackers" else self.defenders

    @classmethod
    def from_position(cls, pieces: dict[int, str]) -> "PieceSet":
        att = sum(1 for p in pieces.values() if p == ATTACKER)
        return cls(att, len(pieces) - att)

    @classmethod
    def for_variant(cls, variant: str) -> "PieceSet":
        return cls.from_position(start_position(variant))

    @classmethod
    def for_board(cls, size: int) -> "PieceSet":
        """Enough slots for every variant played on a board of this size."""
        from engine import VARIANTS  # engine is a lower layer; imported late to keep start-up light

        sets = [cls.for_variant(v) for v in VARIANTS if _variant_size(v) == size]
        if not sets:
            raise ValueError(f"no variant is played on a {size}x{size} board")
        return cls(max(s.attackers for s in sets), max(s.defenders for s in sets))


def _variant_size(variant: str) -> int:
    from engine import Board

    return Board(variant).size


def start_position(variant: str, options: dict[str, str] | None = None) -> dict[int, str]:
    """The variant's start position from the engine, as square -> piece letter
    (options matter: Throw Board has two start layouts)."""
    from engine import Board

    board = Board(variant, options=options) if options else Board(variant)
    return {sq: piece_letter(p) for sq, p in board.pieces().items()}


class TableLayout:
    """Board squares and storage slots of the installed board in board and machine mm."""

    def __init__(self, config: Config, board_name: str | None = None,
                 piece_set: PieceSet | None = None):
        self.config = config
        self.board_name = board_name or config.board
        if self.board_name not in config.boards:
            raise ValueError(f"no board named {self.board_name!r} in the configuration "
                             f"(known: {', '.join(config.boards)})")
        self.geometry = BoardGeometry.from_config(config, self.board_name)
        self.transform = GantryTransform.from_config(config.gantry)
        self.piece_set = piece_set or PieceSet.for_board(self.geometry.size)
        self._slots = {side: self.geometry.storage_slots(side, self.piece_set.count(side))
                       for side in SIDES}
        pc = config.pieces
        self._radius = {ATTACKER: pc.attacker_diameter_mm / 2, DEFENDER: pc.defender_diameter_mm / 2,
                        KING: pc.king_diameter_mm / 2}

    @property
    def size(self) -> int:
        return self.geometry.size

    @property
    def pitch(self) -> float:
        return self.geometry.pitch

    @property
    def width(self) -> float:
        return self.geometry.width

    def radius(self, piece: str) -> float:
        return self._radius[piece]

    def slots(self, side: str | None = None) -> list[Slot]:
        sides = SIDES if side is None else (side,)
        return [Slot(s, i) for s in sides for i in range(len(self._slots[s]))]

    def position(self, loc: Location) -> Point:
        """Centre of a square or slot in board millimetres."""
        if isinstance(loc, Slot):
            try:
                return self._slots[loc.side][loc.index]
            except (KeyError, IndexError):
                raise ValueError(f"no storage slot {loc}") from None
        if not 0 <= loc < self.size * self.size:
            raise ValueError(f"square {loc} is off the {self.size}x{self.size} board")
        return self.geometry.square_center(loc)

    def to_machine(self, point: Point) -> Point:
        return self.transform.to_machine(*point)

    def to_board(self, point: Point) -> Point:
        return self.transform.to_board(*point)

    def machine_position(self, loc: Location) -> Point:
        return self.to_machine(self.position(loc))

    def location_at(self, point: Point, tolerance: float | None = None) -> Location | None:
        """The square or slot whose centre is within `tolerance` (default: a quarter pitch)."""
        tol = self.pitch / 4 if tolerance is None else tolerance
        sq = self.geometry.square_at(*point)
        if sq is not None:
            c = self.geometry.square_center(sq)
            return sq if math.dist(c, point) <= tol else None
        for slot in self.slots():
            if math.dist(self.position(slot), point) <= tol:
                return slot
        return None

    # -- names for people ----------------------------------------------------
    def name(self, loc: Location) -> str:
        if isinstance(loc, Slot):
            return str(loc)
        return f"{chr(ord('a') + loc % self.size)}{loc // self.size + 1}"

    def parse(self, text: str) -> Location:
        """'e4' -> square; 'att-3' / 'def-0' -> storage slot. One-line ValueError otherwise."""
        t = text.strip().lower()
        m = re.fullmatch(r"(att|def)-(\d+)", t)
        if m:
            slot = Slot("attackers" if m.group(1) == "att" else "defenders", int(m.group(2)))
            if slot.index >= self.piece_set.count(slot.side):
                raise ValueError(f"no storage slot {text!r} (slots {m.group(1)}-0.."
                                 f"{m.group(1)}-{self.piece_set.count(slot.side) - 1})")
            return slot
        m = re.fullmatch(r"([a-z])(\d{1,2})", t)
        if m:
            f, r = ord(m.group(1)) - ord("a"), int(m.group(2)) - 1
            if 0 <= f < self.size and 0 <= r < self.size:
                return r * self.size + f
        last = f"{chr(ord('a') + self.size - 1)}{self.size}"
        raise ValueError(f"bad place {text!r}: a square a1..{last} or a slot like att-0 / def-0")

    def storage_start(self) -> dict[Slot, str]:
        """Every piece in its slot: the king in his own, the others in order."""
        out: dict[Slot, str] = {}
        for i in range(self.piece_set.attackers):
            out[Slot("attackers", i)] = ATTACKER
        for i in range(self.piece_set.defenders):
            out[Slot("defenders", i)] = KING if i == 0 else DEFENDER
        return out
