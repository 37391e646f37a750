"""Report a position only when the scene has been still long enough.

A visitor's hand moves pieces, hovers, comes back; the robot's pieces slide.
A reading is trusted only after the board has been seen, with all four
markers, unchanged for `stable_s` seconds: the rectified picture barely
differs from frame to frame and every square keeps its class. Each still
period yields its position once.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader import Reading


@dataclass
class StableEvent:
    reading: Reading
    since: float           # when the stillness began
    at: float


@dataclass
class StabilityStatus:
    state: str             # "unreadable" | "moving" | "settling" | "stable"
    reason: str = ""
    event: StableEvent | None = None


class StabilityTracker:
    """Feed it every frame's outcome; it says when a still position is ready."""

    def __init__(self, stable_s: float, motion_level: float = 6.0, motion_fraction: float = 0.01):
        self.stable_s = stable_s
        self.motion_level = motion_level          # grey levels a pixel must change by
        self.motion_fraction = motion_fraction    # share of the board that may change
        self._thumb: np.ndarray | None = None
        self._classes: list | None = None
        self._since: float | None = None
        self._reported = False

    def reset(self) -> None:
        self._thumb, self._classes, self._since, self._reported = None, None, None, False

    def unreadable(self, t: float, reason: str) -> StabilityStatus:
        self.reset()
        return StabilityStatus("unreadable", reason)

    def update(self, t: float, reading: Reading) -> StabilityStatus:
        thumb = cv2.resize(cv2.cvtColor(reading.rectified, cv2.COLOR_BGR2GRAY), (96, 96),
                           interpolation=cv2.INTER_AREA).astype(np.int16)
        classes = reading.classes
        moving = False
        if self._thumb is not None:
            changed = np.abs(thumb - self._thumb) > self.motion_level
            moving = changed.mean() > self.motion_fraction or classes != self._classes
        self._thumb, self._classes = thumb, classes
        if self._since is None or moving:
            self._since = t
            self._reported = False
            return StabilityStatus("moving" if moving else "settling")
        if t - self._since < self.stable_s:
            return StabilityStatus("settling")
        if self._reported:
            return StabilityStatus("stable")
        self._reported = True
        return StabilityStatus("stable", event=StableEvent(reading, self._since, t))
