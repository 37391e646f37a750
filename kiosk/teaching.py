"""Teaching the visitor: why the robot moved as it did, and a hint on request.

The reasons come from the engine (engine/reasons.py), as codes with squares;
this module keeps the robot's last reasons and the visitor's hint for the
game controller, counts the hints against the level's allowance
(``hints`` of each level in calibration/config.py, -1 = as many as wanted),
and turns reasons into one or two short sentences in the visitor's language
(the ``teach`` section of kiosk/i18n).

WHY the hint goes to the search process: a hint is a search at the game's
level (seconds on Hard), and the pygame loop must never wait for it. The
robot's own reasons are cheap (a few milliseconds, measured over the
attract-mode game: 2 ms on average, 9 ms at most), about what the
announcements after a move already cost, so they are worked out when the
robot's move is played.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Board, Move, square_name
from engine.reasons import Explained, Reason, explain

log = logging.getLogger("kiosk.teaching")

#: a level without a ``hints`` field in the config gets this many (-1: unlimited)
UNLIMITED = -1
#: at most this many reasons go into one sentence
SENTENCE_REASONS = 2


@dataclass(frozen=True)
class Hint:
    """A suggested move for the visitor, with its reasons; valid at ply `ply` only."""

    move: Move
    move_text: str                      # OTN with captures
    reasons: tuple[Reason, ...]
    ply: int


@dataclass(frozen=True)
class TeachingView:
    """What the screens show of the teaching (part of the controller's view)."""

    robot_reasons: tuple[Reason, ...] = ()
    robot_ply: int = -1                 # the ply after the robot's move the reasons belong to
    hint: Hint | None = None
    hint_pending: bool = False
    hints_left: int | None = None       # None: as many as wanted
    hints_offered: bool = False         # the engine port can give hints at all


@dataclass
class Teacher:
    """The teaching state of one game. `limits`: level -> hints per game (-1 unlimited)."""

    limits: Mapping[str, int]
    level: str | None = None
    robot_reasons: tuple[Reason, ...] = ()
    robot_ply: int = -1
    hint: Hint | None = None
    hints_used: list[dict[str, Any]] = field(default_factory=list)   # for the game log
    _pending: int | None = None         # id of the hint asked for, until it arrives
    _pending_ply: int = -1
    _next_id: int = 0

    @classmethod
    def from_config(cls, config: Any) -> "Teacher":
        levels = config.engine.levels
        return cls({name: int(level.hints) for name, level in levels.items()})

    def new_game(self, level: str) -> None:
        self.level = level
        self.robot_reasons, self.robot_ply, self.hint = (), -1, None
        self.hints_used = []
        self._pending = None

    # ---- the robot's move
    def robot_moved(self, board_before: Board, move: Move) -> None:
        """Note why the robot plays `move` (board_before: the position before it, not changed)."""
        try:
            self.robot_reasons = explain(board_before, move)
        except ValueError:          # never for the controller's own legal move; decoration only
            log.exception("no reasons for the robot's move")
            self.robot_reasons = ()
        self.robot_ply = board_before.ply + 1

    # ---- hints
    def hints_left(self) -> int | None:
        limit = self.limits.get(self.level or "", UNLIMITED)
        if limit < 0:
            return None
        return max(0, limit - len(self.hints_used))

    def request_hint(self, engine: Any, board: Board, variant: str, options: dict[str, str],
                     moves_otn: list[str]) -> bool:
        """Ask the search process for a hint for the side to move; False if none may be given now."""
        left = self.hints_left()
        if not engine.offers_hints() or self.level is None or (left is not None and left <= 0):
            return False
        if self._pending is not None and self._pending_ply == board.ply:
            return True             # already on its way
        if self.hint is not None and self.hint.ply == board.ply:
            return True             # already showing
        self._next_id += 1
        self._pending, self._pending_ply = self._next_id, board.ply
        engine.request_hint(self._next_id, variant, dict(options), list(moves_otn), self.level)
        return True

    def poll(self, engine: Any, board: Board | None) -> None:
        """Take an arrived hint; forget a hint the game has moved past. Never blocks."""
        ply = board.ply if board is not None else -1
        if self.hint is not None and self.hint.ply != ply:
            self.hint = None
        if self._pending is None:
            return
        if self._pending_ply != ply:
            self._pending = None      # the visitor moved meanwhile; a late answer is dropped below
        reply = engine.poll_hint()
        if reply is None or reply.hint_id != self._pending or board is None:
            return
        self._pending = None
        if reply.error is not None or reply.explained is None:
            log.warning("no hint: %s", reply.error)
            return
        self.accept(board, reply.explained)

    def accept(self, board: Board, explained: Explained) -> None:
        """Show `explained` as the hint for the position on `board`, and count it."""
        move = board.parse_move(explained.move)
        self.hint = Hint(move, explained.move, explained.reasons, board.ply)
        self.hints_used.append({"ply": board.ply, "move": explained.move})

    def view(self, engine: Any = None, board: Board | None = None) -> TeachingView:
        """The teaching for the position on `board` (a hint for an earlier position is left out)."""
        ply = board.ply if board is not None else -1
        hint = self.hint if self.hint is not None and self.hint.ply == ply else None
        pending = self._pending is not None and self._pending_ply == ply
        return TeachingView(self.robot_reasons, self.robot_ply, hint, pending, self.hints_left(),
                            engine.offers_hints() if engine is not None else False)


# ---------------------------------------------------------------- sentences
def _squares_text(texts: Any, names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return texts.get("teach.list", first=", ".join(names[:-1]), last=names[-1])


def reason_sentence(texts: Any, voice: str, reason: Reason, size: int) -> str:
    """One sentence for `reason` in `voice` ("robot": the robot speaks; "hint": to the visitor).

    `texts` is a kiosk.i18n.Texts. A code with one square may have its own
    wording (``<code>_one``); counts up to a few are written as words
    (``teach.count.N``), larger ones as digits.
    """
    names = [square_name(s, size) for s in reason.squares]
    key = f"teach.{voice}.{reason.code}"
    if len(names) == 1 and texts.has(key + "_one"):
        key += "_one"
    count = str(len(names))
    count_text = texts.get(f"teach.count.{count}") if texts.has(f"teach.count.{count}") else count
    return texts.get(key, square=names[0] if names else "", squares=_squares_text(texts, names),
                     count=count_text)


def chosen_reasons(reasons: Sequence[Reason], limit: int = SENTENCE_REASONS) -> list[Reason]:
    """The reasons worth saying: the first `limit`, `develops` only when it is the only one."""
    return [r for r in reasons if r.code != "develops"][:limit] or list(reasons[:1])


def reasons_text(texts: Any, voice: str, reasons: Sequence[Reason], size: int,
                 limit: int = SENTENCE_REASONS) -> str:
    """The chosen reasons as one or two short sentences."""
    return " ".join(reason_sentence(texts, voice, r, size) for r in chosen_reasons(reasons, limit))


def highlighted_squares(reasons: Sequence[Reason], limit: int = SENTENCE_REASONS) -> list[int]:
    """The squares the sentences talk about, to mark on the board."""
    out: list[int] = []
    for reason in chosen_reasons(reasons, limit):
        out += [s for s in reason.squares if s not in out]
    return out
