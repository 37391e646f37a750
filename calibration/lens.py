"""Lens calibration from views of a printed ChArUco sheet.

The overhead camera's lens may distort a little (docs/hardware.md); square
centres near the image edge move by a millimetre or more if that is ignored.
A ChArUco sheet gives identified chessboard corners even when the sheet is
partly out of view, so a technician can wave it under the camera and every
frame that shows enough of it becomes a view for cv2.calibrateCamera.

The sheet uses a different dictionary (5x5) from the frame markers (4x4), so
the board's own markers in the background can never be mistaken for it.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np


@dataclass(frozen=True)
class CharucoSpec:
    """The printed lens-calibration sheet; defaults fit A4 landscape."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 35.0
    marker_mm: float = 26.0
    dictionary: str = "DICT_5X5_100"

    def __post_init__(self) -> None:
        if self.squares_x < 3 or self.squares_y < 3:
            raise ValueError("a ChArUco sheet needs at least 3 x 3 squares")
        if not 0 < self.marker_mm < self.square_mm:
            raise ValueError("the ChArUco marker must be smaller than its square")
        if not hasattr(cv2.aruco, self.dictionary):
            raise ValueError(f"unknown ArUco dictionary {self.dictionary!r}")

    def board(self) -> "cv2.aruco.CharucoBoard":
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm,
                                      self.marker_mm, dictionary)

    def describe(self) -> str:
        return (f"ChArUco {self.squares_x} x {self.squares_y} squares of {self.square_mm:g} mm, "
                f"markers {self.marker_mm:g} mm, {self.dictionary}")


@dataclass
class CharucoView:
    """The sheet's corners found in one frame."""

    object_points: np.ndarray     # N x 3, mm on the sheet
    image_points: np.ndarray      # N x 2, pixels
    ids: np.ndarray               # N corner ids
    source: str = ""


@dataclass(frozen=True)
class LensCalibration:
    camera_matrix: np.ndarray
    distortion: np.ndarray
    rms_px: float                                  # reprojection error over all corners
    view_errors_px: tuple[float, ...]              # per view, to spot a bad frame
    image_size: tuple[int, int]                    # width, height
    views: int

    def matrix_list(self) -> list[list[float]]:
        return [[round(float(v), 6) for v in row] for row in self.camera_matrix]

    def distortion_list(self) -> list[float]:
        return [round(float(v), 8) for v in np.asarray(self.distortion).reshape(-1)]


class CharucoFinder:
    """Finds the sheet's corners in frames."""

    def __init__(self, spec: CharucoSpec, min_corners: int = 8):
        self.spec = spec
        self.board = spec.board()
        self.detector = cv2.aruco.CharucoDetector(self.board)
        self.min_corners = min_corners

    def find(self, image: np.ndarray, source: str = "") -> CharucoView | None:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _marker_corners, _marker_ids = self.detector.detectBoard(grey)
        if ids is None or len(ids) < self.min_corners:
            return None
        # (cv2's stub wants a list of corner arrays; ChArUco's corners are one array, as detected)
        obj, img = self.board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        if obj is None or len(obj) < self.min_corners:
            return None
        obj = obj.reshape(-1, 3).astype(np.float32)
        if np.linalg.matrix_rank(obj[:, :2] - obj[:, :2].mean(axis=0), tol=1e-3) < 2:
            return None                 # all on one row: no information about the plane
        return CharucoView(obj, img.reshape(-1, 2).astype(np.float32), ids.reshape(-1), source)


class ViewCollector:
    """Keeps views that add information: a new view must differ from every kept one.

    Consecutive video frames are nearly identical; feeding them all to the
    solver costs time and over-weights one pose. A view is kept when the
    sheet's centre moved or its apparent size or turn changed enough.
    """

    def __init__(self, finder: CharucoFinder, min_shift_px: float = 40.0):
        self.finder = finder
        self.min_shift_px = min_shift_px
        self.views: list[CharucoView] = []
        self.image_size: tuple[int, int] | None = None
        self._signatures: list[np.ndarray] = []
        self.frames_seen = 0

    def offer(self, image: np.ndarray, source: str = "") -> bool:
        self.frames_seen += 1
        h, w = image.shape[:2]
        if self.image_size is None:
            self.image_size = (w, h)
        elif self.image_size != (w, h):
            raise ValueError(f"{source or 'frame'} is {w}x{h} but earlier frames were "
                             f"{self.image_size[0]}x{self.image_size[1]}")
        view = self.finder.find(image, source)
        if view is None:
            return False
        signature = self._signature(view)
        if any(np.max(np.abs(signature - s)) < self.min_shift_px for s in self._signatures):
            return False
        self.views.append(view)
        self._signatures.append(signature)
        return True

    @staticmethod
    def _signature(view: CharucoView) -> np.ndarray:
        """Where three fixed sheet points land: centre, and the ends of two axes (via a homography)."""
        h, _ = cv2.findHomography(view.object_points[:, :2], view.image_points)
        if h is None:
            return view.image_points.mean(axis=0)
        obj = view.object_points[:, :2]
        lo, hi = obj.min(axis=0), obj.max(axis=0)
        probe = np.array([[(lo + hi) / 2], [[hi[0], lo[1]]], [[lo[0], hi[1]]]], np.float64)
        return cv2.perspectiveTransform(probe, h).reshape(-1)


def calibrate(views: list[CharucoView], image_size: tuple[int, int]) -> LensCalibration:
    """Intrinsics and distortion (k1 k2 p1 p2 k3) from the views; needs at least 4 of them."""
    if len(views) < 4:
        raise ValueError(f"need at least 4 different views of the ChArUco sheet, have {len(views)}")
    obj = [v.object_points.reshape(-1, 1, 3) for v in views]
    img = [v.image_points.reshape(-1, 1, 2) for v in views]
    rms, matrix, dist, rvecs, tvecs = cv2.calibrateCamera(obj, img, image_size, None, None)
    errors = []
    for o, i, r, t in zip(obj, img, rvecs, tvecs):
        projected, _ = cv2.projectPoints(o, r, t, matrix, dist)
        errors.append(float(np.sqrt(np.mean(np.sum((projected - i) ** 2, axis=2)))))
    return LensCalibration(matrix, dist.reshape(-1), float(rms), tuple(errors), image_size, len(views))


# --------------------------------------------------------------------------- frame sources

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


def folder_frames(folder: str) -> Iterator[tuple[str, np.ndarray]]:
    """Every readable image in a folder, in name order."""
    names = sorted(p for p in glob.glob(os.path.join(folder, "*"))
                   if p.lower().endswith(IMAGE_EXTENSIONS))
    if not names:
        raise ValueError(f"{folder}: no images (.png, .jpg, ...) in this folder")
    for name in names:
        image = cv2.imread(name, cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{name}: not a readable image")
        yield os.path.basename(name), image


def capture_frames(source: str, every: int = 1, width: int | None = None,
                   height: int | None = None) -> Iterator[tuple[str, np.ndarray]]:
    """Frames of a video file or a camera (an index such as "0" or a device path)."""
    capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
    if not capture.isOpened():
        raise ValueError(f"{source}: cannot open this camera or video")
    try:
        if width and height:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        index = 0
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            if index % every == 0:
                yield f"frame {index}", frame
            index += 1
    finally:
        capture.release()


def frames_from(source: str, every: int = 1, width: int | None = None,
                height: int | None = None) -> Iterator[tuple[str, np.ndarray]]:
    """A folder of images, a video file, or a live camera."""
    if os.path.isdir(source):
        return folder_frames(source)
    if os.path.isfile(source) and source.lower().endswith(IMAGE_EXTENSIONS):
        raise ValueError(f"{source}: one image is not enough; give a folder of images or a video")
    return capture_frames(source, every, width, height)
