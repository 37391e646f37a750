"""The game being played: its settings, its board, its history, and its rebuild from the journal.

WHY its own part: the journal (kiosk/journal.py) is the game's memory across
a power cut. Writing it, reading it back and turning it into "where were we?"
(`replay`) belong together and apart from the robot and the camera; the
controller only asks for a `ResumePoint` and goes on from there.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from engine import Board, Move, Outcome, Piece, Side

from kiosk.journal import Journal, Record
from kiosk.match import Match
from kiosk.ports import Transfer
from kiosk.states import EndReason, State

if TYPE_CHECKING:
    from kiosk.gamelog import GameRecord

log = logging.getLogger("kiosk.session")

#: who plays: a visitor against the robot, the robot against itself (attract), two visitors (referee)
GAME_MODES = ("visitor", "selfplay", "referee")


@dataclass
class GameSession:
    """One game: what the visitor chose, the board as played, captures still standing."""

    variant: str
    options: dict[str, str]
    visitor_side: Side
    level: str
    board: Board
    leftovers: dict[int, Piece] = field(default_factory=dict)   # captured, still standing
    hints: list[dict] = field(default_factory=list)              # the hints shown (journal "hint" records)
    last_move: Move | None = None
    last_captures: tuple[int, ...] = ()
    announcements: tuple[str, ...] = ()
    outcome: Outcome | None = None
    mode: str = "visitor"       # kiosk/exhibit.py: "visitor" (against the robot), "selfplay", "referee"

    @classmethod
    def new(cls, variant: str, options: dict[str, str], visitor_side: Side, level: str,
            mode: str = "visitor") -> "GameSession":
        if mode not in GAME_MODES:
            raise ValueError(f"game mode must be one of {', '.join(GAME_MODES)}, not {mode!r}")
        return cls(variant, dict(options), Side(visitor_side), level, Board(variant, options=dict(options)),
                   mode=mode)

    def visitor_to_move(self) -> bool:
        """Is a person to move now? Always in referee mode, never in self-play."""
        if self.mode != "visitor":
            return self.mode == "referee"
        return self.board.turn == self.visitor_side

    @property
    def robot_side(self) -> Side:
        return self.visitor_side.other

    def start_position(self) -> dict[int, Piece]:
        return Board(self.variant, options=self.options).pieces()

    def captured(self) -> dict[str, int]:
        """Pieces each side has captured so far (the view's score): the engine's count."""
        return {side.value: n for side, n in self.board.captured_counts().items()}

    def play(self, move: Move) -> tuple[int, ...]:
        captures = tuple(self.board.push(move))
        self.last_move, self.last_captures = move, captures
        try:
            self.announcements = tuple(a.kind for a in self.board.announcements())
        except Exception:   # noqa: BLE001 - announcements are decoration, never fatal
            self.announcements = ()
        return captures

    def captured_piece(self, sq: int) -> Piece:
        """What stood on `sq` before the last move captured it."""
        before = self.board.copy()
        move = before.pop()
        piece = before.piece_at(sq)
        if piece is None and sq == move.to_sq:      # the mover died where it stopped
            piece = before.piece_at(move.from_sq)
        assert piece is not None, f"nothing was captured on {sq}"
        return piece

    def before_last(self) -> dict[int, Piece]:
        before = self.board.copy()
        before.pop()
        return before.pieces()

    def moves_otn(self) -> list[str]:
        return [m.otn(self.board.size) for m in self.board.move_stack]

    def game_started_record(self) -> dict:
        return {"variant": self.variant, "options": dict(self.options),
                "visitor_side": self.visitor_side.value, "level": self.level, "mode": self.mode}


@dataclass
class ResumePoint:
    """Where a game stood when the journal stopped: the state to go back to and what is pending."""

    session: GameSession | None
    state: State
    robot_plan: list[Transfer] = field(default_factory=list)   # the interrupted robot move's plan
    robot_steps_done: int | None = None       # ... its carries journalled done (None: re-planned since, unknown)
    staff_setup: str | None = None                              # a staff set-up of this variant
    match: Match | None = None                                  # the York match the game belongs to


def replay(journal: Journal) -> ResumePoint:
    """Rebuild the game from the journal (the camera then decides how to go on)."""
    records = journal.records
    start = next((i for i in range(len(records) - 1, -1, -1) if records[i].kind == "game_started"), None)
    if start is None:
        staff = journal.last("staff_setup")
        if staff is not None and not journal.last("goal_reached"):
            return ResumePoint(None, State.SETUP, staff_setup=staff.get("variant"))
        return ResumePoint(None, State.IDLE)
    rec = records[start]
    mode = rec.get("mode") or "visitor"
    session = GameSession.new(rec.get("variant"), dict(rec.get("options") or {}),
                              Side(rec.get("visitor_side")), rec.get("level"),
                              mode=mode if mode in GAME_MODES else "visitor")
    pending_robot: Record | None = None
    steps_done: int | None = None     # the pending robot move's carries done, as its first job reported them
    first_job: object = None
    setup_done = finished = clearing = paused = False
    match = Match.from_json(rec.get("match")) if rec.get("match") is not None else None
    for r in records[start:]:
        if r.kind == "setup_done":
            setup_done = True
        elif r.kind == "visitor_move":
            session.play(session.board.parse_move(r.get("move").split("x")[0]))
            session.leftovers = {sq: session.captured_piece(sq) for sq in r.get("left") or []}
        elif r.kind == "robot_move":
            session.play(session.board.parse_move(r.get("move").split("x")[0]))
            pending_robot, steps_done, first_job = r, 0, None
        elif r.kind == "transfer_done" and pending_robot is not None and steps_done is not None:
            first_job = r.get("job") if first_job is None else first_job
            if r.get("job") == first_job:
                steps_done = max(steps_done, int(r.get("step") or 0) + 1)
        elif r.kind == "plan" and pending_robot is not None:
            steps_done = None               # another plan ran since: which of the first one's carries is unknown
        elif r.kind == "referee_park":          # kiosk/exhibit.py: the referee parks captures
            pending_robot, steps_done, first_job = r, 0, None
        elif r.kind == "take_over":             # kiosk/exhibit.py: a visitor took a self-play game over
            while len(session.board.move_stack) > int(r.get("plies") or 0):
                session.board.pop()
            session.mode, session.visitor_side = "visitor", Side(r.get("visitor_side"))
            session.leftovers = {int(sq): Piece(p) for sq, p in (r.get("left") or {}).items()}
            pending_robot = None
        elif r.kind == "robot_move_done":
            pending_robot = None
            session.leftovers = {}
        elif r.kind == "game_over":
            finished = True
            if r.get("match") is not None:
                match = Match.from_json(r.get("match"))     # scored with this game
            winner = r.get("winner")
            session.outcome = Outcome(Side(winner) if winner else None, r.get("reason") or "")
        elif r.kind == "clearing":
            clearing = True
        elif r.kind == "hint":
            session.hints.append({"ply": r.get("ply"), "move": r.get("move")})
        elif r.kind == "paused":
            paused = True
        elif r.kind == "continued":
            paused = False
    if clearing:
        return ResumePoint(session, State.CLEARING, match=match)
    if session.mode == "selfplay" and not finished:
        # nobody's game: after a restart the board goes back to its start position
        session.outcome = Outcome(None, EndReason.ENDED.value)
        return ResumePoint(session, State.GAME_OVER, match=match)
    if finished:
        return ResumePoint(session, State.GAME_OVER, match=match)
    if not setup_done:
        return ResumePoint(session, State.SETUP, match=match)
    if pending_robot is not None:
        session.leftovers = {}
        return ResumePoint(session, State.VERIFY,
                           [Transfer.from_json(t) for t in pending_robot.get("plan") or []], steps_done, match=match)
    if session.board.turn == session.visitor_side:
        return ResumePoint(session, State.PAUSED if paused else State.VISITOR_TURN, match=match)
    return ResumePoint(session, State.THINKING, match=match)


def result_of(session: GameSession) -> str:
    """The game log's result from the visitor's point of view."""
    outcome = session.outcome
    assert outcome is not None
    if outcome.winner is None:
        return "abandoned" if outcome.reason in (EndReason.ENDED.value, EndReason.ABANDONED.value,
                                                 "idle timeout") else "draw"
    if session.mode == "referee":
        return "visitor"                # two visitors: one of them won (the log's winner says which)
    return "visitor" if outcome.winner == session.visitor_side else "robot"


def write_gamelog(journal: Journal, session: GameSession, language: str,
                  hints: Sequence[dict[str, Any]] = (), move_times_s: Sequence[float] = ()) -> GameRecord | None:
    """The museum's record of the finished game (kiosk/gamelog.py), next to the journal; returns it.
    A self-play game is nobody's game: it is not logged (None)."""
    outcome = session.outcome
    if outcome is None or session.mode == "selfplay":
        return None
    try:
        from kiosk.gamelog import append_game, record_from_board

        started = journal.last("game_started")
        started_at = datetime.fromtimestamp(started.t if started else time.time(), timezone.utc)
        record = record_from_board(session.board, visitor_side=session.visitor_side, level=session.level,
                                   result=result_of(session), reason=outcome.reason, started_at=started_at,
                                   winner=outcome.winner, language=language, hints=hints,
                                   move_times_s=move_times_s,
                                   extra={"mode": session.mode} if session.mode != "visitor" else None)
        append_game(journal.state_dir, record)
    except Exception:   # the statistics must never stop a game
        log.exception("could not write the game log")
        return None
    return record
