"""The exhibit modes: the robot playing itself while nobody is there, and the robot as referee.

WHY one part beside the turns: both modes are a game like any other (the
same session, journal, camera checks and robot jobs, kiosk/turns.py); what
differs is only who plays (`GameSession.mode`: "selfplay" both sides the
robot, "referee" both sides visitors) and a few moments this part owns:

- self-play starts by itself when the kiosk has been idle for
  `exhibit.selfplay_after_s` (unless staff switched it off or it is a quiet
  hour), at the demo speed `exhibit.selfplay_feed_mm_min`, with a pause
  between moves so the screen's narration (kiosk/teaching.py) can be read;
- a touch or a hand over the board stops it at once: the engine's search is
  cancelled, or the gantry is feed-held with the piece still on the magnet
  and no further transfer starts (`GantryPort.hold`), and the kiosk goes to
  HANDOVER within the same poll. The visitor is offered "take over this
  position" (they play the side to move) or "start fresh" (the game ends and
  the robot resets the board straight to the start position: the fast
  reset, robot.planner.plan_reset). The held carry finishes only once no
  hand is over the board, and the position is taken over only after the
  camera has confirmed it;
- a self-play game is nobody's game: it is not written to the game log, and
  after a power cut it is not resumed (kiosk/session.py: the board is reset);
- the referee parks captured pieces a visitor left standing, between two
  turns, only once nothing has moved for `exhibit.referee_park_quiet_s` and
  no hand is over the board; a hand that appears while it parks feed-holds
  the gantry until it is gone. It keeps each side's clock (from the journal).
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from calibration.durable import atomic_write_text
from calibration.quiet_hours import is_quiet
from engine import Outcome, Piece, Side
from kiosk.ports import Transfer
from kiosk.robot_jobs import Goal
from kiosk.states import EndReason, Phase, Purpose, State

if TYPE_CHECKING:
    from kiosk.controller import GameController

log = logging.getLogger("kiosk.exhibit")

#: staff's self-play switch survives a restart in this file of the state directory
SWITCH_FILE = "exhibit.json"
#: camera reasons that say nothing about a hand (no picture at all yet)
NO_PICTURE = (None, "camera.no_frames", "camera.waiting")


class Choice:
    TAKE_OVER = "take_over"
    START_FRESH = "start_fresh"


@dataclass(frozen=True)
class ExhibitView:
    """What the screens show of the exhibit modes (part of the controller's view)."""

    mode: str = "visitor"
    selfplay_on: bool = True          # staff's switch
    quiet: bool = False               # a quiet hour now: no self-play
    handover_ready: bool = False      # the stopped self-play's position is confirmed: it can be taken over
    handover_choice: str | None = None   # chosen, waiting for the robot to put its piece down
    handover_side: Side | None = None    # the side the visitor would take over (the side to move)
    clocks: dict[str, float] = field(default_factory=dict)   # referee: each side's time so far (s)
    leftovers: dict[int, Piece] = field(default_factory=dict)   # captured pieces still standing


def hand_over_board(c: GameController) -> bool:
    """The camera cannot read the board for a reason that is not a missing picture: a hand."""
    return not c.watch.camera_ok and c.watch.camera_reason not in NO_PICTURE


def apply_transfers(before: dict[int, Piece], transfers: list[Transfer]) -> dict[int, Piece]:
    """The board squares after these transfers (storage slots are not squares)."""
    after = dict(before)
    for t in transfers:
        if isinstance(t.src, int):
            after.pop(t.src, None)
        if isinstance(t.dst, int):
            after[t.dst] = t.piece
    return after


class Exhibit:
    """Self-play and referee for one controller; `poll()` once a frame (from the controller)."""

    def __init__(self, controller: GameController,
                 wall_clock: Callable[[], datetime] = datetime.now) -> None:
        self.c = controller
        self.cfg = controller.config.exhibit
        self.wall_clock = wall_clock
        self.switch_path = Path(controller.journal.state_dir) / SWITCH_FILE
        self.selfplay_on = self._load_switch()
        self.handover_ready = False
        self.choice: str | None = None
        self.held = False                 # the gantry is feed-held by us
        self.handover_at = 0.0
        self.stopped_plan: list[Transfer] = []     # the interrupted robot move's plan
        self.stopped_before: dict[int, Piece] = {}
        self.last_game_mode: str | None = None
        self.attract = False              # the attract screen shows (the UI says so): self-play may start

    # -- staff ---------------------------------------------------------------
    def _load_switch(self) -> bool:
        try:
            data = json.loads(self.switch_path.read_text(encoding="utf-8"))
            return bool(data["selfplay"])
        except FileNotFoundError:
            return bool(self.cfg.selfplay)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s: unreadable (%s): self-play as configured", self.switch_path, exc)
            return bool(self.cfg.selfplay)

    def set_selfplay(self, on: bool) -> None:
        """Staff switch self-play on or off (kept across restarts); off stops a self-play game."""
        self.selfplay_on = bool(on)
        atomic_write_text(self.switch_path, json.dumps({"selfplay": self.selfplay_on}) + "\n")
        self.c.record("selfplay_switch", on=self.selfplay_on)
        log.info("self-play switched %s by staff", "on" if on else "off")
        s = self.c.session
        if not on and s is not None and s.mode == "selfplay" and self.c.state not in (State.GAME_OVER, State.IDLE):
            self._end_selfplay()

    def set_attract(self, showing: bool) -> None:
        """The screen shows (or left) attract mode: idle there, the robot may play itself."""
        self.attract = bool(showing)

    def quiet_now(self) -> bool:
        now = self.wall_clock()
        return is_quiet(self.cfg.quiet_hours, now.hour * 60 + now.minute)

    def selfplay_allowed(self) -> bool:
        return self.selfplay_on and not self.quiet_now()

    # -- the game's mode -------------------------------------------------------
    def game_starting(self, mode: str) -> None:
        """A game of `mode` begins: the demo speed for self-play, the configured one otherwise."""
        if self.held:
            self.c.gantry.release()                 # a new game is chosen at the screen: go on
        self.handover_ready, self.choice, self.held = False, None, False
        self.last_game_mode = mode
        self.c.gantry.set_feed(self.cfg.selfplay_feed_mm_min if mode == "selfplay" else None)

    def start_selfplay(self) -> None:
        """The robot plays itself (both sides) on the board."""
        self.c.start_game(self.cfg.selfplay_variant, {}, Side.ATTACKERS, self.cfg.selfplay_level, mode="selfplay")

    def may_reply(self) -> bool:
        """Self-play waits `selfplay_move_pause_s` between moves (the narration is read meanwhile)."""
        s, since = self.c.session, self.c.turns.thinking_since
        if s is None or s.mode != "selfplay" or since is None:
            return True
        return self.c.clock() - since >= self.cfg.selfplay_move_pause_s

    # -- once a frame ----------------------------------------------------------------
    def poll(self) -> None:
        c, s = self.c, self.c.session
        mode = s.mode if s is not None else None
        hand = hand_over_board(c)
        if mode == "selfplay" and hand:
            self.interrupt("hand")
        if self.held and not hand and (self.choice is not None or c.state != State.HANDOVER):
            c.gantry.release()                      # the held carry goes on to its destination, then stops
            self.held = False
        if c.state == State.HANDOVER or (self.choice is not None and mode == "selfplay"):
            self._tend_handover()
        elif mode == "referee":
            self._tend_referee()
        elif s is not None and mode == "selfplay" and c.state == State.THINKING \
                and len(s.board.move_stack) >= self.cfg.selfplay_max_plies:
            self._end_selfplay()                    # a demo game that goes on and on: reset, start anew
        self._maybe_start_selfplay()

    def touched(self) -> None:
        self.interrupt("touch")

    # -- self-play: stop, hand over ------------------------------------------------------
    def interrupt(self, why: str) -> None:
        """A visitor is there: stop the self-play at once (see the module docstring)."""
        c, s = self.c, self.c.session
        if s is None or s.mode != "selfplay" or c.state in (State.HANDOVER, State.GAME_OVER, State.IDLE,
                                                            State.CLEARING, State.BOOT):
            return
        if c.state not in (State.THINKING, State.ROBOT_MOVING, State.VERIFY):
            # setting up, or waiting for a person: nothing to take over yet; the board resets
            c.record("selfplay_stopped", why=why, at=c.state.value)
            if c.gantry.busy:
                c.gantry.hold()
                self.held = True
            self._end_selfplay()
            return
        c.record("selfplay_stopped", why=why, at=c.state.value)
        log.info("self-play stopped (%s) while %s", why, c.state.value)
        self.handover_ready, self.choice = False, None
        self.handover_at = c.clock()
        if c.state == State.THINKING:
            c.engine.cancel()
            c.turns.forget_request()
            self.handover_ready = True
            c.set_state(State.HANDOVER)
            c.record("handover_ready", plies=len(s.board.move_stack))
            return
        goal = c.jobs.goal
        if c.state == State.ROBOT_MOVING:
            c.gantry.hold()
            self.held = True
        if goal is not None:
            goal.purpose = Purpose.RESTORE          # the camera confirms; no further robot move
            c.jobs.after_goal = self._handover_confirmed
        self.stopped_plan = list(goal.last_plan) if goal is not None else []
        self.stopped_before = dict(s.before_last())
        c.set_state(State.HANDOVER)

    def _tend_handover(self) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        goal = c.jobs.goal
        if goal is not None and self.stopped_plan and goal.phase == Phase.VERIFY and goal.purpose == Purpose.RESTORE:
            self._settle_stopped_plan(goal)
        if self.choice == Choice.START_FRESH:
            self._end_selfplay()
        elif self.choice == Choice.TAKE_OVER and self.handover_ready and c.state == State.HANDOVER:
            self._take_over()
        elif self.choice is None and c.state == State.HANDOVER \
                and c.clock() - max(self.handover_at, c.attendance.touched_at) > c.config.kiosk.idle_timeout_s:
            self.choose(Choice.START_FRESH)         # nobody chose: back to the start position

    def _settle_stopped_plan(self, goal: Goal) -> None:
        """The held job ended: what it carried decides the position to confirm and take over."""
        c, s = self.c, self.c.session
        assert s is not None
        done = min(c.jobs.steps_done, len(self.stopped_plan))
        plan, self.stopped_plan = self.stopped_plan, []
        carried, left = plan[:done], plan[done:]
        if not left or not any(t.kind == "move" for t in plan):
            return      # all carried, or a retry of the move (planned from the camera): the target stands
        if any(t.kind == "move" for t in left):
            s.board.pop()                           # the robot's piece never moved: the move is undone
            s.last_move, s.last_captures, s.announcements = None, (), ()
            s.leftovers = {}
            c.record("robot_move_undone", plies=len(s.board.move_stack))
        else:                                       # captures not parked yet stay on the board
            s.leftovers = {t.src: t.piece for t in left if t.kind == "park" and isinstance(t.src, int)}
        goal.target = apply_transfers(self.stopped_before, carried)
        goal.scope = frozenset(sq for t in plan for sq in (t.src, t.dst) if isinstance(sq, int))

    def _handover_confirmed(self) -> None:
        c = self.c
        self.handover_ready = True
        s = c.session
        c.record("handover_ready", plies=len(s.board.move_stack) if s is not None else 0)
        if c.state != State.HANDOVER:
            c.set_state(State.HANDOVER)

    def choose(self, choice: str) -> None:
        """The visitor's answer on the hand-over screen."""
        if choice not in (Choice.TAKE_OVER, Choice.START_FRESH):
            raise ValueError(f"unknown hand-over choice {choice!r}")
        s = self.c.session
        if s is None or s.mode != "selfplay":
            return
        self.c.record("handover_choice", choice=choice)
        self.choice = choice
        self._tend_handover()

    def _take_over(self) -> None:
        """The visitor plays the side to move from here; the robot the other side, at the visitor's
        chosen level later (the self-play level now). From now on it is a visitor's game."""
        c, s = self.c, self.c.session
        assert s is not None
        side = s.board.turn
        c.record("take_over", visitor_side=side.value, plies=len(s.board.move_stack),
                 left={str(sq): p.value for sq, p in s.leftovers.items()})
        s.mode, s.visitor_side = "visitor", side
        self.choice, self.handover_ready = None, False
        self.last_game_mode = "visitor"
        c.gantry.set_feed(None)
        c.teacher.new_game(s.level)
        c.set_state(State.VISITOR_TURN)
        c.turns.ponder()

    def _end_selfplay(self) -> None:
        """Start fresh (or staff switched self-play off): the game ends, the board resets to start."""
        c = self.c
        self.choice, self.handover_ready, self.stopped_plan = None, False, []
        c.engine.cancel()
        c.finish(Outcome(None, EndReason.ENDED.value))

    def _maybe_start_selfplay(self) -> None:
        c = self.c
        if not self.attract or not self.selfplay_allowed() or c.jobs.goal is not None or c.gantry.busy:
            return
        if c.state == State.IDLE or c.state == State.GAME_OVER and c.session is not None and c.session.outcome is not None:
            pass
        else:
            return
        now = c.clock()
        if self.last_game_mode == "selfplay":
            wait = self.cfg.selfplay_move_pause_s           # the next demo game follows the last
            quiet_since = max(c.attendance.since, c.attendance.touched_at)
        else:
            wait = self.cfg.selfplay_after_s
            quiet_since = max(c.attendance.since, c.attendance.touched_at, c.watch.last_sign_of_life)
        if now - quiet_since >= wait and not hand_over_board(c):
            log.info("nobody here for %.0f s: the robot plays itself", now - quiet_since)
            self.start_selfplay()

    # -- referee -----------------------------------------------------------------------------
    def _tend_referee(self) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        if c.state == State.ROBOT_MOVING:
            if hand_over_board(c) and not self.held:
                c.gantry.hold()                     # never park while a hand is over the board
                self.held = True
                c.record("park_held")
            return
        if c.state != State.VISITOR_TURN or not s.leftovers or c.jobs.goal is not None or c.gantry.busy:
            return
        observed = c.watch.stable()
        quiet = c.clock() - c.watch.last_sign_of_life >= self.cfg.referee_park_quiet_s
        if observed is None or not quiet or hand_over_board(c):
            return
        expected = dict(s.board.pieces())
        expected.update(s.leftovers)
        if observed != expected:
            return                                  # a move under way, or a piece taken off by hand
        self._park_leftovers(observed)

    def _park_leftovers(self, observed: dict[int, Piece]) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        jobs = c.jobs
        inv: dict = dict(jobs.book.storage())      # the plan's own copy of storage, booked as planned
        plan: list[Transfer] = []
        for sq, piece in sorted(s.leftovers.items()):
            plan += jobs.park(inv, sq, piece)
        if not plan:
            return                                  # storage full: the capture stays, the game goes on
        c.record("referee_park", plan=[t.to_json() for t in plan])
        s.leftovers = {}
        c.message, c.message_args = None, {}
        c.set_state(State.ROBOT_MOVING)
        jobs.goal = Goal(Purpose.MOVE, s.board.pieces(), phase=Phase.MOVING,
                         scope=frozenset(sq for t in plan for sq in (t.src, t.dst) if isinstance(sq, int)))
        jobs.after_goal = c.turns.robot_move_done
        self.held = False
        jobs.submit(plan, observed)

    def clocks(self) -> dict[str, float]:
        """Each side's time so far (seconds), from the journal's move records; the side to move's
        clock runs. Used by the referee's screen and its game log."""
        c, s = self.c, self.c.session
        if s is None:
            return {}
        out = {Side.ATTACKERS.value: 0.0, Side.DEFENDERS.value: 0.0}
        times = move_times(c.journal.records)
        for ply, seconds in enumerate(times):
            out[(Side.ATTACKERS if ply % 2 == 0 else Side.DEFENDERS).value] += seconds
        start = _turn_start(c.journal.records)
        if start is not None and s.outcome is None and c.state in (State.VISITOR_TURN, State.FIX_BOARD):
            out[s.board.turn.value] += max(0.0, time.time() - start)
        return out

    def view(self) -> ExhibitView:
        c, s = self.c, self.c.session
        mode = s.mode if s is not None else "visitor"
        side = s.board.turn if s is not None and c.state == State.HANDOVER else None
        return ExhibitView(mode=mode, selfplay_on=self.selfplay_on, quiet=self.quiet_now(),
                           handover_ready=self.handover_ready, handover_choice=self.choice, handover_side=side,
                           clocks=self.clocks() if mode == "referee" else {},
                           leftovers=dict(s.leftovers) if s is not None else {})


MOVE_KINDS = ("visitor_move", "robot_move")


def move_times(records: list) -> list[float]:
    """Seconds each move took, from the journal: the set-up's end (or the last move) to the move."""
    times: list[float] = []
    last: float | None = None
    for r in records:
        if r.kind == "game_started":
            times, last = [], None
        elif r.kind in ("setup_done", "robot_move_done", "board_fixed") and last is None:
            last = r.t
        elif r.kind in MOVE_KINDS:
            times.append(round(max(0.0, r.t - last), 3) if last is not None else 0.0)
            last = r.t
    return times


def _turn_start(records: list) -> float | None:
    for r in reversed(records):
        if r.kind in MOVE_KINDS or r.kind == "setup_done":
            return r.t
        if r.kind == "game_started":
            return None
    return None
