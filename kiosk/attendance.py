"""Is anybody there? Attendance on the visitor's turn, and the staff call while waiting for a person.

WHY not touches: on the real board a visitor who is thinking never touches
the screen. Inactivity is no touch, no hand over the board and no change on
the board (kiosk/board_watch.py gives the last sign of life). After
`attendance_warn_s` the screen asks "still there?"; after `attendance_pause_s`
the game pauses to attract with its position kept, and a returning visitor
continues it. While the kiosk waits for a person to place or fix pieces it
never times the game out: after `staff_call_s` it calls staff (a visible,
non-blocking notice and a WARNING log line) and goes on waiting; so too when the
robot's move has waited that long for a camera that cannot read the board.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from calibration.config import KioskConfig

from kiosk.states import State

if TYPE_CHECKING:
    from kiosk.controller import GameController

log = logging.getLogger("kiosk.attendance")

#: states in which the kiosk waits for the visitor to play
PLAYING = (State.VISITOR_TURN, State.FIX_BOARD)
#: states in which the kiosk waits for a person to put pieces right
WAITING_FOR_HANDS = (State.PLACE_PIECE,)
#: states in which the kiosk waits for the camera to read the board (the robot's move to be confirmed)
WAITING_FOR_CAMERA = (State.VERIFY,)


class Presence(str, Enum):
    HERE = ""
    WARN = "warn"          # "still there?": nothing happened for attendance_warn_s
    GONE = "paused"        # nothing for attendance_pause_s: the game pauses


class Call(str, Enum):
    NONE = ""
    STAFF = "staff"


@dataclass
class Attendance:
    config: KioskConfig
    since: float = 0.0              # when the current wait began (a state entered)
    touched_at: float = 0.0

    def restart(self, now: float) -> None:
        self.since = now

    def touch(self, now: float) -> None:
        self.touched_at = now

    def presence(self, state: State, now: float, sign_of_life: float) -> Presence:
        if state not in PLAYING:
            return Presence.HERE
        quiet = now - max(self.since, self.touched_at, sign_of_life)
        if quiet >= self.config.attendance_pause_s:
            return Presence.GONE
        if quiet >= self.config.attendance_warn_s:
            return Presence.WARN
        return Presence.HERE

    def call(self, state: State, now: float, camera_ok: bool = True) -> Call:
        """Waiting for hands for longer than staff_call_s (however busy the visitor is), or in the robot's
        verify that long with a camera that cannot read the board now: call staff.

        WHY the camera: a corner marker the camera has lost (a lamp's glare on it, something left on it), a
        dark room or an unplugged camera leaves the robot's move unconfirmed, and nothing else asks anybody.
        A hard-light museum day (seed 10) stood in verify for ten minutes on "markers not found: 2" with no
        staff call, and the game was lost to the day."""
        if now - self.since < self.config.staff_call_s:
            return Call.NONE
        if state in WAITING_FOR_HANDS or (state in WAITING_FOR_CAMERA and not camera_ok):
            return Call.STAFF
        return Call.NONE

    def code(self, state: State, now: float, sign_of_life: float) -> str | None:
        """'warn' (still there?), 'paused' or None, for the screen."""
        if state == State.PAUSED:
            return Presence.GONE.value
        return self.presence(state, now, sign_of_life).value or None

    def tend(self, c: "GameController") -> None:
        """Once a poll: pause a game nobody attends, continue a paused one somebody came back to,
        call staff when nobody helps."""
        now = c.clock()
        if c.state == State.PAUSED:
            if c.watch.last_sign_of_life > self.since:
                c.continue_game()
            return
        if self.presence(c.state, now, c.watch.last_sign_of_life) == Presence.GONE:
            c.record("paused")
            log.info("nobody at the board for %.0f s: the game pauses, position kept",
                     self.config.attendance_pause_s)
            c.set_state(State.PAUSED)
        if self.call(c.state, now, c.watch.camera_ok) == Call.STAFF:
            if c.state in WAITING_FOR_CAMERA:
                c.staff.call_staff(f"camera: {c.watch.camera_reason}", "the robot's move waits for the camera")
                return
            from kiosk.robot_jobs import squares_json

            # every square a person must touch: a piece to put on or one to take off
            where = ", ".join(squares_json(c.fix_squares, c.board_size()))
            c.staff.call_staff(c.message or "place_piece", where)
