"""A pinhole camera above the board, for the renderer.

The pose follows docs/hardware.md: 600-800 mm away, looking down at up to
25 degrees from vertical, turned by any angle about its axis, a little lens
distortion. The focal length is chosen so that the four markers span most of
the image, as the spec says they do.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraModel:
    """Intrinsics, distortion and the board-to-camera pose (OpenCV conventions)."""

    K: np.ndarray            # 3x3
    dist: np.ndarray         # k1 k2 p1 p2 k3
    R: np.ndarray            # 3x3 board -> camera rotation
    t: np.ndarray            # 3 translation
    size: tuple[int, int]    # width, height

    @property
    def center(self) -> np.ndarray:
        """Camera centre in board millimetres."""
        return -self.R.T @ self.t

    def project(self, points: np.ndarray) -> np.ndarray:
        """Board-frame 3D points (N x 3, mm) to distorted pixel coordinates (N x 2)."""
        rvec, _ = cv2.Rodrigues(self.R)
        px, _ = cv2.projectPoints(np.asarray(points, np.float64).reshape(-1, 1, 3), rvec, self.t, self.K, self.dist)
        return px.reshape(-1, 2)

    def plane_homography(self) -> np.ndarray:
        """Undistorted image pixels from board-plane (z = 0) millimetres."""
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])


def look_at(center: np.ndarray, target: np.ndarray, roll_rad: float) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and translation of a camera at `center` looking at `target`, turned by `roll_rad`."""
    z = target - center
    z = z / np.linalg.norm(z)
    helper = np.array([0.0, -1.0, 0.0]) if abs(z[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    c, s = math.cos(roll_rad), math.sin(roll_rad)
    xr, yr = c * x + s * y, -s * x + c * y
    R = np.stack([xr, yr, z])
    return R, -R @ center


def sample_camera(rng: np.random.Generator, board_width: float, extent: float, size: tuple[int, int],
                  max_tilt_deg: float, distance_mm: tuple[float, float], distortion: float,
                  fill: tuple[float, float]) -> CameraModel:
    """A random camera pose whose image holds the square [-extent, board_width + extent]^2.

    `fill` is the fraction of the limiting image dimension the marker area spans.
    """
    w, h = size
    tilt = math.radians(rng.uniform(0.0, max_tilt_deg))
    azimuth = rng.uniform(0.0, 2 * math.pi)
    roll = rng.uniform(0.0, 2 * math.pi)
    distance = rng.uniform(*distance_mm)
    mid = board_width / 2
    target = np.array([mid + rng.normal(0, 10), mid + rng.normal(0, 10), 0.0])
    center = target + distance * np.array([math.sin(tilt) * math.cos(azimuth),
                                           math.sin(tilt) * math.sin(azimuth), math.cos(tilt)])
    R, t = look_at(center, target, roll)
    lo, hi = -extent, board_width + extent
    corners = np.array([[lo, lo, 0], [hi, lo, 0], [hi, hi, 0], [lo, hi, 0]], np.float64)
    cam = (R @ corners.T).T + t
    nx, ny = cam[:, 0] / cam[:, 2], cam[:, 1] / cam[:, 2]
    f = rng.uniform(*fill) * min((w / 2) / np.abs(nx).max(), (h / 2) / np.abs(ny).max())
    K = np.array([[f, 0, w / 2 + rng.normal(0, 4)], [0, f, h / 2 + rng.normal(0, 4)], [0, 0, 1]])
    k1 = rng.uniform(-distortion, distortion)
    dist = np.array([k1, -0.3 * k1, 0.0, 0.0, 0.0])
    return CameraModel(K=K, dist=dist, R=R, t=t, size=size)


def board_to_image_maps(cam: CameraModel, tex_from_board: np.ndarray, step: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """remap() maps: for every (distorted) output pixel, the texture pixel it shows.

    Computed on a coarse grid and interpolated: the mapping is smooth, and this
    keeps a 1280x720 frame well under the renderer's time budget.
    """
    w, h = cam.size
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    px = np.stack(np.meshgrid(gx, gy), -1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(px, cam.K, cam.dist, P=cam.K).reshape(-1, 2)
    Hinv = tex_from_board @ np.linalg.inv(cam.plane_homography())
    hom = np.column_stack([ideal, np.ones(len(ideal))]) @ Hinv.T
    tex = hom[:, :2] / hom[:, 2:3]
    mx = tex[:, 0].reshape(len(gy), len(gx)).astype(np.float32)
    my = tex[:, 1].reshape(len(gy), len(gx)).astype(np.float32)
    up = np.array([[step, 0, 0], [0, step, 0]], np.float64)
    mx = cv2.warpAffine(mx, up, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.warpAffine(my, up, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return mx, my
