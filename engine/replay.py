"""Replaying a game written in OTN moves: every move checked, captures compared, end found.

Pure logic (no files): the CLI reads the text, tests feed the 1,752 recorded
games. A record may go on after the game is already over (players on
aagenielsen.dk sometimes did); by default that is an error at the first move
after the end, with `continue_past_end=True` the replay plays on, keeps the
first end as the outcome and counts the moves after it.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .board import Board
from .otn import format_move, parse_move_text
from .types import Outcome, Side

_SKIP = re.compile(r"^(\d+\.+|\d+-\d+|1/2-1/2|\*)$")
# Words a record may end with instead of a move: the side to move lost on time / gave up.
STOP_WORDS = ("timeout", "resigned", "resign")


class ReplayError(ValueError):
    """An illegal or malformed move; `ply` is 1-based, `reason` one line."""

    def __init__(self, ply: int, text: str, reason: str, *, malformed: bool = False) -> None:
        super().__init__(f"ply {ply} ({text if len(text) <= 40 else text[:40] + '...'}): {reason}")
        self.malformed = malformed     # bad notation (exit 2) rather than an illegal move (exit 1)
        self.ply = ply
        self.text = text
        self.reason = reason


@dataclass
class ReplayResult:
    board: Board
    plies: int
    captured_by: dict[Side, int]                 # pieces each side captured
    outcome: Outcome | None                      # the first end reached
    ended_at_ply: int | None = None
    moves_after_end: int = 0
    stopped_by: str | None = None                # "timeout" / "resigned": who was to move stopped
    notes: list[str] = field(default_factory=list)


def tokenize(text: str) -> list[str]:
    """Move tokens from a game text: whitespace separated; move numbers, results, `[tags]`,
    `#` and `;` comments are skipped."""
    tokens: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if not line or line.startswith("["):
            continue
        for tok in line.replace(",", " ").split():
            if _SKIP.match(tok):
                continue
            tokens.append(tok)
    return tokens


def replay(variant: str, moves: list[str], options: Mapping[str, object] | None = None, *,
           position: str | None = None, turn: Side | str | None = None,
           continue_past_end: bool = False) -> ReplayResult:
    """Plays `moves` (OTN texts) from the start or `position`; raises ReplayError on the first bad one."""
    board = Board(variant, options, position=position, turn=turn)
    size = board.size
    captured = {Side.ATTACKERS: 0, Side.DEFENDERS: 0}
    result = ReplayResult(board, 0, captured, board.game_end)
    for ply, text in enumerate(moves, start=1):
        if text.lower() in STOP_WORDS:
            if ply != len(moves):
                raise ReplayError(ply, text, f"{text!r} must be the last word of the record",
                                  malformed=True)
            result.stopped_by = text.lower()
            result.notes.append(f"{board.turn.value} {text.lower()} at ply {ply}")
            break
        try:
            frm, to, written = parse_move_text(text, size)
        except ValueError as exc:
            raise ReplayError(ply, text, str(exc), malformed=True) from None
        if board.game_end is not None or (result.outcome is None and board.outcome() is not None):
            end = board.outcome()
            assert end is not None    # game_end is set only with an outcome
            if result.outcome is None:
                result.outcome, result.ended_at_ply = end, ply - 1
            if not continue_past_end:
                raise ReplayError(ply, text, f"the game is already over ({end.describe()})")
            board.resume()
        if result.outcome is not None:
            result.moves_after_end += 1
        move = board._t.moves[frm * board._t.n2 + to]
        why = board.why_illegal(move) if move is not None else "not along a rank or file"
        if why is not None:
            raise ReplayError(ply, text, why)
        mover = board.turn
        caps = board.push_unchecked(move)
        actual = set(caps)
        shown = set(written)
        king_gone = board.king_square is None
        # A record may leave out the captured king (the aagenielsen.dk files do).
        comparable = {c for c in actual if not (king_gone and c == _king_square_before(board))}
        if written and not (shown <= actual and comparable <= shown) or not written and comparable:
            board.pop()
            want = format_move(frm, to, tuple(sorted(actual)), size)
            raise ReplayError(ply, text, f"captures differ: the move here is {want}")
        for c in caps:
            # A Throw Board piece dying on arrival is a capture for the other side.
            captured[mover.other if c == move.to_sq else mover] += 1
        result.plies = ply
    if result.outcome is None:
        result.outcome = board.outcome()
        if result.outcome is not None:
            result.ended_at_ply = result.plies
    return result


def _king_square_before(board: Board) -> int:
    """Where the king stood before the last move captured him."""
    _move, _p, caps, *_ = board._stack[-1]
    for sq, code in caps:
        if code == 3:
            return sq
    return -1


def summary_lines(result: ReplayResult) -> list[str]:
    """The CLI's report: final position, captures per side, outcome, end ply."""
    b = result.board
    lines = [
        f"position: {b.position_otn()}",
        f"turn: {b.turn.value}",
        f"plies: {result.plies}",
        f"captured by attackers: {result.captured_by[Side.ATTACKERS]}",
        f"captured by defenders: {result.captured_by[Side.DEFENDERS]}",
    ]
    for note in result.notes:
        lines.append(f"note: {note}")
    if result.outcome is None:
        lines.append("outcome: none (game goes on)")
    else:
        lines.append(f"outcome: {result.outcome.describe()} after ply {result.ended_at_ply}")
        if result.moves_after_end:
            lines.append(f"moves after the end: {result.moves_after_end}")
    return lines


__all__ = ["replay", "tokenize", "ReplayError", "ReplayResult", "summary_lines"]
