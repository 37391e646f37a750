"""Report a position once the board has been still for a short time, fused over the still frames.

WHY: a visitor's hand moves pieces, hovers, comes back; the robot's pieces
slide. A reading is trusted only after the board has been seen, with all
four markers, unchanged for `stable_s` seconds (the configuration's
`camera.stable_s`): the rectified picture barely differs from frame to
frame and no square has *confidently* changed its class. Each still period
yields its position once, as soon as the still time is up: at 30 fps and
the default still time, within about `stable_s` + one frame of the hand
leaving the board (bench/confirm_latency.py measures it).

The frames of one still period are fused: a square's probabilities are the
mean over the period's frames. Glare does not move with the pieces, but
sensor noise and a passing shadow do, and a real piece does not flicker:
a square read differently from frame to frame comes out unsure (lower
confidence) instead of as whatever the last frame said, and the move
inference (vision/inference.py) then holds back rather than guess.

This is the one owner of board-stillness tracking. The API:

    tracker = StabilityTracker.from_config(config.camera)   # or StabilityTracker(stable_s=0.5)
    status = tracker.update(t, reading)       # a vision.reader.Reading taken at time t (seconds)
    status = tracker.unreadable(t, reason)    # the frame at t was NotReadable (hand, markers, dark)
    tracker.reset(not_before=t)               # forget the still run; ignore frames before t
                                              # (the gantry stopped at t: verify from the next frames)
    status.state                              # StillState: unreadable | moving | settling | stable
    status.event                              # StableEvent once per still period, else None
    status.event.reading                      # the latest Reading, its probabilities the fused ones
    status.event.frames, .since, .at          # frames fused, when stillness began, when reported
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np

from calibration.config import CameraConfig
from vision.reader import Reading

# A square changing class with at least this confidence in both frames means
# something moved (a piece slid, a hand put one down); less sure changes are
# flicker, fused away.
SURE_CHANGE = 0.9
# Grey levels a pixel of the 96 x 96 board thumbnail must change by, and the
# share of the thumbnail that may change, for a frame to count as still.
MOTION_LEVEL = 8.0
MOTION_FRACTION = 0.01
THUMB = 96


class StillState(str, Enum):
    UNREADABLE = "unreadable"     # the last frame could not be read (the reason says why)
    MOVING = "moving"             # the board changed since the last frame
    SETTLING = "settling"         # still, but not yet for `stable_s`
    STABLE = "stable"             # still for `stable_s` (the event comes once per still period)


@dataclass
class StableEvent:
    reading: Reading      # the latest frame's reading; probabilities fused over the still frames
    since: float          # when the stillness began
    at: float             # when it was reported
    frames: int           # frames fused


@dataclass
class StabilityStatus:
    state: StillState
    reason: str = ""
    event: StableEvent | None = None


class StabilityTracker:
    """Feed it every frame's outcome; it says when a still position is ready (see the module doc)."""

    def __init__(self, stable_s: float, motion_level: float = MOTION_LEVEL,
                 motion_fraction: float = MOTION_FRACTION):
        if stable_s < 0:
            raise ValueError(f"stable_s must be >= 0, not {stable_s}")
        self.stable_s = float(stable_s)
        self.motion_level = motion_level
        self.motion_fraction = motion_fraction
        self.not_before = -math.inf
        self._clear()

    @classmethod
    def from_config(cls, camera: CameraConfig) -> "StabilityTracker":
        return cls(camera.stable_s)

    def _clear(self) -> None:
        self._thumb: np.ndarray | None = None
        self._last: np.ndarray | None = None        # last frame's probabilities
        self._sum: np.ndarray | None = None         # sum of the still run's probabilities
        self._frames = 0
        self._since: float | None = None
        self._reported = False

    def reset(self, not_before: float = -math.inf) -> None:
        """Forget the still run; frames taken before `not_before` are ignored from now on."""
        self.not_before = not_before
        self._clear()

    def unreadable(self, t: float, reason: str) -> StabilityStatus:
        if t >= self.not_before:
            self._clear()
        return StabilityStatus(StillState.UNREADABLE, reason)

    def _moved(self, thumb: np.ndarray, probs: np.ndarray) -> bool:
        if self._thumb is None or self._last is None or self._last.shape != probs.shape:
            return False
        changed = np.abs(thumb - self._thumb) > self.motion_level
        if changed.mean() > self.motion_fraction:
            return True
        before, now = self._last.argmax(1), probs.argmax(1)
        sure = (self._last.max(1) >= SURE_CHANGE) & (probs.max(1) >= SURE_CHANGE)
        return bool(((before != now) & sure).any())

    def update(self, t: float, reading: Reading) -> StabilityStatus:
        if t < self.not_before:
            return StabilityStatus(StillState.SETTLING, "before the last reset")
        gray = cv2.cvtColor(reading.rectified, cv2.COLOR_BGR2GRAY) if reading.rectified.ndim == 3 else reading.rectified
        thumb = cv2.resize(gray, (THUMB, THUMB), interpolation=cv2.INTER_AREA).astype(np.int16)
        probs = np.asarray(reading.probabilities, np.float64)
        moving = self._moved(thumb, probs)
        self._thumb, self._last = thumb, probs
        if self._since is None or moving:
            self._since, self._reported = t, False
            self._sum, self._frames = probs.copy(), 1
            return StabilityStatus(StillState.MOVING if moving else StillState.SETTLING)
        self._sum = probs if self._sum is None else self._sum + probs
        self._frames += 1
        if t - self._since < self.stable_s:
            return StabilityStatus(StillState.SETTLING)
        if self._reported:
            return StabilityStatus(StillState.STABLE)
        self._reported = True
        fused = dataclasses.replace(reading, probabilities=self._sum / self._frames)
        return StabilityStatus(StillState.STABLE, event=StableEvent(fused, self._since, t, self._frames))
