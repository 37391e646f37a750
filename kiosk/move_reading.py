"""What did the visitor do? Compare a stable camera reading with the expected board.

WHY here and not only in vision: vision scores the legal moves against the
squares; the controller also has to explain what is wrong when no legal move
fits (which piece went where it may not, which squares to put back), and it
has to accept a captured piece that the visitor left standing (the robot
parks it later).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine import Board, Move, Piece, square_name

from kiosk.reconcile import diff_squares


@dataclass(frozen=True)
class VisitorReading:
    """kind: 'none' (nothing changed), 'move', 'illegal', 'mismatch'."""

    kind: str
    move: Move | None = None
    captures: tuple[int, ...] = ()
    left_on_board: tuple[int, ...] = ()      # captured squares the visitor did not clear
    fix: dict[int, Piece | None] = field(default_factory=dict)
    message: str | None = None
    message_args: dict[str, str] = field(default_factory=dict)


def read_visitor_move(board: Board, observed: dict[int, Piece],
                      leftovers: dict[int, Piece] | None = None) -> VisitorReading:
    """Match `observed` against the legal moves of `board` (the side to move is the visitor).

    `leftovers` are pieces captured earlier that still stand on the board;
    they may be there or gone.
    """
    leftovers = leftovers or {}
    expected = board.pieces()
    relevant = {sq: p for sq, p in observed.items() if not (sq in leftovers and leftovers[sq] == p)}
    changed = diff_squares(relevant, expected)
    if not changed:
        return VisitorReading("none")
    size = board.size
    for move in board.legal_moves:
        if move.from_sq not in changed:   # (to_sq may look unchanged: a mover that died there)
            continue
        captures = tuple(board.captures_of(move))
        after = dict(expected)
        after[move.to_sq] = after.pop(move.from_sq)
        left = []
        ok = True
        for sq in set(after) | set(relevant):
            want, got = after.get(sq), relevant.get(sq)
            if sq in captures:
                if got is None:
                    continue
                if got == after.get(sq):      # (the mover itself, if stopping there killed it)
                    left.append(sq)
                    continue
                ok = False
                break
            if want != got:
                ok = False
                break
        if ok:
            return VisitorReading("move", move, captures, tuple(sorted(left)))

    fix = diff_squares(relevant, expected)
    vanished = [sq for sq in fix if expected.get(sq) is not None and relevant.get(sq) is None]
    appeared = [sq for sq in fix if relevant.get(sq) is not None and expected.get(sq) is None]
    if len(fix) == 2 and len(vanished) == 1 and len(appeared) == 1 \
            and expected[vanished[0]] == relevant[appeared[0]]:
        src, dst = vanished[0], appeared[0]
        reason = explain_illegal(board, src, dst)
        return VisitorReading("illegal", Move(src, dst), fix=fix, message=f"illegal_move.{reason}",
                              message_args={"from": square_name(src, size), "to": square_name(dst, size)})
    return VisitorReading("mismatch", fix=fix, message="fix_board.mismatch",
                          message_args={"count": str(len(fix))})


def explain_illegal(board: Board, src: int, dst: int) -> str:
    """One word for why sliding src -> dst is not allowed: the i18n key's last part."""
    piece = board.piece_at(src)
    if piece is None:
        return "rule"
    if piece.side != board.turn:
        return "not_your_piece"
    size = board.size
    (r0, f0), (r1, f1) = divmod(src, size), divmod(dst, size)
    if r0 != r1 and f0 != f1:
        return "not_straight"
    step = (1 if f1 > f0 else -1 if f1 < f0 else 0) + size * (1 if r1 > r0 else -1 if r1 < r0 else 0)
    sq = src + step
    while sq != dst:
        if board.piece_at(sq) is not None:
            return "blocked"
        sq += step
    if any(m.from_sq == src for m in board.legal_moves):
        return "restricted_square"
    return "rule"
