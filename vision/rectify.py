"""A top-down picture of the playing area, whatever the camera's pose.

The rectified image has a fixed number of pixels per square (so the
classifier's windows do not depend on the board), its row 0 at the far (+y)
edge so it looks like the board upright, and a margin round the playing area
so windows near the edge, shifted by the pieces' height, stay inside.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry


@dataclass(frozen=True)
class RectifiedFrame:
    """Board millimetres <-> rectified pixels."""

    ppm: float          # rectified pixels per board millimetre
    margin_mm: float
    width_mm: float     # playing area

    @property
    def pixels(self) -> int:
        return int(round((self.width_mm + 2 * self.margin_mm) * self.ppm))

    def matrix(self) -> np.ndarray:
        """Rectified pixel (col, row) from board (x, y) mm."""
        s, m, w = self.ppm, self.margin_mm, self.width_mm
        return np.array([[s, 0, m * s - 0.5], [0, -s, (w + m) * s - 0.5], [0, 0, 1]], np.float64)

    def to_px(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, np.float64)
        s, m, w = self.ppm, self.margin_mm, self.width_mm
        return np.stack([(xy[..., 0] + m) * s - 0.5, (w + m - xy[..., 1]) * s - 0.5], -1)


def pixel_index(pts: np.ndarray, n: int) -> np.ndarray:
    """Index into an n x n picture's flattened pixels of the pixel nearest each (column, row) point,
    kept on the picture: one take() from the flat array is several times faster than indexing by
    rows and columns (vision/features.py, vision/shape.py sample thousands of points a frame)."""
    px = np.round(pts).astype(np.int32)
    np.clip(px, 0, n - 1, out=px)
    return px[..., 1] * n + px[..., 0]


def rectified_frame(geometry: BoardGeometry, px_per_square: int = 48) -> RectifiedFrame:
    return RectifiedFrame(ppm=px_per_square / geometry.pitch, margin_mm=geometry.pitch / 2, width_mm=geometry.width)


def rectify(image: np.ndarray, H: np.ndarray, frame: RectifiedFrame,
            K: np.ndarray | None = None, dist: np.ndarray | None = None) -> np.ndarray:
    """Warp `image` to the rectified board. H maps board mm to (undistorted) image pixels.

    With a calibrated lens the warp goes through the distortion model pixel by
    pixel (a remap); otherwise one perspective warp suffices.
    """
    n = frame.pixels
    img_from_rect = H @ np.linalg.inv(frame.matrix())
    if K is None or dist is None or not np.any(dist):
        return cv2.warpPerspective(image, img_from_rect, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    u, v = np.meshgrid(np.arange(n, dtype=np.float64), np.arange(n, dtype=np.float64))
    pts = np.stack([u.ravel(), v.ravel(), np.ones(n * n)], 0)
    ideal = img_from_rect @ pts
    ideal = ideal[:2] / ideal[2]
    norm = np.linalg.inv(K) @ np.vstack([ideal, np.ones(n * n)])
    x, y = norm[0], norm[1]
    d = np.zeros(5)
    d[:min(5, len(dist))] = np.asarray(dist, np.float64).ravel()[:5]
    k1, k2, p1, p2, k3 = d
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    mx = (K[0, 0] * xd + K[0, 2]).reshape(n, n).astype(np.float32)
    my = (K[1, 1] * yd + K[1, 2]).reshape(n, n).astype(np.float32)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
