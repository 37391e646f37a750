"""The game controller: one explicit state machine for a whole game on the physical board.

WHY this shape: the pygame loop must never block, so the controller only
reacts to events (camera readings from the camera thread, replies from the
search process, progress and errors from the gantry thread) in `poll()`,
which the loop calls once a frame. The screens draw `view()` and call the
commands; they never touch hardware.

Every state change is journalled (kiosk/journal.py) BEFORE it acts, so after
a crash or a power cut a new controller rebuilds the game from the journal,
re-reads the board with the camera, compares it with what the journal and the
storage ledger say, and then continues or asks for the board to be put right.

One idea carries the robot's side: a goal is a target position for the
squares. Setting up, the robot's move (with its captures parked), clearing,
a missed-pickup retry and the resume after a power cut all plan the same way
(kiosk/reconcile.py: camera reading + storage ledger -> transfers), carry the
plan out and check the result with the camera, retrying with small pickup
offsets, then asking a person to place the piece, showing where.

Message keys (kiosk/i18n): illegal_move.{not_your_piece, not_straight, blocked,
restricted_square, rule}, fix_board.mismatch, fix_board.robot_result,
place_piece.missed_pickup, place_piece.missing_pieces, place_piece.storage_full,
gantry.error, camera.waiting, resume.checking, capture.left_on_board.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from calibration.config import Config
from engine import Board, Move, Outcome, Piece, Side, square_name

from kiosk import notices
from kiosk.board_names import board_name_for
from kiosk.inventory import InventoryFile, StorageInventory
from kiosk.journal import Journal, Record
from kiosk.move_reading import VisitorReading, read_visitor_move
from kiosk.ports import CameraPort, CameraReading, EnginePort, GantryEvent, GantryPort, Slot, Transfer
from kiosk.reconcile import apply_transfer, diff_squares, reconcile
from kiosk.states import State, check_transition
from kiosk.teaching import Teacher, TeachingView

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("kiosk.controller")

#: pickup points (mm from the square's centre) tried one after the other when the
#: camera shows a missed pickup: first the centre again (a slip), then a ring
#: about half a piece's radius out, for a piece knocked off its centre
RETRY_OFFSETS_MM: tuple[tuple[float, float], ...] = (
    (0.0, 0.0),
    (4.0, 0.0), (0.0, 4.0), (-4.0, 0.0), (0.0, -4.0),
    (2.8, 2.8), (-2.8, 2.8), (-2.8, -2.8), (2.8, -2.8),
)
#: more differences than this after a robot move is not a robot slip but a disturbed board
MAX_ROBOT_DIFF = 6
#: a square read with less confidence than this is not acted on alone: the
#: controller asks for a fresh frame (up to MAX_UNSURE_FRAMES times) first
SURE_CONFIDENCE = 0.9
MAX_UNSURE_FRAMES = 3
#: seconds between homing attempts while the gantry is in error
HOME_RETRY_S = 3.0


@dataclass(frozen=True)
class ControllerView:
    """An immutable snapshot of the controller for the screens (docs/architecture.md)."""

    state: str
    variant: str | None
    board: Board | None
    visitor_side: Side | None
    level: str | None
    last_move: Move | None
    last_captures: tuple[int, ...]
    announcements: tuple[str, ...]
    robot_activity: str
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
    teaching: TeachingView = TeachingView()    # kiosk/teaching.py: the robot's reasons, the hint


@dataclass
class Goal:
    """A target for the squares and what to do once the camera confirms it."""

    purpose: str                      # setup | move | clear | restore
    target: dict[int, Piece]
    phase: str = "read"               # read (plan from a fresh reading) | moving | verify
    not_before: float = 0.0           # only readings from frames after this count
    attempts: int = 0                 # plans carried out that the camera did not confirm
    interrupted: bool = False         # the last plan stopped on a gantry error: not a failed attempt
    last_plan: list[Transfer] = field(default_factory=list)
    scope: frozenset[int] | None = None   # squares the robot may touch (None: all)


class StabilityTracker:
    """A board reading counts once it has been the same for `stable_s` seconds,
    with every marker seen (no hand over the board) the whole time."""

    def __init__(self, stable_s: float) -> None:
        self.stable_s = stable_s
        self.squares: tuple[Piece | None, ...] | None = None
        self.reading: CameraReading | None = None
        self.fresh = 0          # independently taken pictures in the current still run
        self.run_start = 0.0
        self.last_t = 0.0
        self.last_seq = -1

    def update(self, reading: CameraReading) -> None:
        if reading.seq == self.last_seq:
            return
        self.last_seq = reading.seq
        if not reading.ok:
            self.squares = None
            self.reading = None
            return
        if reading.squares != self.squares:
            self.squares = reading.squares
            self.run_start = reading.t
            self.fresh = 0
        self.fresh += 1 if reading.fresh else 0
        self.reading = reading
        self.last_t = reading.t

    def stable(self, not_before: float = 0.0) -> dict[int, Piece] | None:
        if self.squares is None:
            return None
        start = max(self.run_start, not_before)
        if self.last_t <= not_before or self.last_t - start < self.stable_s:
            return None
        return {sq: p for sq, p in enumerate(self.squares) if p is not None}


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
        self.inventory_file = InventoryFile(state_dir)
        self.stability = StabilityTracker(config.camera.stable_s if stable_s is None else stable_s)
        self.max_pickup_retries = max_pickup_retries
        self.on_game_over = on_game_over
        self.on_poll = on_poll          # e.g. the systemd watchdog's tick: alive while the loop runs
        self.on_state = on_state        # e.g. systemd STATUS=

        self.state = State.IDLE
        self.variant: str | None = None
        self.options: dict[str, str] = {}
        self.visitor_side: Side | None = None
        self.level: str | None = None
        self.board: Board | None = None
        self.board_name = config.board
        self.inventory: StorageInventory | None = None
        self.leftovers: dict[int, Piece] = {}
        self.last_move: Move | None = None
        self.last_captures: tuple[int, ...] = ()
        self.announcements: tuple[str, ...] = ()
        self.outcome: Outcome | None = None
        self.fix_squares: dict[int, Piece | None] = {}
        self.message: str | None = None
        self.message_args: dict[str, str] = {}
        self.robot_activity = ""
        self.progress = 0.0
        self.camera_ok = False
        self.camera_reason: str | None = "camera.waiting"
        self.goal: Goal | None = None
        self.after_goal: Callable[[], None] | None = None
        self.resumed = False
        self.thinking_since: float | None = None
        self._job = 0
        self._job_transfers: list[Transfer] = []
        self._job_done = 0
        self._request = 0
        self._resume_plan: list[Transfer] = []
        self._homing_job: int | None = None
        self._home_retry_at = 0.0
        self._paused_from = State.VERIFY
        self._start_counts: dict[str, int] = {}
        self._unsure_seq = -1
        self._unsure_count = 0
        self._inferrer = None
        self._journal_board_moves: list[str] = []
        self.calibration: object | None = None        # CalibrationStatus of the last staff step
        self._calibration_session = None               # touched on the gantry thread only
        self.teacher = Teacher.from_config(config)      # teaching: kiosk/teaching.py
        self._damage_check = False                     # robust: resumed from a damaged journal
        self.resume()

    # ------------------------------------------------------------------ view
    def view(self) -> ControllerView:
        captured = {"attackers": 0, "defenders": 0}
        if self.board is not None:
            now = list(self.board.pieces().values())
            captured["attackers"] = self._start_counts.get("defenders", 0) - \
                sum(1 for p in now if p != Piece.ATTACKER)
            captured["defenders"] = self._start_counts.get("attackers", 0) - \
                sum(1 for p in now if p == Piece.ATTACKER)
        return ControllerView(
            state=self.state.value, variant=self.variant,
            board=self.board.copy() if self.board is not None else None,
            visitor_side=self.visitor_side, level=self.level, last_move=self.last_move,
            last_captures=self.last_captures, announcements=self.announcements,
            robot_activity=self.robot_activity, progress=self.progress,
            fix_squares=dict(self.fix_squares), message=self.message,
            message_args=dict(self.message_args), outcome=self.outcome,
            camera_ok=self.camera_ok, camera_reason=self.camera_reason, captured=captured,
            ply=len(self.board.move_stack) if self.board is not None else 0,
            robot_side=self.visitor_side.other if self.visitor_side is not None else None,
            resumed=self.resumed, thinking_since=self.thinking_since,
            teaching=self.teacher.view(self.engine, self.board))

    # -------------------------------------------------------------- commands
    def start_game(self, variant: str, options: dict[str, str], visitor_side: Side, level: str) -> None:
        """A visitor starts a game: the robot sets the board up, then whoever moves first plays."""
        if self.state not in (State.IDLE, State.GAME_OVER):
            raise RuntimeError(f"cannot start a game while {self.state.value}")
        if level not in self.config.engine.levels:
            raise ValueError(f"unknown level {level!r}; known: {', '.join(self.config.engine.levels)}")
        board = Board(variant, options=dict(options))
        if self.state == State.GAME_OVER:
            self.journal.archive(self.variant or "game")
        self._journal("game_started", variant=variant, options=dict(options),
                      visitor_side=Side(visitor_side).value, level=level)
        self._load_game(variant, dict(options), Side(visitor_side), level, board)
        self._begin_setup()

    def request_hint(self) -> bool:
        """Teaching (kiosk/teaching.py): the visitor asks for a hint; the search process answers it
        and the view shows it. False when no hint can be given now (not the visitor's turn, none left)."""
        if self.state != State.VISITOR_TURN or self.board is None:
            return False
        return self.teacher.request_hint(self.engine, self.board, self.variant, self.options, self._moves_otn())

    def resign(self) -> None:
        """The visitor gives up: the robot wins."""
        if self.board is None or self.state in (State.IDLE, State.GAME_OVER, State.CLEARING):
            return
        self.engine.cancel()
        self._finish(Outcome(self.visitor_side.other, "resigned"))

    def end_game(self) -> None:
        """Stop without a winner (idle timeout, staff), then clear the board."""
        if self.state in (State.IDLE, State.CLEARING):
            return
        self.engine.cancel()
        if self.state != State.GAME_OVER:
            self._finish(Outcome(None, "ended"))
        self.clear_board()

    def clear_board(self) -> None:
        """Park every piece in storage (after game over, or the staff asks)."""
        if self.state not in (State.IDLE, State.GAME_OVER, State.PAUSED_ERROR):
            raise RuntimeError(f"cannot clear the board while {self.state.value}")
        self._journal("clearing")
        self._set_state(State.CLEARING)
        self._start_goal("clear", {}, self._cleared)

    def home(self) -> None:
        """Staff: home the gantry (after a power cut or an alarm)."""
        self._job += 1
        self._homing_job = self._job
        self._journal("homing", job=self._job)
        self.gantry.home(self._job)

    def setup_board(self, variant: str) -> None:
        """Staff: set the start position of `variant` without starting a game."""
        if self.state not in (State.IDLE, State.GAME_OVER):
            raise RuntimeError(f"cannot set up the board while {self.state.value}")
        board = Board(variant)
        self._journal("staff_setup", variant=variant)
        self._use_board(variant)
        self.variant, self.board = variant, None
        self._set_state(State.SETUP)
        self._start_goal("setup", board.pieces(), lambda: self._set_state(State.IDLE))

    # staff extras beyond the architecture's list (kiosk/ui/staff.py)
    def jog(self, dx_mm: float, dy_mm: float) -> None:
        """Staff: move the carriage (magnet off) by dx, dy mm, on the gantry thread.

        Only without a running game (idle or game over) and with the gantry
        free: a jog in the middle of a plan would put the magnet somewhere the
        plan does not expect. The new position arrives as a 'jogged' event."""
        self._check_staff_motion("jog")
        jog = getattr(self.gantry, "jog", None)
        if jog is None:
            raise RuntimeError("this gantry cannot jog")
        self._job += 1
        self._journal("staff_jog", job=self._job, dx=float(dx_mm), dy=float(dy_mm))
        self.robot_activity = "jogging"
        jog(self._job, float(dx_mm), float(dy_mm))

    def test_move(self, from_sq: int, to_sq: int) -> None:
        """Staff: carry whatever piece the camera sees on `from_sq` to the empty `to_sq`.

        Planned and carried by the gantry thread like any transfer, so the
        robot's ledger follows it; the storage inventory is only touched by
        transfers to or from a slot, which a square-to-square move is not."""
        self._check_staff_motion("test move")
        size = self.board_size()
        for sq in (from_sq, to_sq):
            if not isinstance(sq, int) or not 0 <= sq < size * size:
                raise ValueError(f"square {sq!r} is not on the {size}x{size} board")
        if from_sq == to_sq:
            raise ValueError("a test move needs two different squares")
        reading = self.camera.read_latest()
        if reading is None or not reading.ok:
            raise RuntimeError("the camera cannot read the board: "
                               f"{reading.reason if reading is not None else 'no picture yet'}")
        squares = reading.occupancy()
        piece = squares.get(from_sq)
        if piece is None:
            raise ValueError(f"no piece on {square_name(from_sq, size)}")
        if squares.get(to_sq) is not None:
            raise ValueError(f"{square_name(to_sq, size)} is not empty")
        transfer = Transfer(from_sq, to_sq, piece, kind="test")
        places: dict = {sq: p.value for sq, p in squares.items()}
        if self.inventory is not None:
            places.update({slot: p.value for slot, p in self.inventory.slots.items() if p is not None})
        self._job += 1
        self._job_transfers, self._job_done = [transfer], 0
        self._journal("staff_test_move", job=self._job, transfer=transfer.to_json())
        self.progress = 0.0
        self.robot_activity = describe(transfer, size)
        self.gantry.submit(self._job, [transfer], places)

    def calibration_step(self, action: str, dx_mm: float = 0.0, dy_mm: float = 0.0,
                         path: str | None = None) -> None:
        """Staff: one step of the gantry calibration (kiosk/calibration_session.py), on the gantry thread.

        `action` is one of home, jog (by dx, dy mm), next (go to the next
        reference square), record, fit, save (to `path`), reset. The steps
        block on motion, so they run where the transfers run; the outcome
        arrives as a 'ran' event and shows in `calibration_status()`. Only
        without a running game and with the gantry free, like a jog."""
        from kiosk.calibration_session import ACTIONS, CalibrationSession

        if action not in ACTIONS:
            raise ValueError(f"unknown calibration step {action!r}; one of {', '.join(ACTIONS)}")
        self._check_staff_motion("calibration")
        run = getattr(self.gantry, "run", None)
        if run is None:
            raise RuntimeError("this gantry cannot calibrate")
        board_name, config = self.board_name, self.config

        def step(mover: object) -> object:
            # runs on the gantry thread, the only place the session is touched
            session = self._calibration_session
            if session is None or session.board_name != board_name:
                session = CalibrationSession(mover, config, board_name)  # type: ignore[arg-type]
                self._calibration_session = session
            return session.step(action, dx_mm, dy_mm, path)

        self._job += 1
        self._journal("staff_calibration", job=self._job, action=action, dx=float(dx_mm), dy=float(dy_mm))
        self.robot_activity = f"calibration: {action}"
        run(self._job, f"calibration {action}", step)

    def calibration_status(self) -> "object | None":
        """Staff: the latest kiosk.calibration_session.CalibrationStatus, or None before any step."""
        return self.calibration

    def camera_snapshot(self) -> "np.ndarray | None":
        """Staff: the newest camera frame (BGR), or None when the camera port keeps no frames."""
        snapshot = getattr(self.camera, "snapshot", None)
        return snapshot() if snapshot is not None else None

    def _check_staff_motion(self, what: str) -> None:
        if self.state not in (State.IDLE, State.GAME_OVER):
            raise RuntimeError(f"no {what} while {self.state.value}")
        if self.gantry.busy or self._homing_job is not None:
            raise RuntimeError(f"no {what} while the robot is busy")

    def stop(self) -> None:
        """Orderly shutdown of the controller's helpers (not used on a power cut)."""
        self.journal.close()

    # ----------------------------------------------------------------- poll
    def poll(self) -> None:
        """Handle everything that arrived since the last frame; never blocks."""
        if self.on_poll is not None:
            self.on_poll()
        reading = self.camera.read_latest()
        if reading is not None:
            self.stability.update(reading)
            self.camera_ok = reading.ok
            self.camera_reason = reading.reason
        for event in self.gantry.poll():
            self._on_gantry(event)
        self.teacher.poll(self.engine, self.board)          # teaching: an arrived hint
        if self._damage_check and not self._check_damaged_resume():
            return
        if self.state == State.THINKING:
            reply = self.engine.poll()
            if reply is not None and reply[0] == self._request:
                self._on_engine_reply(reply[1])
        if self.state == State.PAUSED_ERROR and self._homing_job is None \
                and self.clock() >= self._home_retry_at:
            self.home()
        if self.state == State.PAUSED_ERROR:
            return
        if self.goal is not None and self.goal.phase in ("read", "verify") and self._homing_job is None:
            self._advance_goal()
        elif self.state in (State.VISITOR_TURN, State.FIX_BOARD) and self.goal is None:
            self._watch_visitor()

    # ------------------------------------------------------------ internals
    def _journal(self, kind: str, **data: object) -> Record:
        return self.journal.append(kind, **data)

    def _set_state(self, new: State, **data: object) -> None:
        if new == self.state and not data:
            return
        check_transition(self.state, new)
        self._journal("state", state=new.value, **data)
        log.info("state %s -> %s", self.state.value, new.value)
        self.state = new
        if self.on_state is not None:
            try:
                self.on_state(new.value)
            except Exception:   # noqa: BLE001 - a status line must not stop the game
                log.exception("state hook failed")
        if new not in (State.FIX_BOARD, State.PLACE_PIECE):
            self.fix_squares = {}
        if new not in (State.FIX_BOARD, State.PLACE_PIECE, State.PAUSED_ERROR):
            self.message, self.message_args = None, {}
        self.thinking_since = self.clock() if new == State.THINKING else None

    def _load_game(self, variant: str, options: dict[str, str], visitor_side: Side, level: str,
                   board: Board) -> None:
        self.variant, self.options, self.visitor_side, self.level = variant, options, visitor_side, level
        self.board = board
        start = list(board.pieces().values())
        self._start_counts = {"attackers": sum(1 for p in start if p == Piece.ATTACKER),
                              "defenders": sum(1 for p in start if p != Piece.ATTACKER)}
        self.leftovers = {}
        self.last_move, self.last_captures, self.announcements = None, (), ()
        self.outcome = None
        self.teacher.new_game(level)                       # teaching
        self._use_board(variant)

    def _use_board(self, variant: str) -> None:
        self.board_name = board_name_for(self.config, variant)
        for port in (self.camera, self.gantry):
            use = getattr(port, "use_board", None)
            if use is not None:
                use(self.board_name, variant)
        self.inventory = self.inventory_file.load(self.board_name)

    def _book(self, transfer: Transfer) -> None:
        if self.inventory is None:
            return
        if isinstance(transfer.src, Slot) or isinstance(transfer.dst, Slot):
            apply_transfer(self.inventory, transfer)
            self.inventory_file.save(self.board_name, self.inventory)

    # -- setup ---------------------------------------------------------------
    def _begin_setup(self) -> None:
        self._set_state(State.SETUP)
        self._start_goal("setup", self.board.pieces(), self._setup_done)

    def _setup_done(self) -> None:
        self._journal("setup_done")
        self._next_turn()

    def _next_turn(self) -> None:
        assert self.board is not None
        if self.board.is_game_over():
            self._finish(self.board.outcome())
        elif self.board.turn == self.visitor_side:
            self._set_state(State.VISITOR_TURN)
            self._ponder()
        else:
            self._think()

    # -- the visitor's move ----------------------------------------------------
    def _unsure(self, squares: dict[int, Piece], expected: dict[int, Piece]) -> bool:
        """True while every difference from `expected` rests on squares read with low
        confidence: ask the camera for a fresh frame instead of acting on a misread."""
        reading = self.stability.reading
        if reading is None or not reading.confidence:
            return False
        diff = diff_squares(squares, expected)
        if not diff or any(reading.confidence[sq] >= SURE_CONFIDENCE for sq in diff):
            self._unsure_count = 0
            return False
        if reading.seq != self._unsure_seq:
            self._unsure_seq = reading.seq
            self._unsure_count += 1
            refresh = getattr(self.camera, "refresh", None)
            if refresh is not None:
                refresh()
        if self._unsure_count > MAX_UNSURE_FRAMES:
            self._unsure_count = 0
            return False
        return True

    def _seen_twice(self) -> bool:
        """A change is acted on only once two independently taken pictures show it
        (a real camera gives many; the simulation repeats a still picture, so ask)."""
        if self.stability.fresh >= 2 or not self.stability.reading or not self.stability.reading.confidence:
            return True
        refresh = getattr(self.camera, "refresh", None)
        if refresh is None:
            return True
        refresh()
        return False

    def _confirm(self, squares: dict[int, Piece]) -> None:
        """The camera's stable reading showed exactly `squares`: let the reader learn the look."""
        confirm = getattr(self.camera, "confirm", None)
        if confirm is not None and self.stability.reading is not None:
            try:
                confirm(self.stability.reading, squares)
            except Exception:   # noqa: BLE001 - learning is an improvement, never a failure
                log.exception("camera confirm failed")

    def _vision_move(self) -> "VisitorReading | None":
        """The vision package's verdict from the class probabilities, when it is sure."""
        raw = getattr(self.stability.reading, "raw", None)
        probs = getattr(raw, "probabilities", None)
        if probs is None or self.leftovers:
            return None
        try:
            from vision.inference import MoveInferrer, Verdict
        except ImportError:
            return None
        if self._inferrer is None:
            self._inferrer = MoveInferrer()
        inf = self._inferrer.infer(self.board, probs)
        if inf.verdict is Verdict.MOVE and inf.move is not None and inf.move.to_sq not in inf.captures:
            return VisitorReading("move", inf.move, tuple(inf.captures), tuple(inf.captures_pending))
        if inf.verdict in (Verdict.UNCHANGED, Verdict.AMBIGUOUS):
            return VisitorReading("none")
        return None

    def _watch_visitor(self) -> None:
        squares = self.stability.stable()
        if squares is None or self.board is None:
            return
        result = read_visitor_move(self.board, squares, self.leftovers)
        if result.kind != "move":
            sure = self._vision_move()
            if sure is not None and sure.kind == "move":
                result = sure
            elif result.kind != "none" and self._unsure(squares, self.board.pieces()):
                return
        if result.kind != "none" and not self._seen_twice():
            return
        if result.kind == "none":
            if self.state == State.FIX_BOARD:
                self._journal("board_fixed")
                self._set_state(State.VISITOR_TURN)
            return
        if result.kind in ("illegal", "mismatch"):
            if self.state == State.FIX_BOARD and result.fix == self.fix_squares:
                return
            self._journal("fix_board", fix={square_name(s, self.board.size): (p.value if p else None)
                                            for s, p in result.fix.items()},
                          message=result.message, **({"tried": result.move.otn(self.board.size)}
                                                     if result.move else {}))
            if self.state != State.FIX_BOARD:
                self._set_state(State.FIX_BOARD)
            self.fix_squares = dict(result.fix)
            self.message, self.message_args = result.message, dict(result.message_args)
            return
        move = result.move
        assert move is not None
        self._confirm(squares)
        otn = self.board.move_to_otn(move)
        self._journal("visitor_move", move=otn, captures=list(result.captures),
                      left=list(result.left_on_board))
        self._play(move)
        for sq in result.left_on_board:
            self.leftovers[sq] = self._captured_piece(sq)
        self._next_turn()
        if self.leftovers and self.state == State.THINKING:
            # the robot will park them; the screen says so
            self.message = "capture.left_on_board"
            self.message_args = {"squares": ", ".join(square_name(sq, self.board.size) for sq in self.leftovers)}

    def _captured_piece(self, sq: int) -> Piece:
        """What stood on `sq` before the last move captured it."""
        before = self.board.copy()
        move = before.pop()
        piece = before.piece_at(sq)
        if piece is None and sq == move.to_sq:      # the mover died where it stopped
            piece = before.piece_at(move.from_sq)
        assert piece is not None, f"nothing was captured on {sq}"
        return piece

    def _play(self, move: Move) -> tuple[int, ...]:
        captures = tuple(self.board.push(move))
        self.last_move, self.last_captures = move, captures
        try:
            self.announcements = tuple(a.kind for a in self.board.announcements())
        except Exception:   # noqa: BLE001 - announcements are decoration, never fatal
            self.announcements = ()
        return captures

    # -- the robot's move ------------------------------------------------------
    def _think(self) -> None:
        self._set_state(State.THINKING)
        self._request += 1
        self.engine.request(self._request, self.variant, self.options, self._moves_otn(), self.level)

    def _ponder(self) -> None:
        """Let the engine think on the visitor's time (kiosk/engine_worker.py); an engine
        port without pondering simply waits."""
        ponder = getattr(self.engine, "ponder", None)
        if ponder is not None:
            ponder(self.variant, self.options, self._moves_otn(), self.level)

    def _moves_otn(self) -> list[str]:
        return [m.otn(self.board.size) for m in self.board.move_stack]

    def _on_engine_reply(self, move_otn: str) -> None:
        move = self.board.parse_move(move_otn)
        if not self.board.is_legal(move):
            raise RuntimeError(f"engine replied with an illegal move {move_otn}")
        captures = tuple(self.board.captures_of(move))
        robot_piece = self.board.piece_at(move.from_sq)
        plan: list[Transfer] = []
        if self.inventory is None:
            self.inventory = StorageInventory.full_for(self.variant, self.board.pieces())
            self.inventory_file.save(self.board_name, self.inventory)
        inv = StorageInventory(dict(self.inventory.slots))
        latest = self.stability.squares
        for sq, piece in sorted(self.leftovers.items()):
            if latest is not None and latest[sq] is None:
                continue          # the visitor took it away meanwhile
            plan += self._park(inv, sq, piece)
        plan.append(Transfer(move.from_sq, move.to_sq, robot_piece, "move"))
        for sq in captures:
            plan += self._park(inv, sq, robot_piece if sq == move.to_sq else self.board.piece_at(sq))
        otn = self.board.move_to_otn(move)
        self._journal("robot_move", move=otn, captures=list(captures),
                      plan=[t.to_json() for t in plan])
        self.teacher.robot_moved(self.board, move)         # teaching: why (before it is played)
        self._play(move)
        before = {sq: p for sq, p in self._board_before_last().items()}
        before.update({sq: p for sq, p in self.leftovers.items()})
        self.leftovers = {}
        self._set_state(State.ROBOT_MOVING)
        self.goal = Goal("move", self.board.pieces(), phase="moving",
                         scope=frozenset(sq for t in plan for sq in (t.src, t.dst) if isinstance(sq, int)))
        self.after_goal = self._robot_move_done
        self._submit(plan, before)

    def _park(self, inv: StorageInventory, sq: int, piece: Piece) -> list[Transfer]:
        from kiosk.reconcile import park_slot
        slot = park_slot(inv.slots, piece)
        if slot is None:
            return []        # storage full: the verify step will ask a person
        inv.slots[slot] = piece
        return [Transfer(sq, slot, piece, "park")]

    def _robot_move_done(self) -> None:
        self._journal("robot_move_done")
        self._next_turn()

    # -- goals: plan, carry out, verify -------------------------------------------
    def _start_goal(self, purpose: str, target: dict[int, Piece], then: Callable[[], None]) -> None:
        self.goal = Goal(purpose, dict(target), phase="read", not_before=self.clock())
        self.after_goal = then
        self.robot_activity, self.progress = "", 0.0

    def _advance_goal(self) -> None:
        goal = self.goal
        assert goal is not None
        if self.gantry.busy:
            goal.not_before = self.clock()     # e.g. a resign mid-move: look once the gantry stops
            return
        observed = self.stability.stable(goal.not_before)
        if observed is None:
            return
        if self._resume_plan:
            self._settle_resumed_plan(observed)
        if self.inventory is None:
            # the first game on this board: storage holds every piece the camera does not see
            self.inventory = StorageInventory.full_for(self.variant or "copenhagen", observed)
            self.inventory_file.save(self.board_name, self.inventory)
        if goal.phase == "verify":
            self._unbook_failures(observed, goal.last_plan)
        diff = diff_squares(observed, goal.target)
        if diff and (self._unsure(observed, goal.target) or not self._seen_twice()):
            return
        if not diff:
            self._confirm(observed)
            self.goal, then = None, self.after_goal
            self.after_goal = None
            self.fix_squares = {}
            self.robot_activity, self.progress = "", 1.0
            self._journal("goal_reached", purpose=goal.purpose)
            if then is not None:
                then()
            return
        if self.state == State.PLACE_PIECE:
            self.fix_squares = diff
            return
        if goal.scope is not None and any(sq not in goal.scope for sq in diff):
            # not where the robot worked: a person touched the board (or the camera is
            # wrong there); the robot does not move pieces on a guess
            self._ask_person(diff, "fix_board.robot_result")
            return
        if goal.purpose in ("move", "restore") and len(diff) > MAX_ROBOT_DIFF:
            self._ask_person(diff, "fix_board.robot_result")
            return
        if goal.phase == "verify" and not goal.interrupted:
            goal.attempts += 1
        goal.interrupted = False
        if goal.attempts > self.max_pickup_retries:
            self._ask_person(diff, "place_piece.missed_pickup")
            return
        offset = (0.0, 0.0) if goal.attempts == 0 else RETRY_OFFSETS_MM[(goal.attempts - 1) % len(RETRY_OFFSETS_MM)]
        plan = reconcile(observed, goal.target, self.inventory, offset_mm=offset)
        if not plan.transfers:
            key = "place_piece.storage_full" if plan.no_slot else "place_piece.missing_pieces"
            self._ask_person(diff, key)
            return
        self._journal("plan", purpose=goal.purpose, attempt=goal.attempts,
                      plan=[t.to_json() for t in plan.transfers])
        if goal.purpose == "move":
            self._set_state(State.ROBOT_MOVING)
        self._submit(plan.transfers, observed)

    def _ask_person(self, diff: dict[int, Piece | None], message: str) -> None:
        self._journal("place_piece", message=message,
                      squares={square_name(s, self.board_size()): (p.value if p else None) for s, p in diff.items()})
        self._set_state(State.PLACE_PIECE)
        self.fix_squares = dict(diff)
        self.message, self.message_args = message, {"count": str(len(diff))}

    def board_size(self) -> int:
        return self.config.boards[self.board_name].squares

    def _board_before_last(self) -> dict[int, Piece]:
        before = self.board.copy()
        before.pop()
        return before.pieces()

    def _submit(self, transfers: list[Transfer], board: dict[int, Piece]) -> None:
        """Hand a plan to the gantry with the table as believed now (board + storage)."""
        assert self.goal is not None
        places: dict = {sq: p.value for sq, p in board.items()}
        if self.inventory is not None:
            places.update({slot: p.value for slot, p in self.inventory.slots.items() if p is not None})
        self._job += 1
        self._job_transfers = list(transfers)
        self._job_done = 0
        self.goal.phase = "moving"
        self.goal.last_plan = list(transfers)
        self.progress = 0.0
        self.robot_activity = describe(transfers[0], self.board_size()) if transfers else ""
        self.gantry.submit(self._job, list(transfers), places)

    def _on_gantry(self, event: GantryEvent) -> None:
        if event.job == self._homing_job and event.kind in ("homed", "error"):
            self._homing_job = None
            if event.kind == "homed":
                self._journal("homed")
                if self.state == State.PAUSED_ERROR:
                    self._set_state(self._paused_from)
                    self.message, self.message_args = None, {}
            else:
                self._journal("gantry_error", error=event.error or "", during="homing")
                self._home_retry_at = self.clock() + HOME_RETRY_S
            return
        if event.job != self._job:
            return
        if event.kind == "jogged":
            self.robot_activity = f"carriage at {event.activity} mm"
            return
        if event.kind == "ran":
            self.calibration = event.result
            self.robot_activity = ""
            return
        if event.kind == "step" and event.transfer is not None:
            self._book(event.transfer)
            self._journal("transfer_done", job=event.job, step=event.step)
            self._job_done = event.step + 1
            self.progress = self._job_done / max(1, event.total)
            if self._job_done < len(self._job_transfers):
                self.robot_activity = describe(self._job_transfers[self._job_done], self.board_size())
        elif event.kind == "done":
            self.progress = 1.0
            if self.goal is None:
                self.robot_activity = ""         # a staff test move: nothing to verify
            if self.goal is not None:
                self.goal.phase = "verify"
                self.goal.not_before = self.clock()
                if self.goal.purpose == "move":
                    self._set_state(State.VERIFY)
        elif event.kind == "error":
            self._journal("gantry_error", error=event.error or "")
            self.message, self.message_args = "gantry.error", {"error": event.error or ""}
            if self.goal is not None:
                # what was done is booked; the camera decides what is left once the gantry is back
                self.goal.phase = "verify"
                self.goal.not_before = self.clock()
                self.goal.interrupted = True
            # once homed, go back; the goal re-plans from the camera what is left to do
            if self.state != State.PAUSED_ERROR:
                self._paused_from = State.VERIFY if self.state == State.ROBOT_MOVING else self.state
            self._set_state(State.PAUSED_ERROR)
            self.message, self.message_args = "gantry.error", {"error": event.error or ""}
            self.home()

    def _unbook_failures(self, observed: dict[int, Piece], plan: list[Transfer]) -> None:
        """The books said a transfer happened; the camera says its piece never left or never came."""
        if self.inventory is None:
            return
        changed = False
        for t in plan:
            if isinstance(t.dst, Slot) and observed.get(t.src) == t.piece \
                    and self.inventory.slots.get(t.dst) == t.piece:
                self.inventory.slots[t.dst] = None     # the piece is still on its square
                changed = True
            if isinstance(t.src, Slot) and isinstance(t.dst, int) and observed.get(t.dst) != t.piece \
                    and self.inventory.slots.get(t.src) is None:
                self.inventory.slots[t.src] = t.piece  # the piece never left its slot
                changed = True
        if changed:
            self.inventory_file.save(self.board_name, self.inventory)

    def _settle_resumed_plan(self, observed: dict[int, Piece]) -> None:
        """After a power cut: book the interrupted plan's steps the camera shows were done."""
        plan, self._resume_plan = self._resume_plan, []
        if self.inventory is None:
            return
        for t in plan:
            if isinstance(t.dst, Slot) and isinstance(t.src, int) and observed.get(t.src) != t.piece \
                    and self.inventory.slots.get(t.dst) is None:
                self.inventory.slots[t.dst] = t.piece
            if isinstance(t.src, Slot) and isinstance(t.dst, int) and observed.get(t.dst) == t.piece \
                    and self.inventory.slots.get(t.src) == t.piece:
                self.inventory.slots[t.src] = None
        self.inventory_file.save(self.board_name, self.inventory)

    # -- game over and clearing ------------------------------------------------
    def _finish(self, outcome: Outcome | None) -> None:
        self.outcome = outcome
        self._journal("game_over", winner=outcome.winner.value if outcome and outcome.winner else None,
                      reason=outcome.reason if outcome else "")
        self.goal, self.after_goal = None, None
        self._set_state(State.GAME_OVER)
        self._write_gamelog(outcome)
        if self.on_game_over is not None and self.board is not None and outcome is not None:
            try:
                self.on_game_over(self.board.copy(), outcome)
            except Exception:   # noqa: BLE001 - a log hook must not stop the game
                log.exception("game-over hook failed")

    def _write_gamelog(self, outcome: Outcome | None) -> None:
        """The museum's record of the finished game (kiosk/gamelog.py), next to the journal."""
        if self.board is None or outcome is None or self.visitor_side is None:
            return
        try:
            from datetime import datetime, timezone

            from kiosk.gamelog import append_game, record_from_board

            if outcome.winner is None:
                result = "abandoned" if outcome.reason in ("ended", "idle timeout") else "draw"
            else:
                result = "visitor" if outcome.winner == self.visitor_side else "robot"
            started = self.journal.last("game_started")
            started_at = datetime.fromtimestamp(started.t if started else time.time(), timezone.utc)
            record = record_from_board(self.board, visitor_side=self.visitor_side, level=self.level or "",
                                       result=result, reason=outcome.reason, started_at=started_at,
                                       winner=outcome.winner, language=self.config.kiosk.language,
                                       hints=self.teacher.hints_used)
            append_game(self.journal.state_dir, record)
        except Exception:   # noqa: BLE001 - the statistics must never stop a game
            log.exception("could not write the game log")

    def _cleared(self) -> None:
        self._journal("cleared")
        self._set_state(State.IDLE)
        self.journal.archive(self.variant or "game")
        self.goal = None
        self.board, self.leftovers = None, {}
        self.last_move, self.last_captures, self.announcements = None, (), ()
        self.outcome = None

    # -- resume after a crash or a power cut ------------------------------------
    def resume(self) -> None:
        """Rebuild the game from the journal; the camera then decides how to go on."""
        records = self.journal.records
        start = next((i for i in range(len(records) - 1, -1, -1) if records[i].kind == "game_started"), None)
        if start is None:
            if self._journal_damage_lost():
                return
            staff = self.journal.last("staff_setup")
            if staff is not None and not self.journal.last("goal_reached"):
                self.setup_board_resume(staff.get("variant"))
            return
        rec = records[start]
        game = records[start:]
        board = Board(rec.get("variant"), options=dict(rec.get("options") or {}))
        self._load_game(rec.get("variant"), dict(rec.get("options") or {}), Side(rec.get("visitor_side")),
                        rec.get("level"), board)
        self.resumed = True
        pending_robot: Record | None = None
        setup_done = finished = clearing = False
        for r in game:
            if r.kind == "setup_done":
                setup_done = True
            elif r.kind == "visitor_move":
                move = self._play(board.parse_move(r.get("move").split("x")[0]))
                self.leftovers = {}
                for sq in r.get("left") or []:
                    self.leftovers[sq] = self._captured_piece(sq)
            elif r.kind == "robot_move":
                self._play(board.parse_move(r.get("move").split("x")[0]))
                pending_robot = r
            elif r.kind == "robot_move_done":
                pending_robot = None
                self.leftovers = {}
            elif r.kind == "game_over":
                finished = True
                winner = r.get("winner")
                self.outcome = Outcome(Side(winner) if winner else None, r.get("reason") or "")
            elif r.kind == "clearing":
                clearing = True
        self._journal("resumed", moves=len(board.move_stack))
        self.home()
        if clearing:
            self.state = State.CLEARING
            self._start_goal("clear", {}, self._cleared)
        elif finished:
            self.state = State.GAME_OVER
        elif not setup_done:
            self.state = State.SETUP
            self._start_goal("setup", Board(self.variant, options=self.options).pieces(), self._setup_done)
        elif pending_robot is not None:
            self._resume_plan = [Transfer.from_json(t) for t in pending_robot.get("plan") or []]
            self.leftovers = {}
            self.state = State.VERIFY
            self._start_goal("move", board.pieces(), self._robot_move_done)
            self.goal.phase = "verify"
            self.goal.scope = frozenset(sq for t in self._resume_plan for sq in (t.src, t.dst)
                                        if isinstance(sq, int))
        elif board.turn == self.visitor_side:
            self.state = State.VISITOR_TURN
        else:
            self.state = State.THINKING
            self._think_resumed()
        self._journal("state", state=self.state.value, resumed=True)
        self._damage_check = self.journal.damage is not None
        if self.state == State.VISITOR_TURN:
            self._ponder()
        if self.state in (State.VERIFY, State.SETUP, State.CLEARING):
            self.message, self.message_args = "resume.checking", {}

    # -- robust: a damaged journal (kiosk/journal.py moved it aside and kept its good prefix) --
    def _journal_damage_lost(self) -> bool:
        """The good prefix holds no game: say the game is lost, home, and clear the board."""
        damage = self.journal.damage
        if damage is None or not damage.game_lost:
            return False
        self._journal("game_lost", reason=damage.describe())
        self.home()
        self.clear_board()
        return True

    def _check_damaged_resume(self) -> bool:
        """Once the camera reads the board: go on only if it shows the rebuilt game (or a move on)."""
        squares = self.stability.stable()
        if squares is None or self.board is None:
            return self.board is None
        self._damage_check = False
        diff = diff_squares(squares, self.board.pieces())
        if not diff or (self.state == State.VISITOR_TURN and
                        read_visitor_move(self.board, squares, self.leftovers).kind == "move") or (
                self.goal is not None and (self.goal.scope is None or set(diff) <= self.goal.scope)):
            log.info("%s: the camera agrees with the game rebuilt from the damaged journal: "
                     "resuming at ply %d", self.journal.path, len(self.board.move_stack))
            return True
        notices.post(str(self.journal.path), f"the camera shows {len(diff)} squares unlike the game "
                     "rebuilt from the damaged journal", "the game is lost and the board will be cleared",
                     logger=log)
        self._journal("game_lost", reason=f"{len(diff)} squares differ from the rebuilt game")
        self.engine.cancel()
        self.goal, self.after_goal = None, None
        self.outcome = Outcome(None, "journal damaged")
        self._set_state(State.GAME_OVER)
        self.clear_board()
        return False

    def _think_resumed(self) -> None:
        self._request += 1
        self.thinking_since = self.clock()
        self.engine.request(self._request, self.variant, self.options, self._moves_otn(), self.level)

    def setup_board_resume(self, variant: str | None) -> None:
        if not variant:
            return
        self._use_board(variant)
        self.variant = variant
        self.state = State.SETUP
        self._start_goal("setup", Board(variant).pieces(), lambda: self._set_state(State.IDLE))


def describe(transfer: Transfer, size: int) -> str:
    """The robot's activity for the screen: 'moving e4 to e9', 'parking f6', 'setting up d1'."""
    def name(loc: object) -> str:
        return square_name(loc, size) if isinstance(loc, int) else "storage"
    if transfer.kind == "park" or (isinstance(transfer.dst, Slot) and isinstance(transfer.src, int)):
        return f"parking {name(transfer.src)}"
    if isinstance(transfer.src, Slot):
        return f"placing {name(transfer.dst)}"
    return f"moving {name(transfer.src)} to {name(transfer.dst)}"

