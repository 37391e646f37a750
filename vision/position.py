"""OTN position records and the board's marked squares, without a rule set.

The reader knows only which board it looks at, not which variant is played,
so it writes and parses the position record itself (the same text as the
engine's `Board.position_otn()`: ranks first rank first, `t` attacker,
`T` defender, `K` king, digits for runs of empty squares, slashes around).
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


def parse_position(record: str, size: int) -> dict[int, str]:
    """Square index -> piece letter from an OTN position record (first rank first)."""
    text = record.strip()
    ranks = [r for r in text.strip("/").split("/")]
    if len(ranks) != size:
        raise ValueError(f"position record has {len(ranks)} ranks, board has {size}: {record!r}")
    pieces: dict[int, str] = {}
    for rank, row in enumerate(ranks):
        file, digits = 0, ""
        for ch in row + " ":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch == " ":
                break
            if ch not in PIECE_LETTERS:
                raise ValueError(f"unknown piece {ch!r} in position record {record!r}")
            if file >= size:
                raise ValueError(f"rank {rank + 1} is longer than {size} squares in {record!r}")
            pieces[rank * size + file] = ch
            file += 1
        if file != size:
            raise ValueError(f"rank {rank + 1} has {file} squares, not {size}, in {record!r}")
    return pieces


def format_position(pieces: dict[int, str], size: int) -> str:
    """The OTN position record of square index -> piece letter."""
    rows = []
    for rank in range(size):
        row, empty = "", 0
        for file in range(size):
            letter = pieces.get(rank * size + file)
            if letter is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += letter
        if empty:
            row += str(empty)
        rows.append(row)
    return "/" + "/".join(rows) + "/"


def classes_from_pieces(pieces: dict[int, str], size: int) -> list[SquareClass]:
    return [SquareClass.from_letter(pieces.get(sq)) for sq in range(size * size)]


def pieces_from_classes(classes: list[SquareClass] | list[int]) -> dict[int, str]:
    return {sq: SquareClass(c).letter for sq, c in enumerate(classes) if SquareClass(c) != SquareClass.EMPTY}


def marked_squares(size: int) -> frozenset[int]:
    """Squares drawn with the darker fill (docs/hardware.md, "Boards").

    11x11: the throne and the four corners. 9x9 (Tablut): the castle and the
    sixteen camp squares, the three middle squares of each edge plus the
    square just inside the middle one.
    """
    mid = size // 2
    sq = lambda f, r: r * size + f  # noqa: E731
    marks = {sq(mid, mid)}
    if size == 9:
        for k in (mid - 1, mid, mid + 1):
            marks |= {sq(k, 0), sq(k, size - 1), sq(0, k), sq(size - 1, k)}
        marks |= {sq(mid, 1), sq(mid, size - 2), sq(1, mid), sq(size - 2, mid)}
    else:
        marks |= {sq(0, 0), sq(size - 1, 0), sq(0, size - 1), sq(size - 1, size - 1)}
    return frozenset(marks)
