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


def points_key(*arrays: np.ndarray) -> tuple:
    """A hashable key of arrays' contents (dtype, shape and bytes each): the points a frame asks for again, the
    indices pixel_index gave for them kept by it (vision/shape.OutlineMeter, vision/features.FeatureExtractor)."""
    return tuple((a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, arrays))


def rectified_frame(geometry: BoardGeometry, px_per_square: int = 48) -> RectifiedFrame:
    return RectifiedFrame(ppm=px_per_square / geometry.pitch, margin_mm=geometry.pitch / 2, width_mm=geometry.width)


#: the lens's remap is worked out on a grid this many rectified pixels apart and interpolated between: the
#: map is smooth (a perspective and a radial term), so linear interpolation over 8 pixels is exact to well under
#: a hundredth of a pixel, and it costs a fiftieth of working out all 330,000 pixels (33 ms a frame)
MAP_STEP = 8


def rectify(image: np.ndarray, H: np.ndarray, frame: RectifiedFrame,
            K: np.ndarray | None = None, dist: np.ndarray | None = None) -> np.ndarray:
    """Warp `image` to the rectified board. H maps board mm to (undistorted) image pixels.

    With a lens model (calibrated, or fitted from the grid: vision/lens_fit.py) the warp goes through the
    distortion model (a remap); otherwise one perspective warp suffices.
    """
    n = frame.pixels
    img_from_rect = H @ np.linalg.inv(frame.matrix())
    if K is None or dist is None or not np.any(dist):
        return cv2.warpPerspective(image, img_from_rect, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    mx, my = _lens_maps(n, img_from_rect, K, dist)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _lens_maps(n: int, img_from_rect: np.ndarray, K: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Image pixel (x and y maps) of each rectified pixel, through the perspective and the lens.

    Worked out at MAP_STEP's coarse points and resized: cv2.resize puts coarse point j at fine pixel
    (j + 0.5) * step - 0.5, so the coarse points are taken there, with one more on each side so that
    the fine pixels at the edges are interpolated too, not held at the first point.
    """
    step = MAP_STEP
    m = -(-n // step) + 2
    at = (np.arange(m, dtype=np.float64) - 0.5) * step - 0.5
    u, v = np.meshgrid(at, at)
    pts = np.stack([u.ravel(), v.ravel(), np.ones(u.size)], 0)
    ideal = img_from_rect @ pts
    px = lens_distort((ideal[:2] / ideal[2]).T, K, dist)
    size = (m * step, m * step)
    mx = cv2.resize(px[:, 0].reshape(m, m).astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
    my = cv2.resize(px[:, 1].reshape(m, m).astype(np.float32), size, interpolation=cv2.INTER_LINEAR)
    return mx[step:step + n, step:step + n], my[step:step + n, step:step + n]


def lens_distort(ideal: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """(N, 2) undistorted image pixels -> pixels as the lens shows them (OpenCV's model: k1 k2 p1 p2 k3)."""
    x, y = ((np.asarray(ideal, np.float64) - K[:2, 2]) / np.diag(K)[:2]).T
    d = np.zeros(5)
    d[:min(5, len(dist))] = np.asarray(dist, np.float64).ravel()[:5]
    k1, k2, p1, p2, k3 = d
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.column_stack([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]])
