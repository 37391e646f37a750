"""Is the board still? A position once it has been still for a short time, fused over the still frames.

WHY: a visitor's hand moves pieces, hovers, comes back; the robot's pieces
slide. A reading is trusted only after the board has been seen, with all
four markers, unchanged for `stable_s` seconds (the configuration's
`camera.stable_s`, short: the hand has already left when the frames are
readable again) and in at least `min_frames` independently taken pictures:
no square's patch of the rectified picture changes its mean brightness
(MOTION_LEVEL) from one frame to the next, nor from the still run's first
frame until the run is reported (a hand or an arm moving slowly over the
board, by less than MOTION_LEVEL a frame, is not still: a hand moves, glare
does not), and no square *confidently* changes its class. At 30 fps and the default still time the
position is there within about `stable_s` + one frame of the hand leaving
the board (bench/confirm_latency.py measures it).

The frames of one still period are fused (`fuse`): a square's probabilities
are the mean over the period's frames, or, when a clear majority of them read
it surely as one class and none surely as another, the mean of those sure
ones (a picture in doubt is not a picture against). Glare does not move with the pieces, but
sensor noise and a passing shadow do, and a real piece does not flicker:
a square read differently from frame to frame comes out unsure (lower
confidence) instead of as whatever the last frame said, and the move
reader (vision/inference.py) then holds back rather than guess.

This is the one owner of board-stillness tracking, for the kiosk
(kiosk/board_watch.py feeds it every camera reading), `tafl-vision watch`
and the benchmarks. The API:

    tracker = StabilityTracker.from_config(config.camera)   # or StabilityTracker(stable_s=0.3)
    status = tracker.update(t, reading)       # a vision.reader.Reading taken at time t (seconds)
    status = tracker.observe(t, probabilities, image=None, fresh=True)
                                              # the same from per-square class probabilities (and the
                                              # rectified picture, if any); fresh=False: a repeated picture
    status = tracker.unreadable(t, reason, image=exc.picture, scene=exc.scene)
                                              # the frame at t was NotReadable (hand, markers, dark); a
                                              # refused picture unchanged from the still run keeps the run
    status.kept                               # ... as this says (tracker.unchanged(picture) asks without feeding)
    tracker.refused_still_since               # since when the refusals' pictures (or, with no board
                                              # found, whole frames) have not changed; None while readable
    tracker.reset(not_before=t)               # forget the still run; ignore frames before t
    status.state                              # StillState: unreadable | moving | settling | stable
    status.event                              # StableEvent once per still period, else None
    tracker.still(not_before=t)               # the current still period, fused over its frames from t
                                              # on, once those are still for stable_s (else None):
                                              # e.g. the robot's move checked from the frames after
                                              # the gantry stopped
    tracker.latest                            # the newest readable frame's probabilities, still or not
    event.probabilities, .reading             # fused probabilities; the latest Reading with them (or None)
    event.frames, .since, .at                 # pictures fused, when stillness began, the newest frame
"""
from __future__ import annotations

import dataclasses
import math
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.config import CameraConfig

if TYPE_CHECKING:
    from vision.reader import Reading

# A square changing class with at least this confidence in both frames means
# something moved (a piece slid, a hand put one down); less sure changes are
# flicker, fused away.
SURE_CHANGE = 0.9
# Grey levels the mean of a square's patch of the rectified board must change
# by for the frame to count as moved. The mean of a patch, not its pixels: the
# homography wobbles by a fraction of a pixel from frame to frame and the
# sensor is noisy, which moves pixels on every line and rim by more than a
# piece's worth but leaves a square's mean within about 1.6 levels (measured
# on bench/foreign_renderer.py's museum frames), while a piece arriving or
# leaving changes it by 7 to 26.
MOTION_LEVEL = 4.0
# A square read surely as one class in at least this share of the still pictures, and surely as
# no other in any, is fused from its sure pictures alone (`fuse`): a clear majority, so a square
# that flickers between sure and doubtful half the time stays unsure.
SURE_SHARE = 2 / 3
CELL_PX = 8               # a square's patch is averaged down to this many pixels a side first
# Independently taken pictures a still period needs: one picture can be a
# misread, two that agree are not (a real camera gives many in the still
# time; a simulated one repeats a still picture until asked for another).
MIN_FRAMES = 2
# Pictures of one still period kept for fusing (about 2 s at 30 fps).
MAX_FUSED = 64
# Refused pictures (`refused_still_since`) are compared patch by patch on a grid this many patches
# across: no reading gives the board's size then, and patches about a square's size tell a hand
# moving from a sensor's noise as the squares do (on a whole frame, a patch is a little larger).
REFUSED_PATCHES = 11


class StillState(str, Enum):
    UNREADABLE = "unreadable"     # the last frame could not be read (the reason says why)
    MOVING = "moving"             # the board changed since the last frame
    SETTLING = "settling"         # still, but not yet for `stable_s` (or not yet in `min_frames` pictures)
    STABLE = "stable"             # still for `stable_s` (the event comes once per still period)


@dataclass(frozen=True)
class StableEvent:
    probabilities: np.ndarray   # (squares, 4), the mean over the still frames
    reading: Reading | None     # the latest frame's vision Reading with the fused probabilities (None when
                                # the frames came as bare probabilities)
    since: float                # when the stillness began (or the `not_before` asked for)
    at: float                   # the newest frame's time
    frames: int                 # independently taken pictures fused

    @property
    def confidence(self) -> np.ndarray:
        return self.probabilities.max(1)


@dataclass
class StabilityStatus:
    state: StillState
    reason: str = ""
    event: StableEvent | None = None
    kept: bool = False          # (unreadable) the refused picture was the still run's (`unchanged`): the run goes on


def fuse(frames: list[np.ndarray]) -> np.ndarray:
    """The still run's pictures -> one reading: each square's mean over the pictures, except that a
    square read surely as one class in at least SURE_SHARE of them, and surely as no other in any,
    is the mean of those sure pictures.

    WHY: the reader doubts a square when one of its tests lands near its threshold, and sensor
    noise moves it across from picture to picture: a defender read 0.95 in three pictures of four
    and 0.6 "perhaps" in the fourth came out 0.85 on the mean, unsure for as long as the board
    stayed still (3.4 s in bench/confirm_latency.py, museum, 60M, trial 11), though no picture
    said anything else. A doubtful picture is not evidence against the sure ones; a picture sure
    of another class is, and then the mean (unsure) stands, as does a square sure in too few.
    """
    stack = np.asarray(frames)                            # pictures x squares x classes
    fused = stack.mean(axis=0)
    classes = stack.argmax(axis=2)
    sure = np.take_along_axis(stack, classes[:, :, None], axis=2)[:, :, 0] >= SURE_CHANGE
    votes = np.stack([(sure & (classes == c)).sum(axis=0) for c in range(stack.shape[2])], axis=1)
    best = votes.argmax(axis=1)
    top = votes.max(axis=1)
    alone = votes.sum(axis=1) == top                      # no picture surely of another class
    agreed = alone & (top > 0) & (top >= SURE_SHARE * len(frames))
    pick = sure & (classes == best) & agreed              # pictures x squares: the sure ones that count
    sums = (stack * pick[:, :, None]).sum(axis=0)
    fused[agreed] = sums[agreed] / top[agreed, None]
    return fused


def square_means(image: np.ndarray, size: int) -> np.ndarray:
    """The mean grey level of each square's patch of a rectified board picture (size x size)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(gray, (size * CELL_PX, size * CELL_PX), interpolation=cv2.INTER_AREA).astype(np.float32)
    return small.reshape(size, CELL_PX, size, CELL_PX).mean(axis=(1, 3))


def patches_moved(before: np.ndarray, now: np.ndarray, level: float = MOTION_LEVEL) -> bool:
    """True when any patch's mean (`square_means`) moved by more than `level` grey levels: something moved."""
    return float(np.abs(now - before).max()) > level


class StabilityTracker:
    """Feed it every frame's outcome; it says when a still position is ready (see the module doc)."""

    def __init__(self, stable_s: float, motion_level: float = MOTION_LEVEL, min_frames: int = MIN_FRAMES):
        if stable_s < 0:
            raise ValueError(f"stable_s must be >= 0, not {stable_s}")
        self.stable_s = float(stable_s)
        self.motion_level = motion_level
        self.min_frames = max(1, int(min_frames))
        self.not_before = -math.inf
        self.latest: np.ndarray | None = None       # the newest readable frame's probabilities
        # the refused pictures since the last readable one, while they stand unchanged (`refused_still_since`)
        self.refused_still_since: float | None = None
        self._refused_thumb: tuple[bool, np.ndarray] | None = None     # (of the whole frame, patch means)
        self._clear()

    @classmethod
    def from_config(cls, camera: CameraConfig) -> "StabilityTracker":
        return cls(camera.stable_s)

    def _clear(self) -> None:
        self._thumb: np.ndarray | None = None
        self._anchor: np.ndarray | None = None      # the still run's first picture, until it is reported
        self._last: np.ndarray | None = None        # last frame's probabilities
        self._frames: deque[tuple[float, np.ndarray]] = deque(maxlen=MAX_FUSED)   # the still run's pictures
        self._since: float | None = None
        self._t = -math.inf                         # the newest frame's time
        self._reading: Reading | None = None
        self._reported = False
        self._refused: list[float] = []             # when the still run's pictures were refused (`unchanged`)

    def reset(self, not_before: float = -math.inf) -> None:
        """Forget the still run; frames taken before `not_before` are ignored from now on."""
        self.not_before = not_before
        self.refused_still_since, self._refused_thumb = None, None
        self._clear()

    def unreadable(self, t: float, reason: str, *, keep_run: bool = False,
                   image: np.ndarray | None = None, scene: np.ndarray | None = None) -> StabilityStatus:
        """The frame at `t` could not be read. It ends the still run, unless `keep_run`: only the
        board's pose was lost in this picture (a corner marker lost in dim light, one frame in
        five on a hard day: ending the run each time kept a still board from ever being still),
        nothing was seen over the board; or `image`, the refused frame's rectified picture
        (vision.localise.NotReadable.picture), is the still run's picture (`unchanged`). The run
        then goes on, and the next readable picture is compared with the last one as usual, so a
        piece moved meanwhile still starts it again. `scene`: the whole frame where no board was found
        (vision.localise.NotReadable.scene), for `refused_still_since` only."""
        if t < self.not_before:
            return StabilityStatus(StillState.UNREADABLE, reason)
        self._refused_run(t, image, scene)
        if self.unchanged(image):
            self._refused.append(t)
            return StabilityStatus(StillState.UNREADABLE, reason, kept=True)
        if not keep_run:
            self._clear()
            self.latest = None
        return StabilityStatus(StillState.UNREADABLE, reason)

    def _refused_run(self, t: float, image: np.ndarray | None, scene: np.ndarray | None) -> None:
        """Note since when the refused pictures have stood unchanged (`refused_still_since`): no
        patch's mean moved by `motion_level` from the first of them. The board's picture is compared
        where there is one; where no board was found, the whole frame (`scene`), never one with the
        other. A refusal with neither (no frame) ends the refused run, and so does a readable one
        (`observe`).

        WHY: a board refused in every picture and never changing is no visitor's hand, which moves;
        it is light the reader takes for one, or something left lying on the board or on a corner
        marker, or a room whose light was switched off. The kiosk counts it no sign of life (so an
        abandoned game pauses) and, for glare, after a while asks the visitor (kiosk/board_watch.py)."""
        whole = image is None
        shown = scene if whole else image
        if shown is None:
            self.refused_still_since, self._refused_thumb = None, None
            return
        thumb = square_means(shown, REFUSED_PATCHES)
        if (self._refused_thumb is None or self._refused_thumb[0] != whole
                or patches_moved(self._refused_thumb[1], thumb, self.motion_level)):
            self.refused_still_since, self._refused_thumb = t, (whole, thumb)

    def unchanged(self, image: np.ndarray | None) -> bool:
        """True when `image`, the rectified picture of a frame the reader refused, is the still run's
        picture: no square's mean differs by `motion_level` from the last readable picture's, nor from
        the run's first.

        WHY: a hand coming in over the board changes the squares it covers by far more than that
        (7 to 26 grey levels for a piece alone); a refusal in an unchanged picture is the reader's
        doubt about one noisy picture, not a hand. Hard light, fresh seeds 98,043,017: a veil's clipped
        streak refused as "hand over board" in one exposure of nine, each refusal ending the still run
        that the others were building; a kiosk in such light waited on and on for a board it could read.
        A run in which more pictures were refused than read is no still board all the same (`still`): a
        hand held still whose picture the reader took for a board now and then is refused most of the time.
        """
        if image is None or self._thumb is None or self._last is None:
            return False
        thumb = square_means(image, math.isqrt(len(self._last)))
        return all(earlier is None or (earlier.shape == thumb.shape
                                       and not patches_moved(earlier, thumb, self.motion_level))
                   for earlier in (self._thumb, self._anchor))

    def _moved(self, thumb: np.ndarray | None, probs: np.ndarray) -> bool:
        if self._last is None or self._last.shape != probs.shape:
            return False
        for earlier in (self._thumb, self._anchor):
            if thumb is not None and earlier is not None and thumb.shape == earlier.shape:
                if patches_moved(earlier, thumb, self.motion_level):
                    return True
        before, now = self._last.argmax(1), probs.argmax(1)
        sure = (self._last.max(1) >= SURE_CHANGE) & (probs.max(1) >= SURE_CHANGE)
        return bool(((before != now) & sure).any())

    def update(self, t: float, reading: Reading) -> StabilityStatus:
        """A vision Reading taken at `t` (its rectified picture shows motion)."""
        return self.observe(t, reading.probabilities, reading.rectified, reading=reading)

    def observe(self, t: float, probabilities: np.ndarray, image: np.ndarray | None = None, *,
                fresh: bool = True, reading: Reading | None = None) -> StabilityStatus:
        """One frame's per-square class probabilities taken at `t`; `image` the rectified board
        picture if there is one; `fresh=False` for the very same picture again (it counts for
        the still time, not as another picture)."""
        if t < self.not_before:
            return StabilityStatus(StillState.SETTLING, "before the last reset")
        probs = np.asarray(probabilities, np.float64)
        self.latest = probs
        self.refused_still_since, self._refused_thumb = None, None
        self._t = max(self._t, t)
        if not fresh and self._since is not None:
            return self._status()
        thumb = None if image is None else square_means(image, math.isqrt(len(probs)))
        moving = self._moved(thumb, probs)
        self._thumb, self._last = thumb, probs
        self._reading = reading
        if self._since is None or moving:
            self._since, self._reported = t, False
            self._anchor = thumb
            self._frames.clear()
            self._refused.clear()
            self._frames.append((t, probs))
            return StabilityStatus(StillState.MOVING if moving else StillState.SETTLING)
        self._frames.append((t, probs))
        return self._status()

    def _status(self) -> StabilityStatus:
        event = self.still()
        if event is None:
            return StabilityStatus(StillState.SETTLING)
        if self._reported:
            return StabilityStatus(StillState.STABLE)
        self._reported = True
        self._anchor = None             # reported: from now on only a change from frame to frame is a move
        return StabilityStatus(StillState.STABLE, event=event)

    @property
    def picture(self) -> np.ndarray | None:
        """The newest readable picture's square means (`square_means`), or None when the newest frame
        was refused or gave no picture: what the board looks like now, to tell later whether it moved
        (`patches_moved`) however many still runs have come and gone meanwhile."""
        return self._thumb

    @property
    def run_since(self) -> float | None:
        """When the current still run began (None before the first readable picture, or after a
        reset): the run's name, the same for as long as nothing on the board moves."""
        return self._since

    def still(self, not_before: float = -math.inf) -> StableEvent | None:
        """The current still period, fused over its pictures taken from `not_before` on, once the
        board has been still for `stable_s` from then and seen in `min_frames` pictures; else None."""
        if self._since is None:
            return None
        since = max(self._since, not_before)
        frames = [p for t, p in self._frames if t >= since]
        if self._t - since < self.stable_s or len(frames) < self.min_frames:
            return None
        if sum(1 for t in self._refused if t >= since) > len(frames):
            return None                 # refused more often than read (`unchanged`)
        fused = fuse(frames)
        reading = dataclasses.replace(self._reading, probabilities=fused) if self._reading is not None else None
        return StableEvent(fused, reading, since, self._t, len(frames))

    def waiting_for_pictures(self, not_before: float = -math.inf) -> bool:
        """Still for long enough from `not_before` on, but seen in too few independently taken
        pictures since (the kiosk then asks the camera for another)."""
        if self._since is None:
            return False
        since = max(self._since, not_before)
        return (self._t - since >= self.stable_s
                and sum(1 for t, _ in self._frames if t >= since) < self.min_frames)
