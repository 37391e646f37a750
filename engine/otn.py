"""OpenTafl notation (OTN): position strings and move texts, both ways.

Positions are written `/3ttttt3/5t5/11/.../`: one field per rank, FIRST RANK
FIRST, digits count empty squares (`11` is a whole empty rank), `t` attacker,
`T` defender, `K` king. Moves are `e5-e8`, with the squares they capture
appended as `xe9` (several: `e5-e8xe9xf8`). Errors are one line naming the
offending text, because they reach the command line and the kiosk log as is.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from .types import ATT, CODE_OF_PIECE, DEF, EMPTY, FILES, KING, PIECE_OF_CODE, Piece, parse_square, square_name

_CODE_OF_CHAR = {"t": ATT, "T": DEF, "K": KING}
_CHAR_OF_CODE = {ATT: "t", DEF: "T", KING: "K"}
_SQUARE = r"[a-zA-Z][1-9][0-9]?"       # ASCII digits, no leading zero (parse_square checks the rest)
_MOVE_RE = re.compile(rf"({_SQUARE})-({_SQUARE})((?:x{_SQUARE})*)")


#: the board sizes of the rules (9x9 Tablut, 11x11 the others); OpenTafl's 7..19 for OTEP records
MIN_SIZE, MAX_SIZE = 5, 19


def quote(text: str, limit: int = 40) -> str:
    """``repr`` of a piece of input for an error message: one line, at most ``limit`` characters
    of the input (the rest is counted), so a megabyte of bad input gives a short message."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def _check_size(size: int) -> None:
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size {size} is not one the rules have ({MIN_SIZE} to {MAX_SIZE})")


def parse_position(text: str, size: int) -> list[int]:
    """The square codes of an OTN position (index = rank * size + file).

    Strict, because the text comes from command lines, files and other
    programs: only ``/``, the ASCII digits and ``t T K`` inside the slashes
    (no other digits, no whitespace inside a rank), a run of empty squares
    written without a leading zero and no longer than what is left of its rank
    (checked before anything is allocated), ``size`` ranks of ``size`` squares.
    """
    _check_size(size)
    body = text.strip()
    if not body:
        raise ValueError("empty position string")
    if len(body) > 2 * size * size + size + 2:
        raise ValueError(f"position string is {len(body)} characters long, "
                         f"longer than any {size}x{size} position")
    ranks = body.strip("/").split("/")
    if len(ranks) != size:
        raise ValueError(f"position has {len(ranks)} ranks, a {size}x{size} board needs {size}")
    cells: list[int] = []
    for r, field in enumerate(ranks):
        row: list[int] = []
        i = 0
        while i < len(field):
            ch = field[i]
            if ch in _CODE_OF_CHAR:
                row.append(_CODE_OF_CHAR[ch])
                i += 1
            elif "0" <= ch <= "9":
                j = i
                while j < len(field) and "0" <= field[j] <= "9":
                    j += 1
                run = field[i:j]
                if run[0] == "0":
                    raise ValueError(f"rank {r + 1} of the position has a run with a leading "
                                     f"zero or of zero squares: {quote(field)}")
                if len(run) > 2 or int(run) > size - len(row):
                    raise ValueError(f"rank {r + 1} of the position is longer than {size} "
                                     f"squares: {quote(field)}")
                row.extend([EMPTY] * int(run))
                i = j
            else:
                raise ValueError(f"rank {r + 1} of the position has bad character {ch!r} "
                                 f"(use t, T, K and the digits 0-9)")
            if len(row) > size:
                raise ValueError(f"rank {r + 1} of the position is longer than {size} "
                                 f"squares: {quote(field)}")
        if len(row) != size:
            raise ValueError(f"rank {r + 1} of the position is {len(row)} squares long, "
                             f"not {size}: {quote(field)}")
        cells.extend(row)
    kings = cells.count(KING)
    if kings > 1:
        raise ValueError(f"position has {kings} kings, at most one is allowed")
    return cells


def format_position(cells: list[int] | bytearray, size: int) -> str:
    """The OTN text of square codes, rank 1 first."""
    out = []
    for r in range(size):
        row, run = [], 0
        for code in cells[r * size:(r + 1) * size]:
            if code == EMPTY:
                run += 1
                continue
            if run:
                row.append(str(run))
                run = 0
            row.append(_CHAR_OF_CODE[code])
        if run:
            row.append(str(run))
        out.append("".join(row))
    return "/" + "/".join(out) + "/"


def position_from_pieces(pieces: Mapping[int, Piece | str], size: int) -> str:
    """The OTN text of square index -> piece (a `Piece` or its letter 't', 'T', 'K').

    For callers that hold pieces by square rather than the engine's square
    codes (the camera reader, the simulated table), so that OTN is written in
    one place only.
    """
    cells = [EMPTY] * (size * size)
    for sq, piece in pieces.items():
        if not 0 <= sq < size * size:
            raise ValueError(f"square index {sq} is off a {size}x{size} board")
        try:
            cells[sq] = CODE_OF_PIECE[Piece(piece)]
        except ValueError:
            raise ValueError(f"unknown piece {piece!r} on square {square_name(sq, size)} "
                             f"(use t, T or K)") from None
    return format_position(cells, size)


def pieces_from_position(text: str, size: int) -> dict[int, Piece]:
    """Square index -> Piece of an OTN position, empty squares left out (same checks as parse_position)."""
    return {sq: p for sq, code in enumerate(parse_position(text, size))
            if code != EMPTY and (p := PIECE_OF_CODE[code]) is not None}


def build_position(size: int, attackers: str = "", defenders: str = "", king: str = "") -> str:
    """An OTN position from space-separated square names: `build_position(11, "a1 b2", "c3", "f6")`.

    Keeps layouts and test positions readable as squares rather than run-length text.
    """
    cells = [EMPTY] * (size * size)
    for names, code in ((attackers, ATT), (defenders, DEF), (king, KING)):
        for name in names.split():
            sq = parse_square(name, size)
            if cells[sq]:
                raise ValueError(f"square {name} is given twice")
            cells[sq] = code
    return format_position(cells, size)


def parse_move_text(text: str, size: int) -> tuple[int, int, tuple[int, ...]]:
    """`e5-e8xe9` -> (from, to, captures as written, duplicates dropped, order kept)."""
    t = text.strip()
    m = _MOVE_RE.fullmatch(t) if len(t) <= 200 else None
    if not m:
        raise ValueError(f"malformed move {quote(text)} (expected like e5-e8 or e5-e8xe9xf8)")
    frm = parse_square(m.group(1), size)
    to = parse_square(m.group(2), size)
    caps: list[int] = []
    for name in re.findall(_SQUARE, m.group(3)):
        sq = parse_square(name, size)
        if sq not in caps:
            caps.append(sq)
    return frm, to, tuple(caps)


def format_move(frm: int, to: int, captures: tuple[int, ...] | list[int], size: int) -> str:
    """`e5-e8xe9xf8`: captures in the order given."""
    text = f"{square_name(frm, size)}-{square_name(to, size)}"
    return text + "".join("x" + square_name(c, size) for c in captures)


__all__ = ["parse_position", "quote", "MIN_SIZE", "MAX_SIZE", "format_position", "position_from_pieces", "pieces_from_position",
           "build_position", "parse_move_text", "format_move", "FILES"]
