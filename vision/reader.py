"""One frame in, the board's squares out (or the reason it cannot be read).

markers -> homography -> rectified board -> hand check -> square features ->
class probabilities. The reader holds the classifier, so what it learns from
confirmed positions carries over to the next frames of the game.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.config import Config
from calibration.geometry import BoardGeometry
from engine import pieces_from_position, position_from_pieces
from vision.classifier import SquareClassifier
from vision.features import FeatureExtractor, SquareFeatures
from vision.localise import BoardLocaliser, BoardView, NotReadable
from vision.occlusion import FrameBandChecker, GridChecker, foreign_squares, largest_cluster
from vision.position import SquareClass, marked_squares, pieces_from_classes
from vision.rectify import rectified_frame, rectify

# A frame whose brightest parts are this dim shows nothing (grey levels, 8 bit).
DARK_FRAME_LEVEL = 40.0
# Bare wood dimmer than this cannot separate ivory from wood reliably.
DARK_WOOD_LEVEL = 28.0
# Bare wood brighter than this (grey level) is near the sensor's clipping
# point: confidence there falls by a factor 1 + (level - this) / GLARE_SCALE.
GLARE_WOOD_LEVEL = 235.0
GLARE_SCALE = 4.0


@dataclass
class Reading:
    """What one frame shows."""

    probabilities: np.ndarray        # (squares, 4): empty, attacker, defender, king
    features: SquareFeatures
    view: BoardView
    rectified: np.ndarray
    size: int

    @property
    def classes(self) -> list[SquareClass]:
        return [SquareClass(int(c)) for c in self.probabilities.argmax(1)]

    @property
    def confidence(self) -> np.ndarray:
        return self.probabilities.max(1)

    @property
    def pieces(self) -> dict[int, str]:
        return pieces_from_classes(self.classes)

    @property
    def position(self) -> str:
        return position_from_pieces(self.pieces, self.size)


class BoardReader:
    """Reads a board from frames of the overhead camera."""

    def __init__(self, config: Config | None = None, board: str | None = None,
                 classifier: SquareClassifier | None = None):
        self.config = config or Config()
        self.board = board or self.config.board
        if self.board not in self.config.boards:
            raise ValueError(f"unknown board {self.board!r}; known: {', '.join(self.config.boards)}")
        self.geometry = BoardGeometry.from_config(self.config, self.board)
        self.localiser = BoardLocaliser(self.geometry, self.config.markers, self.config.camera)
        self.frame = rectified_frame(self.geometry)
        self.extractor = FeatureExtractor(self.geometry, self.config.pieces, self.frame)
        self.grid = GridChecker(self.geometry, self.frame)
        self.band = FrameBandChecker(self.geometry, self.frame)
        self.marked = np.zeros(self.size * self.size, bool)
        self.marked[list(marked_squares(self.size))] = True
        self.classifier = classifier or SquareClassifier.load()

    @property
    def size(self) -> int:
        return self.geometry.size

    def locate(self, image: np.ndarray, track: bool = True) -> tuple[BoardView, np.ndarray]:
        """The board's pose and its rectified picture; raises NotReadable.

        `track` looks for the markers near their last places first (a live
        camera); pass False for unrelated images.
        """
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        small = gray[::8, ::8]
        if float(np.percentile(small, 95)) < DARK_FRAME_LEVEL:
            raise NotReadable("too dark")
        view = self.localiser.locate(gray, track=track)
        K = self.localiser.K
        dist = self.localiser.dist
        rect = rectify(image, view.H, self.frame, K, dist)
        return view, rect

    def read(self, image: np.ndarray, track: bool = True) -> Reading:
        """Read one BGR frame; raises NotReadable with the reason."""
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("expected a BGR colour image")
        view, rect = self.locate(image, track=track)
        rect_gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
        grid = self.grid.check(rect_gray)
        if self.grid.occluded(grid):
            raise NotReadable("hand over board")
        feats = self.extractor.extract(rect, view.camera_center)
        foreign = largest_cluster(foreign_squares(feats.wood_chroma, self.marked, self.size))
        crossing = self.band.longest_run(self.band.deviating(rect)) > 0
        # hidden grid crossings suffice; off-colour squares only with something crossing the frame too
        # (spotlights of another colour temperature tint a few squares as well)
        if foreign >= 3 and crossing:
            raise NotReadable("hand over board")
        if float(np.median(feats.wood_lum)) < DARK_WOOD_LEVEL:
            raise NotReadable("too dark")
        # near-white wood: glare has clipped the picture there, and a light
        # piece may differ from it only by a faint outline
        glare = 1.0 + np.maximum(0.0, feats.wood_lum - GLARE_WOOD_LEVEL) / GLARE_SCALE
        probs = self.classifier.probabilities(feats.values, self.marked, temper=glare, crown=feats.crown)
        blown = feats.saturated
        if blown.any():                 # glare: the camera saw pure white, nothing to judge by
            probs[blown] = 1.0 / probs.shape[1]
        return Reading(probabilities=probs, features=feats, view=view, rectified=rect, size=self.size)

    def learn(self, reading: Reading, pieces: dict[int, str] | str) -> None:
        """Teach the classifier that this frame showed `pieces` (a confirmed position)."""
        if isinstance(pieces, str):
            pieces = pieces_from_position(pieces, self.size)
        labels = np.array([int(SquareClass.from_letter(pieces.get(sq))) for sq in range(self.size ** 2)])
        self.classifier.learn(reading.features.values, labels, self.marked)
