"""The camera as the controller sees it: the still board, doubts about it, and signs of life.

WHY one part: every decision the controller takes on the board ("the visitor
moved", "the robot's move is done", "the pieces are back") waits for the same
thing: the board still, with no hand over it, for the configured still time
(`camera.stable_s`). Whether it is still is vision's to say
(vision.stability.StabilityTracker, the one owner of board stillness): this
part feeds it every camera reading, asks the camera for another picture when
the tracker needs one or the reading is in doubt, and keeps the signs of
life (a hand, a change) that the attendance timer (kiosk/attendance.py)
needs.
"""
from __future__ import annotations

import logging
import math
from typing import Callable

import numpy as np

from engine import Piece
from vision.inference import SURE, observation_of, pieces_of
from vision.localise import pose_lost
from vision.stability import StabilityTracker, StableEvent, StillState, patches_moved

from kiosk.ports import CameraPort, CameraReading

log = logging.getLogger("kiosk.board_watch")

#: a reading in doubt gets up to this many fresh pictures before the controller acts on it
MAX_UNSURE_FRAMES = 3
#: a corner marker lost for this long without a break is something over it (a sign of life); lost
#: now and then (dim light: about one picture in five on a hard day) it is not
MARKER_COVERED_S = 0.5
#: the board refused for glare alone (vision NotReadable.glare_only) in pictures that have not changed for this
#: long: the visitor is asked whether a hand is over it (BoardWatch.asks_hands_off); a hand moves
HANDS_OFF_ASK_S = 4.0
#: ... and refused as a hand the reader is sure of, in pictures unchanged this long: asked too (a hand does not
#: stay still to the grey level for half a minute; a picture the reader is wrong about stays all day)
SURE_HAND_ASK_S = 30.0


class LookAgain:
    """A still reading in doubt gets MAX_UNSURE_FRAMES more pictures over another still time
    before it is acted on (a passing shadow goes; glare that stays does not). The one owner of
    that rule: BoardWatch.ask_again, and bench/confirm_latency.py, which plays it."""

    def __init__(self, stable_s: float) -> None:
        self.stable_s = stable_s
        self._start: tuple[float, int, float] | None = None   # (still since, pictures, time) when the doubt began

    def spent(self, event: StableEvent) -> bool:
        """True once `event`'s still run has had its more pictures and still time since its doubt began."""
        if self._start is None or self._start[0] != event.since:
            self._start = (event.since, event.frames, event.at)
        return event.frames - self._start[1] >= MAX_UNSURE_FRAMES and event.at - self._start[2] >= self.stable_s


class BoardWatch:
    """Feeds the camera's readings to vision's stability tracker and decides when a change may be acted on."""

    def __init__(self, camera: CameraPort, stable_s: float, clock: Callable[[], float]) -> None:
        self.camera = camera
        self.tracker = StabilityTracker(stable_s)
        self.clock = clock
        self.camera_ok = False
        self.camera_reason: str | None = "camera.waiting"
        self.last_sign_of_life = clock()
        self.reading: CameraReading | None = None      # the newest readable reading
        self._last_seq = -1
        self._look_again = LookAgain(stable_s)
        self._markers_lost_since: float | None = None         # camera time the pose was first lost, if lost now
        self._glare_only = False              # the newest refusal was for glare alone (NotReadable.glare_only)
        self._refused_still_for = 0.0         # ... and its pictures have stood unchanged this long (camera time)
        self._settled_run: float | None = None    # the still run whose board the controller took (`settle`)
        self._settled_picture: np.ndarray | None = None     # ... and its picture's square means

    def update(self) -> None:
        """Take the camera's newest reading in (once per reading)."""
        reading = self.camera.read_latest()
        if reading is None or reading.seq == self._last_seq:
            return
        self._last_seq = reading.seq
        if not reading.ok:
            markers_lost = pose_lost(reading.reason)
            # a corner marker lost now and then (dim light) neither ends the still run nor makes the
            # board unseen: the last readable picture still stands for it
            status = self.tracker.unreadable(reading.t, reading.reason or "", keep_run=markers_lost,
                                             image=getattr(reading.raw, "picture", None),
                                             scene=getattr(reading.raw, "scene", None))
            if status.kept:
                # refused, but the picture is the still board's: the reader's doubt about one picture, not
                # a hand coming in (vision.stability.StabilityTracker.unchanged); the still run and the last
                # readable reading stand, and nothing is a sign of life
                return
            self.camera_ok, self.camera_reason = False, reading.reason
            lost_since = reading.t if self._markers_lost_since is None else self._markers_lost_since
            self._markers_lost_since = lost_since if markers_lost else None
            covered = not markers_lost or reading.t - lost_since >= MARKER_COVERED_S
            # a refused picture unchanged since an earlier refused one is nothing moving: light the reader
            # takes for a hand, something left on the board or on a corner marker, a dark room, stands
            # so all day; a hand does not
            still_since = self.tracker.refused_still_since
            self._glare_only = bool(getattr(reading.raw, "glare_only", False))
            self._refused_still_for = 0.0 if still_since is None else reading.t - still_since
            if reading.reason != "camera.no_frames" and covered and self._refused_still_for == 0.0:
                self.last_sign_of_life = self.clock()      # a hand over the board, or over a corner
            if covered:
                self.reading = None
            return
        self.camera_ok, self.camera_reason = True, reading.reason
        self._markers_lost_since = None
        self._glare_only, self._refused_still_for = False, 0.0
        raw = reading.raw
        probs = getattr(raw, "probabilities", None)
        if probs is None:
            size = math.isqrt(len(reading.squares))
            probs = observation_of(reading.occupancy(), size, reading.confidence)
        was_readable = self.reading is not None
        status = self.tracker.observe(reading.t, probs, getattr(raw, "rectified", None), fresh=reading.fresh)
        self.reading = reading
        if status.state is StillState.MOVING or not was_readable:
            self.last_sign_of_life = self.clock()

    @property
    def asks_hands_off(self) -> bool:
        """The board has been refused as "hand over board" in pictures that have not changed for
        HANDS_OFF_ASK_S when the refusal was for glare alone (vision NotReadable.glare_only), or for
        SURE_HAND_ASK_S when the reader was sure: the visitor is asked whether a hand is over it, and may
        say not (`hands_off`).

        WHY: in light the reader takes for a hand (a glare streak, a lamp's clipped core over the lines)
        the kiosk would otherwise wait for as long as the light stays, and tell the visitor to take away
        a hand that is not there. A refusal the reader is sure of is asked about much later: a hand it
        sees as a hand moves, and a hard-light museum day (seed 15) waited in the robot's verify on a
        hand-free picture the reader was sure of until three visitors' games were lost.
        """
        if self.camera_ok or self.camera_reason != "hand over board":
            return False
        return self._refused_still_for >= (HANDS_OFF_ASK_S if self._glare_only else SURE_HAND_ASK_S)

    def hands_off(self) -> None:
        """The visitor says no hand is over the board (`asks_hands_off`): the camera reads its still
        picture trusting that (vision.reader.BoardReader.hands_off) until the picture changes; the
        move it shows is then checked as any other."""
        if not self.asks_hands_off:
            return
        log.info("visitor: no hand is over the board (refused %s for %.1f s)",
                 "for glare alone" if self._glare_only else "as a hand", self._refused_still_for)
        self._glare_only, self._refused_still_for = False, 0.0
        self.camera.hands_off()

    def still(self, not_before: float = -math.inf) -> StableEvent | None:
        """The still board fused over its pictures from `not_before` on, or None while it is not
        still (then, when only another picture is missing, the camera is asked for one)."""
        event = self.tracker.still(not_before)
        if event is None and self.tracker.waiting_for_pictures(not_before):
            self.camera.refresh()
        return event

    def stable(self, not_before: float = -math.inf) -> dict[int, Piece] | None:
        """The still board's likeliest pieces (see `still`)."""
        event = self.still(not_before)
        return None if event is None else pieces_of(event.probabilities)

    def latest(self) -> dict[int, Piece] | None:
        """The newest readable squares, still or not."""
        latest = self.tracker.latest
        return None if latest is None or self.reading is None else pieces_of(latest)

    def latest_probabilities(self) -> np.ndarray | None:
        """The newest readable frame's class probabilities (for showing a move the moment it is seen)."""
        return self.tracker.latest if self.reading is not None else None

    def ask_again(self, event: StableEvent) -> bool:
        """The reading of `event` is in doubt: True while a fresh picture is worth waiting for (the
        camera is asked for one), False once MAX_UNSURE_FRAMES more pictures over another still
        time have not settled it (a passing shadow goes; glare that stays does not)."""
        if self._look_again.spent(event):
            return False
        self.camera.refresh()
        return True

    def unsure(self, event: StableEvent, squares: dict[int, Piece], expected: dict[int, Piece]) -> bool:
        """True while every difference from `expected` rests on squares read with low confidence
        and a fresh picture may still settle it (see `ask_again`)."""
        diff = [sq for sq in set(squares) | set(expected) if squares.get(sq) != expected.get(sq)]
        if not diff or any(event.confidence[sq] >= SURE for sq in diff):
            return False
        return self.ask_again(event)

    @staticmethod
    def untouched_in_doubt(event: StableEvent, diff: dict[int, Piece | None], touched: frozenset[int]) -> set[int]:
        """The squares of `diff` (what the camera reads against what should be there) that lie outside
        `touched` and are read below SURE: there the camera has no evidence that anything changed.

        WHY: after the robot's own move, the squares it did not touch hold what they held before; a
        square the camera cannot make out there (a glare patch, a dim corner: MAX_UNSURE_FRAMES more
        pictures did not settle it) is no sign of a disturbed board, and asking a person to fix a
        board nobody disturbed stops the kiosk until staff come. A sure difference there (a piece
        knocked over, a visitor's hand) still counts.
        """
        return {sq for sq in diff if sq not in touched and event.confidence[sq] < SURE}

    def settle(self) -> None:
        """The controller took the current still run's board as the position (the robot's move
        confirmed, the board set up, the visitor's move played)."""
        self._settled_run = self.tracker.run_since
        self._settled_picture = self.tracker.picture

    @property
    def as_settled(self) -> bool:
        """The board has not moved since the controller took its position (`settle`): the still run
        is the one it was taken in, or the newest picture is that run's picture, no square's mean
        moved by the tracker's motion level (vision.stability.patches_moved).

        WHY: a visitor's move needs a hand, and a hand ends the still run; in the run already
        taken, nothing can have been played. A reading in doubt there (glare over a square the
        robot's move was confirmed in spite of: RobotJobs keeps such squares as planned) is the
        same picture read again, not a move to ask about, and telling the visitor "I could not
        see your move" before they moved is wrong. The run alone is too narrow: in hard light a run
        ends with nothing moved (a square flipping between two sure readings, a hand hovering over
        the board and taken back): a stop-46 debug run settled the board in one still run and said
        "I could not see your move" in the next, 4 s later, before the visitor moved. A piece set
        down or taken up changes its square's mean by 7 to 26 grey levels, well over the motion
        level; a picture that stays within it shows the board as it was taken.
        """
        if self._settled_run is None:
            return False
        if self.tracker.run_since == self._settled_run:
            return True
        then, now = self._settled_picture, self.tracker.picture
        return (then is not None and now is not None and then.shape == now.shape
                and not patches_moved(then, now, self.tracker.motion_level))

    def confirm(self, squares: dict[int, Piece]) -> None:
        """The still board showed exactly `squares`: let the reader learn the look."""
        if self.reading is None:
            return
        try:
            self.camera.confirm(self.reading, squares)
        except Exception:   # learning is an improvement, never a failure
            log.exception("camera confirm failed")
