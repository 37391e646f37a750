"""What the camera sees on a square, and the board's marked squares, without a rule set.

The reader knows only which board it looks at, not which variant is played.
Its position records are OTN, written and read by the engine's
`position_from_pieces` / `pieces_from_position` (square -> piece letter), so
there is one OTN implementation in the project.
"""
from __future__ import annotations

from enum import IntEnum

PIECE_LETTERS = ("t", "T", "K")


class SquareClass(IntEnum):
    """What a square holds, as the camera sees it."""

    EMPTY = 0
    ATTACKER = 1
    DEFENDER = 2
    KING = 3

    @property
    def letter(self) -> str:
        return "." if self is SquareClass.EMPTY else PIECE_LETTERS[self - 1]

    @classmethod
    def from_letter(cls, letter: str | None) -> "SquareClass":
        if letter is None or letter == ".":
            return cls.EMPTY
        return cls(PIECE_LETTERS.index(letter) + 1)


def pieces_from_classes(classes: list[SquareClass] | list[int]) -> dict[int, str]:
    return {sq: SquareClass(c).letter for sq, c in enumerate(classes) if SquareClass(c) != SquareClass.EMPTY}


def throne_square(size: int) -> int:
    """The centre square, the throne (Tablut's castle): where the king starts in every rule set."""
    return (size // 2) * size + size // 2


def camp_squares(size: int) -> frozenset[int]:
    """The squares where no light piece ever stands: Tablut's camps (the 9x9 board's marked squares but the
    castle). `board-9` is Tablut's board alone (docs/hardware.md, "Boards"), and in Tablut "Swedes and the
    king never enter camps" (docs/rules.md, rules 11-12); `board-11` has none."""
    return marked_squares(size) - {throne_square(size)} if size == 9 else frozenset()


def marked_squares(size: int) -> frozenset[int]:
    """Squares drawn with the darker fill (docs/hardware.md, "Boards").

    11x11: the throne and the four corners. 9x9 (Tablut): the castle and the
    sixteen camp squares, the three middle squares of each edge plus the
    square just inside the middle one.
    """
    mid = size // 2
    sq = lambda f, r: r * size + f  # noqa: E731
    marks = {throne_square(size)}
    if size == 9:
        for k in (mid - 1, mid, mid + 1):
            marks |= {sq(k, 0), sq(k, size - 1), sq(0, k), sq(size - 1, k)}
        marks |= {sq(mid, 1), sq(mid, size - 2), sq(1, mid), sq(size - 2, mid)}
    else:
        marks |= {sq(0, 0), sq(size - 1, 0), sq(0, size - 1), sq(size - 1, size - 1)}
    return frozenset(marks)
