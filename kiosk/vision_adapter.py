"""The camera's two halves for the controller: where frames come from, and how they are read.

WHY one module: it is the only place that knows the vision package's API
(vision.reader.BoardReader, vision.renderer.render_frame) and the camera
hardware (OpenCV's VideoCapture), so the camera thread and the controller
stay the same with a real camera or a rendered one.

- `VisionFrameReader`: frame -> CameraReading through the vision reader
  (markers, homography, hand check, per-square class probabilities).
- `SimFrameSource`: renders the simulated world through the vision renderer,
  from one fixed camera pose (a mounted camera); a hand over the table is
  drawn as the renderer's arm. Each scene (the pieces, a hand) is rendered
  once (rendering costs ~0.5 s of CPU) and every frame of it gets new sensor
  noise: the room's light does not jump from frame to frame, so the
  stability tracker's picture comparison (vision/stability.py) sees a still
  board as still. A still scene gives a new frame every `still_period_s`,
  or at once when the controller asks (`refresh`).
- `UvcFrameSource`: the real camera (vision.sources.CameraSource), reopened
  when it disappears (unplugged and back).
"""
from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Callable, Protocol

import numpy as np

from calibration.config import Config
from engine import Piece

from kiosk.camera_thread import Frame
from kiosk.ports import CameraReading
from kiosk.simworld import WorldSnapshot

if TYPE_CHECKING:
    from vision.sources import FrameSource

log = logging.getLogger("kiosk.vision")

#: vision's class index (vision.position.SquareClass) -> engine piece
_PIECE_OF_CLASS: tuple[Piece | None, ...] = (None, Piece.ATTACKER, Piece.DEFENDER, Piece.KING)


class VisionFrameReader:
    """FrameReader on vision.reader.BoardReader; one reader per board (it learns the board's look)."""

    def __init__(self, config: Config, board_name: str | None = None, *, learn: bool = True,
                 model_path: str | None = None) -> None:
        from vision.classifier import SquareClassifier
        from vision.reader import BoardReader

        # model_path: another fitted square model than vision's built-in one
        self._make = lambda name: BoardReader(
            config, name, classifier=SquareClassifier.load(model_path) if model_path else None)
        self.board_name = board_name or config.board
        self.reader = self._make(self.board_name)
        self.learn = learn
        self._held_told: set[int] = set()     # corner markers said in the log to be taken where they were

    def use_board(self, board_name: str, variant: str) -> None:
        if board_name != self.board_name:
            self.board_name = board_name
            self.reader = self._make(board_name)
            self._held_told = set()

    def read(self, frame: Frame, seq: int) -> CameraReading:
        from vision.localise import NotReadable

        try:
            reading = self.reader.read(frame.image)
        except NotReadable as exc:
            # (the refusal itself as raw: its rectified picture, if any, tells BoardWatch whether anything moved)
            return CameraReading(seq, frame.t, False, str(exc), raw=exc)
        self._note_held(reading.view.held)
        classes = reading.probabilities.argmax(1)
        conf = reading.probabilities.max(1)
        return CameraReading(seq, frame.t, True, None,
                             tuple(_PIECE_OF_CLASS[int(c)] for c in classes),
                             tuple(float(c) for c in conf), raw=reading)

    def _note_held(self, held: tuple[int, ...]) -> None:
        """Says once in the log (per marker and board) when a corner marker is first taken where it was
        (something over it: glare, a bag, a peeled label): the kiosk plays on, but whoever reads the log
        should know that a bumped board would then stop it until the marker is seen again. Once only:
        a marker at the edge of a lamp's glare may come and go with the sensor's noise."""
        for mid in held:
            if mid not in self._held_told:
                self._held_told.add(mid)
                log.warning("camera: corner marker %d not seen on %s; taken where it was, as the other three "
                            "have not moved", mid, self.board_name)

    def hands_off(self) -> None:
        """The visitor says no hand is over the picture last refused as "hand over board"."""
        if not self.reader.hands_off():
            log.info("no picture to trust: nothing was refused as a hand")

    def confirm(self, reading: CameraReading, squares: dict[int, Piece]) -> None:
        """The controller confirmed what this frame showed: let the classifier learn the look."""
        from vision.reader import Reading

        if self.learn and isinstance(reading.raw, Reading):
            try:
                self.reader.learn(reading.raw, {sq: p.value for sq, p in squares.items()})
            except Exception:   # learning is an improvement, never a failure
                log.exception("classifier learning failed")


class WorldView(Protocol):
    """What the renderer reads of the simulated world: a SimWorld, or a remote one (kiosk/simnode.py)."""

    def snapshot(self) -> WorldSnapshot: ...


class SimFrameSource:
    """FrameFeed that renders the simulated world (see the module docstring)."""

    def __init__(self, world: WorldView, config: Config, *, seed: int = 0, condition: str = "museum",
                 still_period_s: float = 2.0, frame_period_s: float = 0.1, settle_s: float = 0.12,
                 render_hands: bool = True, noise_sigma: float = 2.0, busy: Callable[[], bool] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, fixed_look: bool = False) -> None:
        self.world, self.config = world, config
        self.seed = seed
        self.condition = condition
        self.still_period_s = still_period_s
        self.frame_period_s = frame_period_s
        self.settle_s = settle_s
        self.render_hands = render_hands
        self.busy = busy
        self._last_image: np.ndarray | None = None
        self._last_render = -1e9
        self.clock = clock
        self.sleep = sleep          # a camera's frame interval (a no-op when a simulated clock steps it)
        self._cameras: dict[str, object] = {}
        # fixed_look: one physical board per camera, its wood drawn once (vision.renderer board_look)
        self.fixed_look = fixed_look
        self._looks: dict[str, dict] = {}
        self._frame_no = 0
        self._scene_no = 0
        self._scene_key: object = None
        self._scene_image: np.ndarray | None = None
        self.noise_sigma = noise_sigma
        self._last_key: object = None
        self._seen_key: object = None
        self._seen_since = 0.0
        self.dropout_until = -1.0          # a simulated unplugged camera
        self.frames_rendered = 0
        self._lock = threading.Lock()

    def use_board(self, board_name: str, variant: str) -> None:
        pass          # the world knows its board; a camera per board is kept below

    def refresh(self) -> None:
        """Render the next frame afresh even if the scene has not changed."""
        self._last_render = -1e9

    def unplug(self, seconds: float) -> None:
        self.dropout_until = self.clock() + seconds

    def _camera(self, board_name: str):
        from vision.renderer import render_frame

        if board_name not in self._cameras:
            # one mounted camera per board: its pose is drawn once and kept
            pieces: dict[int, str] = {}
            self._cameras[board_name] = render_frame(pieces, board_name, seed=self.seed,
                                                     condition=self.condition, config=self.config).camera
        return self._cameras[board_name]

    def grab(self) -> Frame | None:
        from vision.renderer import render_frame

        now = self.clock()
        if now < self.dropout_until:
            self.sleep(0.05)
            return None
        if self.busy is not None and self.busy() and self._last_image is not None:
            # the gantry is carrying pieces; the controller looks again once it is done
            self.sleep(self.frame_period_s)
            return Frame(self.clock(), self._last_image, repeat=True)
        snap = self.world.snapshot()
        key = (snap.board_name, tuple(sorted(snap.squares.items())), snap.hand is not None)
        if key == self._last_key and self._last_image is not None and now - self._last_render < self.still_period_s:
            self.sleep(self.frame_period_s)
            return Frame(self.clock(), self._last_image, repeat=True)
        if key != self._seen_key:
            self._seen_key, self._seen_since = key, now
        if snap.hand is not None and not self.render_hands:
            self.sleep(self.frame_period_s / 2)
            return None          # (tests) the camera sees nothing useful under a hand anyway
        if now - self._seen_since < self.settle_s:
            # the scene is changing (a piece being dragged, a hand coming in): the
            # controller waits for stillness anyway, so no picture is made of it
            self.sleep(self.frame_period_s / 2)
            return None
        self._frame_no += 1
        if key != self._scene_key or self._scene_image is None:
            # a new scene (a piece moved, a hand came or went): rendered once, its light drawn afresh
            self._scene_no += 1
            hand_seed = int(snap.hand.until * 1000) if snap.hand is not None else 0
            rendered = render_frame(snap.squares, snap.board_name,
                                    seed=self.seed * 1_000_003 + (hand_seed if snap.hand else self._scene_no),
                                    condition=self.condition, hand=snap.hand is not None, config=self.config,
                                    camera=self._camera(snap.board_name),
                                    board_look=self._looks.setdefault(snap.board_name, {}) if self.fixed_look
                                    else None)
            self.frames_rendered += 1
            self._scene_key, self._scene_image = key, rendered.image
        # the same room and light from frame to frame; what changes is the sensor's noise
        image = self._with_noise(self._scene_image)
        self._last_key, self._last_render = key, now
        self._last_image = image
        return Frame(snap.t, image)

    def _with_noise(self, image: np.ndarray) -> np.ndarray:
        rng = np.random.default_rng((self.seed, self._frame_no))
        noise = rng.normal(0.0, self.noise_sigma, image.shape[:2])[..., None]
        return np.clip(image + noise, 0, 255).astype(np.uint8)

    def close(self) -> None:
        pass


class UvcFrameSource:
    """FrameFeed on a camera as vision owns it (vision.sources.FrameSource): by default the
    real one, vision.sources.CameraSource (reopens after a dropout)."""

    def __init__(self, config: Config, source: FrameSource | None = None) -> None:
        if source is None:
            from vision.sources import CameraSource

            cam = config.camera
            source = CameraSource(cam.device, cam.width, cam.height, cam.fps)
        self.source: FrameSource = source

    def use_board(self, board_name: str, variant: str) -> None:
        pass

    def refresh(self) -> None:
        """Nothing to do: a real camera delivers a new picture with every frame."""

    def grab(self) -> Frame | None:
        item = self.source.read()
        if item is None:
            time.sleep(0.05)
            return None
        image, t = item
        return Frame(t, image)

    def close(self) -> None:
        self.source.close()
