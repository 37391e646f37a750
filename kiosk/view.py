"""The controller's snapshot for the screens: an immutable record, drawn once per frame.

WHY a snapshot: the screens run on the pygame loop and must never see a game
half-way through a change; they read this record and send commands, nothing
else (docs/architecture.md). Words are never in it: states, codes and
arguments, which the UI turns into the visitor's language.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine import Board, Move, Outcome, Piece, Side

from kiosk.teaching import TeachingView
from kiosk.activity import IDLE_ACTIVITY, RobotActivity
from kiosk.exhibit import ExhibitView
from kiosk.states import Purpose, State

if TYPE_CHECKING:
    from kiosk.controller import GameController
    from kiosk.match import Match


@dataclass(frozen=True)
class ControllerView:
    state: State
    variant: str | None
    board: Board | None
    visitor_side: Side | None
    level: str | None
    last_move: Move | None
    last_captures: tuple[int, ...]
    announcements: tuple[str, ...]
    robot_activity: RobotActivity
    progress: float
    fix_squares: dict[int, Piece | None]
    message: str | None
    message_args: dict[str, str]
    outcome: Outcome | None
    camera_ok: bool
    camera_reason: str | None
    captured: dict[str, int]
    # additions beyond the architecture's list
    ply: int = 0
    robot_side: Side | None = None
    resumed: bool = False
    thinking_since: float | None = None
    #: a move the camera sees but has not confirmed yet (board still settling): shown as "checking"
    checking_move: Move | None = None
    #: the robot resets the board for the next game while the result shows (0..1)
    resetting: bool = False
    #: attendance on the visitor's turn: None, "warn" (still there?) or "paused"
    attendance: str | None = None
    #: a non-blocking notice that staff have been called (kiosk/staff_ops.py), with its reason code
    staff_notice: str | None = None
    #: pieces that are neither on the board nor in storage: captured pieces in the tray, lost ones
    missing: dict[str, int] = field(default_factory=dict)
    teaching: TeachingView = TeachingView()    # kiosk/teaching.py: the robot's reasons, the hint
    exhibit: ExhibitView = ExhibitView()       # kiosk/exhibit.py: self-play, the hand-over, the referee
    #: the York match of this visit (kiosk/match.py, kept and journalled by the controller), if any
    match: Match | None = None
    #: FIX_BOARD: the legal moves a doubtful reading may be, best first; the visitor touches theirs
    move_choices: tuple[Move, ...] = ()
    #: FIX_BOARD without choices: the legal moves the camera leaves, for the visitor to show on the screen
    moves_possible: tuple[Move, ...] = ()
    #: the camera has long refused an unchanged picture for glare alone: "are your hands off the board?"
    asks_hands_off: bool = False


def idle_view() -> ControllerView:
    """The view of a kiosk with no game (for screens drawn without a controller)."""
    return ControllerView(state=State.IDLE, variant=None, board=None, visitor_side=None, level=None,
                          last_move=None, last_captures=(), announcements=(), robot_activity=IDLE_ACTIVITY,
                          progress=0.0, fix_squares={}, message=None, message_args={}, outcome=None,
                          camera_ok=True, camera_reason=None, captured={"attackers": 0, "defenders": 0})


def build_view(c: "GameController") -> ControllerView:
    """The snapshot of controller `c` (kiosk/controller.py) for this frame."""
    s = c.session
    goal = c.jobs.goal
    board = s.board if s is not None else None
    return ControllerView(
        state=c.state if c.state != State.BOOT else State.IDLE,
        variant=s.variant if s is not None else c.variant,
        board=board.copy() if board is not None else None,
        visitor_side=s.visitor_side if s is not None else None, level=s.level if s is not None else None,
        last_move=s.last_move if s is not None else None,
        last_captures=s.last_captures if s is not None else (),
        announcements=s.announcements if s is not None else (),
        robot_activity=c.jobs.activity, progress=c.jobs.progress,
        fix_squares=dict(c.fix_squares), message=c.message, message_args=dict(c.message_args),
        outcome=s.outcome if s is not None else None,
        camera_ok=c.watch.camera_ok, camera_reason=c.watch.camera_reason,
        captured=s.captured() if s is not None else {"attackers": 0, "defenders": 0},
        ply=len(board.move_stack) if board is not None else 0,
        robot_side=s.robot_side if s is not None else None,
        resumed=c.resumed, thinking_since=c.turns.thinking_since,
        checking_move=c.turns.checking_move,
        resetting=goal is not None and goal.purpose == Purpose.RESET,
        attendance=c.attendance.code(c.state, c.clock(), c.watch.last_sign_of_life),
        staff_notice=c.notice,
        missing=c.jobs.missing(c.watch.latest(), c.current_variant()),
        teaching=c.teacher.view(c.engine, board), match=c.match,
        exhibit=c.exhibit.view(),
        move_choices=tuple(r.move for r in c.move_choices if r.move is not None),
        moves_possible=tuple(r.move for r in c.moves_possible if r.move is not None),
        asks_hands_off=c.watch.asks_hands_off)
