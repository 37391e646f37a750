"""The camera as the controller sees it: still readings, doubts about them, and signs of life.

WHY one part: every decision the controller takes on the board ("the visitor
moved", "the robot's move is done", "the pieces are back") waits for the same
thing: a reading that has been the same for `stable_s` seconds with no hand
over the board, that rests on squares read with confidence, and that two
independently taken pictures show. The same stream of readings also says
whether somebody is at the board (a hand, a change), which is what the
attendance timer (kiosk/attendance.py) needs.
"""
from __future__ import annotations

import logging
from typing import Callable

import numpy as np

from engine import Piece

from kiosk.ports import CameraPort, CameraReading
from kiosk.reconcile import diff_squares

log = logging.getLogger("kiosk.board_watch")

#: a square read with less confidence than this is not acted on alone: the
#: watch asks for a fresh frame (up to MAX_UNSURE_FRAMES times) first
SURE_CONFIDENCE = 0.9
MAX_UNSURE_FRAMES = 3


class StillBoard:
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

    def update(self, reading: CameraReading) -> bool:
        """Take a reading in; True when the board changed or became unreadable (a sign of life)."""
        if reading.seq == self.last_seq:
            return False
        self.last_seq = reading.seq
        if not reading.ok:
            changed = self.squares is not None
            self.squares = None
            self.reading = None
            return changed or not reading.ok
        changed = reading.squares != self.squares
        if changed:
            self.squares = reading.squares
            self.run_start = reading.t
            self.fresh = 0
        self.fresh += 1 if reading.fresh else 0
        self.reading = reading
        self.last_t = reading.t
        return changed

    def stable(self, not_before: float = 0.0) -> dict[int, Piece] | None:
        if self.squares is None:
            return None
        start = max(self.run_start, not_before)
        if self.last_t <= not_before or self.last_t - start < self.stable_s:
            return None
        return {sq: p for sq, p in enumerate(self.squares) if p is not None}

    def latest(self) -> dict[int, Piece] | None:
        """The newest readable squares, still or not (for showing a move the moment it is seen)."""
        if self.squares is None:
            return None
        return {sq: p for sq, p in enumerate(self.squares) if p is not None}


class BoardWatch:
    """Feeds the camera's readings to `StillBoard` and decides when a change may be acted on."""

    def __init__(self, camera: CameraPort, stable_s: float, clock: Callable[[], float]) -> None:
        self.camera = camera
        self.still = StillBoard(stable_s)
        self.clock = clock
        self.camera_ok = False
        self.camera_reason: str | None = "camera.waiting"
        self.last_sign_of_life = clock()
        self._unsure_seq = -1
        self._unsure_count = 0

    def update(self) -> None:
        reading = self.camera.read_latest()
        if reading is None:
            return
        if self.still.update(reading) or (not reading.ok and reading.reason != "camera.no_frames"):
            self.last_sign_of_life = self.clock()
        self.camera_ok = reading.ok
        self.camera_reason = reading.reason

    def stable(self, not_before: float = 0.0) -> dict[int, Piece] | None:
        return self.still.stable(not_before)

    def unsure(self, squares: dict[int, Piece], expected: dict[int, Piece]) -> bool:
        """True while every difference from `expected` rests on squares read with low
        confidence: ask the camera for a fresh frame instead of acting on a misread."""
        reading = self.still.reading
        if reading is None or not reading.confidence:
            return False
        diff = diff_squares(squares, expected)
        if not diff or any(reading.confidence[sq] >= SURE_CONFIDENCE for sq in diff):
            self._unsure_count = 0
            return False
        if reading.seq != self._unsure_seq:
            self._unsure_seq = reading.seq
            self._unsure_count += 1
            self.camera.refresh()
        if self._unsure_count > MAX_UNSURE_FRAMES:
            self._unsure_count = 0
            return False
        return True

    def seen_twice(self) -> bool:
        """A change is acted on only once two independently taken pictures show it
        (a real camera gives many; the simulation repeats a still picture, so ask)."""
        reading = self.still.reading
        if self.still.fresh >= 2 or reading is None or not reading.confidence:
            return True
        self.camera.refresh()
        return False

    def confirm(self, squares: dict[int, Piece]) -> None:
        """The stable reading showed exactly `squares`: let the reader learn the look."""
        if self.still.reading is None:
            return
        try:
            self.camera.confirm(self.still.reading, squares)
        except Exception:   # learning is an improvement, never a failure
            log.exception("camera confirm failed")

    def probabilities(self) -> np.ndarray | None:
        """The vision reader's class probabilities of the still reading, if it gives them."""
        raw = getattr(self.still.reading, "raw", None)
        probs = getattr(raw, "probabilities", None)
        return probs if isinstance(probs, np.ndarray) else None
