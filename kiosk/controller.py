"""The game controller: one explicit state machine for a whole museum day on the physical board.

WHY this shape: the pygame loop must never block, so the controller only
reacts to events (camera readings from the camera thread, replies from the
search process, progress and errors from the gantry thread) in `poll()`,
which the loop calls once a frame. The screens draw `view()` and call the
commands; they never touch hardware.

Its parts, each with one job:
- kiosk/session.py: the game (settings, board, history) and its rebuild from the journal;
- kiosk/match.py: the York match over several games (scored here, journalled with each game);
- kiosk/turns.py: the visitor's move read from the board, the robot's reply;
- kiosk/robot_jobs.py: goals for the squares, planned, carried out, checked; the robot's ledger;
- kiosk/board_watch.py: still camera readings and signs of life;
- kiosk/attendance.py: is anybody there, and when to call staff;
- kiosk/staff_ops.py: staff commands; kiosk/view.py: the screens' snapshot.
- kiosk/exhibit.py: the game's mode (self-play in attract, two visitors with the robot as referee).

Every state change goes through `set_state` (checked against kiosk/states.py)
and is journalled (kiosk/journal.py) BEFORE it acts, so after a crash or a
power cut a new controller rebuilds the game from the journal, re-reads the
board with the camera and continues or asks for the board to be put right.
Nothing happens in the constructor: the first `poll()` (or command) starts.

Between two games the robot resets the board straight from the final
position to the next start position while the result shows (Purpose.RESET);
the next game's set-up is then a goal already reached.

Message keys (kiosk/i18n): illegal_move.{not_your_piece, not_straight, blocked,
restricted_square, rule}, fix_board.mismatch, fix_board.unclear, fix_board.which, fix_board.show,
fix_board.robot_result, place_piece.missed_pickup, place_piece.missing_pieces, place_piece.storage_full,
gantry.error, camera.waiting, resume.checking, capture.left_on_board.
"""
from __future__ import annotations

import logging
import time
from typing import Callable

from calibration.config import Config
from engine import Board, Outcome, Piece, Side

from vision.inference import MoveReading

from kiosk import damaged_resume
from kiosk.attendance import Attendance
from kiosk.board_names import board_name_for, installed_board_for
from kiosk.board_watch import BoardWatch
from kiosk.exhibit import Exhibit, move_times
from kiosk.journal import Journal, Record
from kiosk.match import Match, match_for_game
from kiosk.ports import CameraPort, EnginePort, GantryEventKind, GantryPort
from kiosk.robot_jobs import RETRY_OFFSETS_MM, RobotJobs, squares_json
from kiosk.record_signer import RecordSigner
from kiosk.session import GameSession, ResumePoint, replay, write_gamelog
from kiosk.staff_ops import StaffOps
from kiosk.states import EndReason, Phase, Purpose, State, check_transition
from kiosk.teaching import Teacher
from kiosk.turns import Turns
from kiosk.view import ControllerView, build_view

log = logging.getLogger("kiosk.controller")

#: the state a goal's plan runs in, once the robot can go on by itself
GOAL_STATES = {Purpose.SETUP: State.SETUP, Purpose.MOVE: State.ROBOT_MOVING, Purpose.RESET: State.GAME_OVER,
               Purpose.CLEAR: State.CLEARING, Purpose.RESTORE: State.ROBOT_MOVING}


class GameController:
    """See the module docstring. Construct it, then call `poll()` every frame."""

    def __init__(self, config: Config, camera: CameraPort, gantry: GantryPort, engine: EnginePort,
                 state_dir: str, *, clock: Callable[[], float] = time.monotonic,
                 stable_s: float | None = None, max_pickup_retries: int = len(RETRY_OFFSETS_MM),
                 on_game_over: Callable[[Board, Outcome], None] | None = None,
                 on_poll: Callable[[], object] | None = None,
                 on_state: Callable[[str], object] | None = None) -> None:
        self.config = config
        self.camera, self.gantry, self.engine = camera, gantry, engine
        self.clock = clock
        self.journal = Journal(state_dir)
        self.state_dir = state_dir
        self.on_game_over = on_game_over
        self.on_poll = on_poll          # e.g. the systemd watchdog's tick: alive while the loop runs
        self.on_state = on_state        # e.g. systemd STATUS=
        self.state = State.BOOT
        self.session: GameSession | None = None
        self.match: Match | None = None     # the York match of this visit (kiosk/match.py)
        self.board_name = config.board
        self.variant: str | None = None     # the variant on the board (a game's, or a staff set-up's)
        self.fix_squares: dict[int, Piece | None] = {}
        #: FIX_BOARD after a reading left in doubt between a few legal moves: the visitor may say which
        self.move_choices: tuple[MoveReading, ...] = ()
        #: ... or between more (or "nothing moved" likeliest): the visitor may show theirs on the screen
        self.moves_possible: tuple[MoveReading, ...] = ()
        self.message: str | None = None
        self.message_args: dict[str, str] = {}
        self.notice: str | None = None      # staff called (kiosk/staff_ops.py)
        self.resumed = False
        self.watch = BoardWatch(camera, config.camera.stable_s if stable_s is None else stable_s, clock)
        self.jobs = RobotJobs(self, config, gantry, self.watch, state_dir, clock, max_pickup_retries)
        self.turns = Turns(self)
        self.attendance = Attendance(config.kiosk)
        self.staff = StaffOps(self)
        self.teacher = Teacher.from_config(config)      # kiosk/teaching.py: reasons and hints
        self.exhibit = Exhibit(self)                    # kiosk/exhibit.py: self-play and referee
        # the exhibit's commands (kiosk/exhibit.py), offered on the controller as the screens know it
        self.set_attract, self.set_selfplay = self.exhibit.set_attract, self.exhibit.set_selfplay
        self.handover = self.exhibit.choose
        self._damage_check = False                      # resumed from a damaged journal: camera must agree
        self._paused_from = State.VERIFY
        # staff commands (kiosk/staff_ops.py), offered on the controller as the screens know it
        self.jog, self.test_move = self.staff.jog, self.staff.test_move
        self.calibration_step, self.camera_snapshot = self.staff.calibration_step, self.staff.camera_snapshot
        self.setup_board, self.pieces_back = self.staff.setup_board, self.staff.pieces_back
        self.recount_storage, self.calibration_status = self.staff.recount_storage, self.staff.calibration_status
        self.home = self.jobs.home      # staff: home the gantry (after a power cut or an alarm)
        # the take-home record of the game that just ended, and codes scanned back (kiosk/record_signer.py)
        self.records = RecordSigner(config, state_dir)
        self.take_home_url, self.restore_code = self.records.url, self.records.restore

    # ------------------------------------------------------------------ view
    def view(self) -> ControllerView:
        return build_view(self)

    # -------------------------------------------------------------- commands
    def start_game(self, variant: str, options: dict[str, str], visitor_side: Side, level: str,
                   match: str = "single", *, mode: str = "visitor") -> None:
        """A visitor starts a game: the robot sets the board up (or finishes resetting it), then
        whoever moves first plays. A paused game is ended without a winner first. `match`: a
        single game, a new York match ("five_point", "two_game"), or "next": the next game of
        the match under way (its side and variant are the match's). `mode` (kiosk/exhibit.py):
        "visitor" against the robot, "referee" two visitors, "selfplay"."""
        self.start()
        if self.state == State.PAUSED:
            self.finish(Outcome(None, EndReason.ABANDONED.value))
        if self.state not in (State.IDLE, State.GAME_OVER):
            raise RuntimeError(f"cannot start a game while {self.state.value}")
        if level not in self.config.engine.levels:
            raise ValueError(f"unknown level {level!r}; known: {', '.join(self.config.engine.levels)}")
        installed_board_for(self.config, variant)
        self.match = match_for_game(self.match, match, variant, visitor_side)
        if match == "next" and self.match is not None:
            variant, visitor_side = self.match.variant, self.match.visitor_side()
        session = GameSession.new(variant, options, visitor_side, level, mode=mode)
        if self.state == State.GAME_OVER:
            self.journal.archive(self.variant or "game")
        self.record("game_started", **session.game_started_record(),
                    **({"match": self.match.to_json()} if self.match is not None else {}))
        self.session = session
        self.teacher.new_game(level)
        self.exhibit.game_starting(mode)
        self._use_board(session.variant)
        self.set_state(State.SETUP)
        self.jobs.retarget(Purpose.SETUP, session.board.pieces(), self.turns.setup_done)

    def request_hint(self) -> bool:
        """The visitor asks for a hint (kiosk/teaching.py): the search process answers it and the
        view shows it. False when no hint can be given now (not the visitor's turn, none left)."""
        s = self.session
        if self.state != State.VISITOR_TURN or s is None:
            return False
        return self.teacher.request_hint(self.engine, s.board, s.variant, s.options, s.moves_otn())

    def choose_move(self, move_otn: str) -> bool:
        """The visitor touched the move they made, of those a doubtful reading left
        (`move_choices`, or shown on the screen's board: `moves_possible`; kiosk/turns.py).
        False when it is not one of them now."""
        return self.turns.choose(move_otn)

    def hands_off(self) -> None:
        """The visitor says no hand is over the board the camera has long refused for glare alone
        (the view's `asks_hands_off`): its still picture is read, and what it shows is checked as
        any reading is (kiosk/board_watch.py BoardWatch.hands_off)."""
        self.watch.hands_off()

    def resign(self) -> None:
        """The visitor gives up: the robot wins."""
        if self.session is None or self.state in (State.IDLE, State.GAME_OVER, State.CLEARING, State.BOOT):
            return
        self.engine.cancel()
        s = self.session          # two visitors (referee): the side to move gives up
        self.finish(Outcome(s.board.turn.other if s.mode == "referee" else s.robot_side, EndReason.RESIGNED.value))

    def end_game(self) -> None:
        """Stop the game without a winner (staff, or the visitor's End game); the robot resets."""
        self.start()
        if self.state in (State.IDLE, State.CLEARING, State.GAME_OVER) or self.session is None:
            return
        self.engine.cancel()
        self.finish(Outcome(None, EndReason.ENDED.value))

    def clear_board(self) -> None:
        """Park every piece in storage (staff; or after a game when no next game is wanted)."""
        self.start()
        if self.state not in (State.IDLE, State.GAME_OVER, State.PAUSED_ERROR):
            raise RuntimeError(f"cannot clear the board while {self.state.value}")
        self.record("clearing")
        self.set_state(State.CLEARING)
        self.jobs.retarget(Purpose.CLEAR, {}, self._cleared)

    def continue_game(self) -> None:
        """A visitor came back to a paused game (a touch, a hand over the board, a changed board)."""
        if self.state == State.PAUSED:
            self.record("continued")
            self.set_state(State.VISITOR_TURN)
            self.turns.ponder()

    def touched(self) -> None:
        """The screen was touched: somebody is there (attendance)."""
        self.attendance.touch(self.clock())
        self.exhibit.touched()                          # a self-play game stops for the visitor
        if self.state == State.PAUSED:
            self.continue_game()

    def stop(self) -> None:
        """Orderly shutdown of the controller's helpers (not used on a power cut)."""
        self.journal.close()

    # ----------------------------------------------------------------- poll
    def start(self) -> None:
        """Replay the journal (homing the gantry when a game was running); once, on the first
        poll or command."""
        if self.state != State.BOOT:
            return
        self.jobs.use_board(self.board_name)     # the ledger first: homing may sweep its pending step
        self._resume(replay(self.journal))

    def poll(self) -> None:
        """Handle everything that arrived since the last frame; never blocks."""
        self.start()
        if self.on_poll is not None:
            self.on_poll()
        self.watch.update()
        for event in self.gantry.poll():
            if event.kind == GantryEventKind.RAN and event.job == self.jobs._job:
                self.staff.on_ran(event.result)
            self.jobs.on_event(event)
        self.exhibit.poll()                              # self-play's stop and start, the referee's parking
        hints = len(self.teacher.hints_used)
        self.teacher.poll(self.engine, self.session.board if self.session is not None else None)
        for hint in self.teacher.hints_used[hints:]:
            self.record("hint", **hint)                  # a power cut keeps the count and the game log's list
        if self._damage_check:
            verdict = damaged_resume.camera_agrees(self)
            if verdict is None:
                return                                   # nothing else runs until the camera has looked
            self._damage_check = False
            if not verdict:
                return
        if self.state == State.THINKING and self.exhibit.may_reply():
            self.turns.poll_engine()
        if self.state == State.PAUSED_ERROR:
            self.jobs.retry_homing()
            return
        if self.jobs.waiting_for_camera:
            self.jobs.advance()
        if self.state in (State.VISITOR_TURN, State.FIX_BOARD) and self.jobs.goal is None:
            self.turns.watch_visitor()
        self.attendance.tend(self)

    # ------------------------------------------------------ the parts' host
    def record(self, kind: str, **data: object) -> Record:
        return self.journal.append(kind, **data)

    def set_state(self, new: State, **data: object) -> None:
        if new == self.state and not data:
            return
        check_transition(self.state, new)
        self.record("state", state=new.value, **data)
        log.info("state %s -> %s", self.state.value, new.value)
        self.state = new
        self.attendance.restart(self.clock())
        if self.on_state is not None:
            try:
                self.on_state(new.value)
            except Exception:   # a status line must not stop the game
                log.exception("state hook failed")
        if new not in (State.FIX_BOARD, State.PLACE_PIECE):
            self.fix_squares = {}
        if new != State.FIX_BOARD:
            self.move_choices = self.moves_possible = ()
        if new != State.PLACE_PIECE:
            self.notice = None
        if new not in (State.FIX_BOARD, State.PLACE_PIECE, State.PAUSED_ERROR):
            self.message, self.message_args = None, {}
        self.turns.thinking_since = self.clock() if new == State.THINKING else None

    def ask_person(self, diff: dict[int, Piece | None], message: str) -> None:
        """The robot cannot go on alone: show which squares need a hand (message '' keeps the text)."""
        if self.state == State.PLACE_PIECE and (not message or message == self.message) \
                and diff == self.fix_squares:
            return
        self.record("place_piece", message=message or self.message,
                            squares=squares_json(diff, self.board_size()))
        self.set_state(State.PLACE_PIECE)
        self.fix_squares = dict(diff)
        if message:
            self.message = message
        self.message_args = {"count": str(len(diff))}

    def resume_goal_state(self, purpose: Purpose) -> None:
        """The robot goes on with a goal by itself: the state its plan runs in."""
        self.set_state(GOAL_STATES[purpose] if self.session is not None or purpose != Purpose.SETUP
                       else State.SETUP)

    def gantry_failed(self, error: str) -> None:
        if self.state != State.PAUSED_ERROR:
            self._paused_from = State.VERIFY if self.state == State.ROBOT_MOVING else self.state
        self.set_state(State.PAUSED_ERROR)
        self.message, self.message_args = "gantry.error", {"error": error}

    def gantry_homed(self) -> None:
        if self.state == State.PAUSED_ERROR:
            self.set_state(self._paused_from)
            self.message, self.message_args = None, {}

    def board_size(self) -> int:
        return self.config.boards[self.board_name].squares

    def current_variant(self) -> str:
        return self.session.variant if self.session is not None else self.variant or "copenhagen"

    default_variant = current_variant

    def staff_setup(self, variant: str, target: dict[int, Piece]) -> None:
        self._use_board(variant)
        self.session = None
        self.set_state(State.SETUP)
        self.jobs.retarget(Purpose.SETUP, target, lambda: self.set_state(State.IDLE))

    # -- game over, reset and clearing -----------------------------------------
    def finish(self, outcome: Outcome | None) -> None:
        s = self.session
        assert s is not None
        s.outcome = outcome
        if self.match is not None:
            self.match.record(s.board, outcome)          # scored before the record that keeps it
        self.record("game_over", winner=outcome.winner.value if outcome and outcome.winner else None,
                    reason=outcome.reason if outcome else "",
                    **({"match": self.match.to_json()} if self.match is not None else {}))
        self.jobs.drop_goal()
        self.set_state(State.GAME_OVER)
        self.records.finished(write_gamelog(self.journal, s, self.config.kiosk.language,
                                            hints=self.teacher.hints_used,
                                            move_times_s=move_times(self.journal.records) if s.mode == "referee"
                                            else ()))
        if self.on_game_over is not None and outcome is not None:
            try:
                self.on_game_over(s.board.copy(), outcome)
            except Exception:   # a log hook must not stop the game
                log.exception("game-over hook failed")
        self.turns.start_reset()

    def _cleared(self) -> None:
        self.record("cleared")
        self.set_state(State.IDLE)
        self.journal.archive(self.variant or "game")
        self.session = None

    # -- loading and resuming ------------------------------------------------------
    def _use_board(self, variant: str) -> None:
        self.variant = variant
        self.board_name = board_name_for(self.config, variant)
        for port in (self.camera, self.gantry):
            port.use_board(self.board_name, variant)
        self.jobs.use_board(self.board_name)

    def _resume(self, point: ResumePoint) -> None:
        """Go on from where the journal stopped; the camera then decides what is true."""
        if point.session is None:
            if damaged_resume.journal_damage_lost(self):
                return
            if point.staff_setup:
                self.staff_setup(point.staff_setup, Board(point.staff_setup).pieces())
            else:
                self.set_state(State.IDLE)
            return
        s = point.session
        self.session, self.match = s, point.match
        self.teacher.new_game(s.level)
        self.teacher.hints_used = list(s.hints)
        self._use_board(s.variant)
        self.resumed = True
        self.record("resumed", moves=len(s.board.move_stack))
        self.home()
        state = point.state
        self.set_state(state, resumed=True)
        if state == State.CLEARING:
            self.jobs.start_goal(Purpose.CLEAR, {}, self._cleared)
        elif state == State.GAME_OVER:
            self.turns.start_reset()
        elif state == State.SETUP:
            self.jobs.start_goal(Purpose.SETUP, s.start_position(), self.turns.setup_done)
        elif state == State.VERIFY:
            # the carries the power cut came before were never begun: not booked as made, and their pieces
            # stand where they stood (RobotJobs._parks_in_doubt); the journal says which were done, the
            # ledger whether the next one had begun
            done = point.robot_steps_done
            rest = [] if done is None else point.robot_plan[done:]
            unbegun = rest if rest and not self.jobs.carry_begun(rest[0]) else rest[1:]
            begun = point.robot_plan[:len(point.robot_plan) - len(unbegun)]
            self.jobs.resume_plan = list(begun)
            self.jobs.start_goal(Purpose.MOVE, s.board.pieces(), self.turns.robot_move_done)
            goal = self.jobs.goal
            assert goal is not None             # start_goal just set it
            goal.phase = Phase.VERIFY
            goal.unbegun = list(unbegun)
            goal.scope = frozenset(sq for t in point.robot_plan for sq in (t.src, t.dst)
                                             if isinstance(sq, int))
            goal.dropped_on = self.jobs.path_squares(list(point.robot_plan))    # the magnet let go mid-carry
        elif state == State.THINKING:
            self.turns.request()
        elif state == State.VISITOR_TURN:
            self.turns.ponder()
        self._damage_check = self.journal.damage is not None
        if state in (State.VERIFY, State.SETUP, State.CLEARING):
            self.message, self.message_args = "resume.checking", {}

