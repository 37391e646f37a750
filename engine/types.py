"""The small value types every other package passes around: sides, pieces, moves, results.

They are deliberately plain (str enums, frozen dataclasses) so that vision,
robot and kiosk can compare, hash, print and JSON-encode them without knowing
how the board stores its squares.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

FILES = "abcdefghijklmnopqrstuvwxyz"


class Side(str, Enum):
    """The two parties. Tablut's Muscovites and Throw Board's raiders are ATTACKERS."""

    ATTACKERS = "attackers"
    DEFENDERS = "defenders"

    @property
    def other(self) -> "Side":
        return Side.DEFENDERS if self is Side.ATTACKERS else Side.ATTACKERS

    def __str__(self) -> str:
        return self.value


class Piece(str, Enum):
    """A piece as OTN writes it: 't' attacker, 'T' defender, 'K' king."""

    ATTACKER = "t"
    DEFENDER = "T"
    KING = "K"

    @property
    def side(self) -> Side:
        return Side.ATTACKERS if self is Piece.ATTACKER else Side.DEFENDERS

    def __str__(self) -> str:
        return self.value


# Internal square codes of the board's mailbox (index = code).
EMPTY, ATT, DEF, KING = 0, 1, 2, 3
PIECE_OF_CODE: tuple[Piece | None, ...] = (None, Piece.ATTACKER, Piece.DEFENDER, Piece.KING)
CODE_OF_PIECE = {Piece.ATTACKER: ATT, Piece.DEFENDER: DEF, Piece.KING: KING}
# Side codes: 1 attackers, 2 defenders; SIDE_OF_CODE[piece code] -> side code.
SIDE_OF_CODE = (0, 1, 2, 2)
SIDE_OF_SIDE_CODE = {1: Side.ATTACKERS, 2: Side.DEFENDERS}
SIDE_CODE = {Side.ATTACKERS: 1, Side.DEFENDERS: 2}


def square_name(sq: int, size: int) -> str:
    """`0` -> `a1`; squares are `rank * size + file`, both 0-based."""
    if not 0 <= sq < size * size:
        raise ValueError(f"square {sq} is off a {size}x{size} board")
    rank, file = divmod(sq, size)
    return f"{FILES[file]}{rank + 1}"


def parse_square(name: str, size: int) -> int:
    """`a1` -> `0`; raises ValueError naming the bad text.

    The rank is one or two ASCII digits without a leading zero (`d01`, `d١`
    and `d 1` are refused, not read as `d1`).
    """
    text = name.strip().lower()
    digits = text[1:]
    if (not 2 <= len(text) <= 3 or text[0] not in FILES[:size] or not digits.isascii()
            or not digits.isdigit() or digits[0] == "0"):
        shown = repr(name) if len(name) <= 20 else repr(name[:20]) + "..."
        raise ValueError(f"bad square {shown} for a {size}x{size} board")
    file = FILES.index(text[0])
    rank = int(text[1:]) - 1
    if not 0 <= rank < size:
        raise ValueError(f"bad square {name!r}: rank off a {size}x{size} board")
    return rank * size + file


@dataclass(frozen=True, slots=True)
class Move:
    """A piece slides from `from_sq` to `to_sq`; what it captures depends on the board."""

    from_sq: int
    to_sq: int

    def otn(self, size: int) -> str:
        """`e5-e8` (the board's `move_to_otn` adds the captures)."""
        return f"{square_name(self.from_sq, size)}-{square_name(self.to_sq, size)}"


@dataclass(frozen=True)
class Outcome:
    """How a game ended: `winner` is None for a draw; `reason` is one short word.

    Reasons: king_escaped, king_captured, edge_fort, encirclement, repetition,
    no_moves.
    """

    winner: Side | None
    reason: str

    def describe(self) -> str:
        if self.winner is None:
            return f"draw ({self.reason})"
        return f"{self.winner.value} win ({self.reason})"


@dataclass(frozen=True)
class Announcement:
    """Something the kiosk should say or show after a move.

    kind: capture, shieldwall, resting, raichi, tuichu, king_threatened,
    edge_fort, repetition_warning, game_end.
    `side` is the side the announcement is made for (the one who achieved it),
    `squares` the squares concerned (captured squares, escape squares, ...).
    """

    kind: str
    side: Side | None = None
    squares: tuple[int, ...] = field(default_factory=tuple)
    text: str = ""
