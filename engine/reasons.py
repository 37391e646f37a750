"""Why a move is good, as data: reason codes with the squares they concern.

The kiosk turns these into a sentence after each robot move ("I blocked
your king's way to a1.") and shows one with a hint; `tafl-engine explain` and
`tafl-engine hint` print them as JSON. Every reason is read off the rules
engine (Board.push, outcome, announcements, escape_routes,
king_capture_threats, captures_of), never guessed, so a reason is always true
in the position. Pure: no I/O.

The codes, most important first (the order `explain` lists them in):

==========================  ===================================================  ==========================
code                        when                                                 squares
==========================  ===================================================  ==========================
``king_captured``           the move captures the king                           the king's square
``escape``                  the king reaches an escape square                    that square
``edge_fort``               the move wins by an edge fort                        the king's square
``encircles``               the move wins by encircling every defender          the mover's square
``double_escape_threat``    afterwards the king has two or more free paths       the escape squares
                            to escape squares, at least one new (tuichu)
``blocks_escape``           the move closes a free path of the king to an        the escape squares closed
                            escape square
``defends_king``            the attackers could capture the king next move       the squares they could
                            before it, and cannot after it                       have used
``shieldwall``              the move captures a shieldwall                       the captured squares
``captures``                the move captures enemy pieces (the king apart)      the captured squares
``threatens_king``          afterwards the attackers can capture the king next   the squares an attacker
                            move, and could not before                           would move to
``threatens_escape``        afterwards the king has exactly one free path, new   the escape square
                            (raichi)
``threatens_capture``       afterwards the mover's side can capture an enemy     the threatened pieces
                            piece next move that it could not before
``saves_piece``             a piece of the mover's side that could be captured   where the saved pieces
                            next move can no longer be                           stand
``develops``                none of the others                                   the mover's square
==========================  ===================================================  ==========================
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .board import Board
from .levels import Level, get_level
from .types import Move, Piece, Side, square_name

#: every code, in the order of importance `explain` sorts by
CODES: tuple[str, ...] = (
    "king_captured", "escape", "edge_fort", "encircles",
    "double_escape_threat", "blocks_escape", "defends_king",
    "shieldwall", "captures",
    "threatens_king", "threatens_escape", "threatens_capture", "saves_piece",
    "develops",
)
_WINS = {"king_captured": "king_captured", "king_escaped": "escape", "edge_fort": "edge_fort",
         "encirclement": "encircles"}


@dataclass(frozen=True)
class Reason:
    """One reason: a code of CODES and the squares (board ints) it concerns."""

    code: str
    squares: tuple[int, ...] = ()

    def to_json(self, size: int) -> dict[str, Any]:
        return {"code": self.code, "squares": [square_name(s, size) for s in self.squares]}


@dataclass(frozen=True)
class Explained:
    """A move (OTN with its captures) and its reasons, most important first."""

    move: str
    reasons: tuple[Reason, ...]

    def to_json(self, size: int) -> dict[str, Any]:
        return {"move": self.move, "reasons": [r.to_json(size) for r in self.reasons]}


def capture_targets(board: Board, side: Side) -> set[int]:
    """Squares of enemy pieces `side` could capture with one move here (king included).

    When the other side is to move, the board passes once (push_null) so
    `side` can be asked; the board is left as it was.
    """
    passed = board.turn != side
    if passed:
        if board.game_end is not None:
            return set()
        board.push_null()
    try:
        out: set[int] = set()
        for move in board.generate_moves():
            out.update(c for c in board.captures_of(move) if c != move.to_sq)
        return out
    finally:
        if passed:
            board.pop_null()


def _threat_squares(board: Board) -> set[int]:
    return {m.to_sq for m in board.king_capture_threats()}


def explain(board: Board, move: Move) -> tuple[Reason, ...]:
    """Why `move` (legal, by the side to move) is good here; the board is left unchanged.

    Raises ValueError for an illegal move.
    """
    why = board.why_illegal(move)
    if why is not None:
        raise ValueError(f"illegal move {move.otn(board.size)}: {why}")
    me = board.turn
    enemy = me.other
    found: dict[str, tuple[int, ...]] = {}
    routes_before = set(board.escape_routes())
    threats_before = _threat_squares(board)
    targets_before = capture_targets(board, me)
    mine_threatened = capture_targets(board, enemy)
    king_before = board.king_square
    after = board.copy()
    after.push(move)
    taken = {a.squares for a in after.announcements() if a.kind == "capture" and a.side == me}
    captured = sorted({s for squares in taken for s in squares})
    walls = [a.squares for a in after.announcements() if a.kind == "shieldwall"]
    outcome = after.outcome()
    if outcome is not None and outcome.winner == me and outcome.reason in _WINS:
        code = _WINS[outcome.reason]
        square = {"king_captured": king_before, "escape": move.to_sq,
                  "edge_fort": after.king_square, "encircles": move.to_sq}[code]
        found[code] = (square,) if square is not None else ()
    if walls:
        found["shieldwall"] = tuple(sorted(walls[0]))
    pieces = tuple(s for s in captured if s != king_before)
    if pieces:
        found["captures"] = pieces
    if outcome is None:
        routes_after = set(after.escape_routes())
        if me == Side.ATTACKERS:
            closed = routes_before - routes_after
            if closed:
                found["blocks_escape"] = tuple(sorted(closed))
            threats_after = _threat_squares(after)
            if threats_after and not threats_after <= threats_before:
                found["threatens_king"] = tuple(sorted(threats_after))
        else:
            if routes_after - routes_before:
                code = "double_escape_threat" if len(routes_after) >= 2 else "threatens_escape"
                found[code] = tuple(sorted(routes_after))
            if threats_before and not _threat_squares(after):
                found["defends_king"] = tuple(sorted(threats_before))
        king = after.king_square
        new_targets = capture_targets(after, me) - targets_before - {king}
        if new_targets:
            found["threatens_capture"] = tuple(sorted(new_targets))
        still = capture_targets(after, enemy)
        moved = {move.from_sq: move.to_sq}
        saved = set()
        for sq in mine_threatened:
            now = moved.get(sq, sq)
            piece = after.piece_at(now)
            if piece is not None and piece != Piece.KING and piece.side == me and now not in still:
                saved.add(now)
        if saved:
            found["saves_piece"] = tuple(sorted(saved))
    if not found:
        found["develops"] = (move.to_sq,)
    return tuple(Reason(code, found[code]) for code in CODES if code in found)


def explain_text(board: Board, text: str) -> Explained:
    """`explain` for a move written in OTN ("e5-e8"); ValueError for a malformed or illegal one."""
    move = board.parse_move(text)
    return Explained(board.move_to_otn(move), explain(board, move))


# A hint looks at least this many plies ahead, whatever the level: Easy's one
# ply sees its own move only, and its hint walked a defender between two
# attackers to threaten a capture (York, b6-c6 e7-e9 d1-c1: f7-b7, taken at
# once by c6-c7); a hint that loses the piece it moves teaches nothing.
HINT_MIN_DEPTH = 2


def hint_level(level: Level | str) -> Level:
    """The level a hint searches at: the level's time, without its noise, at least HINT_MIN_DEPTH deep.

    A hint shows the best move the level can see, seeing at least the
    opponent's reply; the noise that makes the robot's play varied would only
    make a hint worse.
    """
    lvl = get_level(level) if isinstance(level, str) else level
    return replace(lvl, noise=0.0, max_depth=max(lvl.max_depth, HINT_MIN_DEPTH))


def hint(board: Board, level: Level | str = "medium", *, seed: int = 0, time_s: float | None = None,
         tt: dict | None = None, clock: Callable[[], float] | None = None) -> Explained:
    """The best move for the side to move at `level` (engine/search.py), with its reasons.

    `tt` and `clock` are the search's (a transposition table kept between
    searches; a clock that can cut the search short). Raises ValueError when
    the game is over.
    """
    from .search import search_board

    if (end := board.outcome()) is not None:
        raise ValueError(f"the game is over ({end.describe()}): no move to suggest")
    extra: dict[str, Any] = {"clock": clock} if clock is not None else {}
    result = search_board(board, hint_level(level), seed=seed, time_s=time_s, tt=tt, **extra)
    if result.move is None:
        raise ValueError("no move to suggest")
    return Explained(result.move_text, explain(board, result.move))
