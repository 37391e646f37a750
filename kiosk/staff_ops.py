"""Staff operations on the robot and the storage: jog, test move, calibration, camera picture,
set-up without a game, and the piece-loop actions "pieces are back" / "count storage again".

WHY apart from the game: these run only without a running game (or, for the
storage actions, while the kiosk waits for pieces) and never decide a move;
they share the gantry and the robot's ledger with the robot's jobs
(kiosk/robot_jobs.py) and nothing else.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

from engine import Board, square_name

from kiosk.board_names import installed_board_for
from kiosk.activity import ActivityCode, RobotActivity, activity_for
from kiosk.ports import Transfer
from kiosk.states import Phase, Purpose, State

if TYPE_CHECKING:
    import numpy as np

    from kiosk.calibration_session import CalibrationSession, CalibrationStatus
    from kiosk.controller import GameController

log = logging.getLogger("kiosk.staff")

#: pictures of the camera kept when staff are called because the board is not read (StaffOps.keep_camera_picture)
CAMERA_PICTURES_KEPT = 20


class StaffOps:
    def __init__(self, controller: "GameController") -> None:
        self.c = controller
        self.calibration: object | None = None        # CalibrationStatus of the last staff step
        self._calibration_session: CalibrationSession | None = None   # touched on the gantry thread only

    def check_motion(self, what: str) -> None:
        c = self.c
        c.start()
        if c.state not in (State.IDLE, State.GAME_OVER):
            raise RuntimeError(f"no {what} while {c.state.value}")
        if c.gantry.busy or c.jobs.homing_job is not None or c.jobs.goal is not None:
            raise RuntimeError(f"no {what} while the robot is busy")

    def jog(self, dx_mm: float, dy_mm: float) -> None:
        self.check_motion("jog")
        job = self.c.jobs.next_job()
        self.c.record("staff_jog", job=job, dx=float(dx_mm), dy=float(dy_mm))
        self.c.jobs.activity = RobotActivity(ActivityCode.JOGGING)
        self.c.gantry.jog(job, float(dx_mm), float(dy_mm))

    def test_move(self, from_sq: int, to_sq: int) -> None:
        c = self.c
        self.check_motion("test move")
        size = c.board_size()
        for sq in (from_sq, to_sq):
            if not isinstance(sq, int) or not 0 <= sq < size * size:
                raise ValueError(f"square {sq!r} is not on the {size}x{size} board")
        if from_sq == to_sq:
            raise ValueError("a test move needs two different squares")
        reading = c.camera.read_latest()
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
        c.record("staff_test_move", job=c.jobs._job + 1, transfer=transfer.to_json())
        c.jobs.submit([transfer], squares)
        c.jobs.activity = activity_for(transfer, size)

    def calibration_step(self, action: str, dx_mm: float = 0.0, dy_mm: float = 0.0,
                         path: str | None = None) -> None:
        from kiosk.calibration_session import ACTIONS, CalibrationSession

        if action not in ACTIONS:
            raise ValueError(f"unknown calibration step {action!r}; one of {', '.join(ACTIONS)}")
        self.check_motion("calibration")
        c = self.c
        board_name, config = c.jobs.board_name, c.config

        def step(mover: object) -> object:
            # runs on the gantry thread, the only place the session is touched
            session = self._calibration_session
            if session is None or session.board_name != board_name:
                session = CalibrationSession(mover, config, board_name)  # type: ignore[arg-type]
                self._calibration_session = session
            return session.step(action, dx_mm, dy_mm, path)

        job = c.jobs.next_job()
        c.record("staff_calibration", job=job, action=action, dx=float(dx_mm), dy=float(dy_mm))
        c.jobs.activity = RobotActivity(ActivityCode.CALIBRATION, {"action": action})
        c.gantry.run(job, f"calibration {action}", step)

    def calibration_status(self) -> CalibrationStatus | None:
        """The latest kiosk.calibration_session.CalibrationStatus, or None before any step."""
        # (a "ran" event carries what step() below returned: a CalibrationStatus)
        return cast("CalibrationStatus | None", self.calibration)

    def on_ran(self, result: object) -> None:
        self.calibration = result

    def camera_snapshot(self) -> "np.ndarray | None":
        return self.c.camera.snapshot()

    def setup_board(self, variant: str) -> None:
        """Set the start position of `variant` without starting a game."""
        c = self.c
        if c.state not in (State.IDLE, State.GAME_OVER):
            raise RuntimeError(f"cannot set up the board while {c.state.value}")
        installed_board_for(c.config, variant)
        board = Board(variant)
        c.record("staff_setup", variant=variant)
        c.staff_setup(variant, board.pieces())

    def pieces_back(self) -> None:
        """Staff put the missing pieces (from the tray, the floor) into storage: the kiosk
        counts storage again as holding every piece it does not see on the board."""
        c = self.c
        observed = c.watch.stable() or c.watch.latest() or {}
        variant = c.current_variant()
        c.record("staff_pieces_back", variant=variant)
        c.jobs.recount_storage(observed, variant)
        c.notice = None
        log.info("staff: pieces are back; storage counted again for %s", variant)
        goal = c.jobs.goal
        if goal is not None and c.state == State.PLACE_PIECE:
            goal.attempts = 0
            goal.answered = True          # staff have looked: a carry the camera cannot see is taken
            # the robot's move waits for the camera's next look in VERIFY, whence it plans again or is done;
            # from ROBOT_MOVING, done would be a transition the state machine has not (a hard-light museum
            # day, seed 19: staff said the pieces were back after a carry the camera could not see, the next
            # look took it, and the controller stopped on "no transition from robot_moving to visitor_turn")
            if goal.purpose == Purpose.MOVE and goal.phase == Phase.VERIFY:
                c.set_state(State.VERIFY)
            else:
                c.resume_goal_state(goal.purpose)

    # "count storage again" is the same act seen from the other side: staff counted
    # the slots by hand and the storage is full again
    recount_storage = pieces_back

    def call_staff(self, why: str, squares: str) -> None:
        """Nobody helped: a visible, non-blocking notice and a WARNING log line; the game is kept."""
        c = self.c
        if c.notice == why:
            return
        c.notice = why
        c.record("staff_called", why=why, squares=squares)
        picture = self.keep_camera_picture() if why.startswith("camera:") else None
        log.warning("staff needed at the kiosk: %s (%s); the game is kept and waits%s", why, squares,
                    f"; the camera's picture: {picture}" if picture else "")

    def keep_camera_picture(self) -> str | None:
        """The camera's newest picture, saved in the state directory's `camera/` when staff are called because
        the board is not read: what the person who comes (or reads the log later) needs to see why (a bag on a
        corner marker, a lamp's glare, the camera knocked). Only the newest CAMERA_PICTURES_KEPT are kept, so a
        long day's calls cannot fill the card. None when the camera keeps no frames or the file cannot be
        written (logged; the call stands)."""
        image = self.camera_snapshot()
        if image is None:
            return None
        import cv2

        folder = Path(self.c.state_dir) / "camera"
        path = folder / time.strftime("staff-call-%Y%m%d-%H%M%S.png")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not cv2.imwrite(str(path), image):
                raise OSError("the picture could not be encoded")
            for old in sorted(folder.glob("staff-call-*.png"))[:-CAMERA_PICTURES_KEPT]:
                old.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("the camera's picture for staff could not be saved in %s: %s", folder, exc)
            return None
        return str(path)

