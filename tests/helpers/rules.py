"""Small helpers shared by the per-variant rule tests: set up, play and ask in OTN words."""
from __future__ import annotations

from collections.abc import Callable

from engine import Board, Move, parse_square, square_name
from engine.otn import build_position


def position_maker(variant: str, size: int, king: str) -> Callable[..., Board]:
    """`pos(t="a1 b2", T="...", K=king, turn="attackers", **options)` for one variant."""
    def pos(t: str = "", T: str = "", K: str = king, turn: str = "attackers", **options: str) -> Board:
        return Board.from_otn(variant, build_position(size, t, T, K), turn=turn, options=options)
    return pos


def _move(b: Board, text: str) -> Move:
    f, t = text.split("-")
    return Move(parse_square(f, b.size), parse_square(t, b.size))


def play(b: Board, text: str) -> list[str]:
    """Plays a move given as `e5-e8` and returns the captured squares' names, sorted."""
    return sorted(square_name(c, b.size) for c in b.push(b.parse_move(text)))


def legal(b: Board, text: str) -> bool:
    return b.is_legal(_move(b, text))


def why(b: Board, text: str) -> str | None:
    return b.why_illegal(_move(b, text))
