"""A known pinhole camera over the flat board, for the calibration tests' rendered frames.

The scene is drawn flat (board, grid, the four markers drawn by the printables
code), then warped through a camera with a known pose, tilt and lens
distortion, supersampled 2x. Ground truth is therefore exact: every square
centre's true pixel is the camera's projection of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.config import Config
from calibration.geometry import BoardGeometry
from calibration.printables import Sheet, draw_marker

IMAGE_SIZE = (1280, 720)


@dataclass
class PinholeCamera:
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray        # board -> camera
    t: np.ndarray
    size: tuple[int, int] = IMAGE_SIZE

    def plane_homography(self) -> np.ndarray:
        """Board mm (z = 0) to ideal (undistorted) pixels."""
        return self.K @ np.column_stack((self.R[:, 0], self.R[:, 1], self.t))

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.column_stack((points_mm, np.zeros(len(points_mm)))).reshape(-1, 1, 3)
        rvec, _ = cv2.Rodrigues(self.R)
        out, _ = cv2.projectPoints(pts, rvec, self.t, self.K, self.dist)
        return out.reshape(-1, 2)


def make_camera(target_mm, distance_mm, tilt_deg, tilt_dir_deg, roll_deg, f_px=620.0,
                dist=(0.0, 0.0, 0.0, 0.0, 0.0)) -> PinholeCamera:
    """A camera ``distance_mm`` from ``target_mm`` on the board, its axis ``tilt_deg`` from vertical."""
    tilt, azimuth = math.radians(tilt_deg), math.radians(tilt_dir_deg)
    target = np.array([target_mm[0], target_mm[1], 0.0])
    centre = target + distance_mm * np.array([math.sin(tilt) * math.cos(azimuth),
                                              math.sin(tilt) * math.sin(azimuth), math.cos(tilt)])
    z = (target - centre) / np.linalg.norm(target - centre)
    helper = np.array([0.0, 1.0, 0.0])            # image up is board +y before the roll
    x = np.cross(z, helper)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
    xr, yr = c * x + s * y, -s * x + c * y
    R = np.stack([xr, yr, z])
    K = np.array([[f_px, 0, IMAGE_SIZE[0] / 2 + 7.5], [0, f_px, IMAGE_SIZE[1] / 2 - 4.0], [0, 0, 1]])
    return PinholeCamera(K, np.array(dist, float), R, -R @ centre)


_IDEAL: dict[tuple, np.ndarray] = {}


def _ideal_pixels(k: bytes, dist: bytes, size: tuple[int, int], ss: int) -> np.ndarray:
    """Undistorted position of every (supersampled) pixel centre; cached per lens, as it is slow."""
    key = (k, dist, size, ss)
    if key not in _IDEAL:
        w, h = size
        us, vs = np.meshgrid((np.arange(w * ss) + 0.5) / ss - 0.5, (np.arange(h * ss) + 0.5) / ss - 0.5)
        pix: np.ndarray = np.stack([us.ravel(), vs.ravel()], axis=1)
        kk = np.frombuffer(k).reshape(3, 3)
        dd = np.frombuffer(dist)
        if np.any(dd):
            pix = cv2.undistortPoints(pix.reshape(-1, 1, 2), kk, dd, P=kk).reshape(-1, 2)
        _IDEAL.clear()                      # one lens at a time: bounded memory
        _IDEAL[key] = pix
    return _IDEAL[key]


def render(texture: Sheet, cam: PinholeCamera, supersample: int = 2) -> np.ndarray:
    """The flat texture as the camera sees it (grey), with lens distortion, anti-aliased."""
    w, h = cam.size
    ss = supersample
    pix = _ideal_pixels(cam.K.tobytes(), cam.dist.tobytes(), cam.size, ss)
    board = cv2.perspectiveTransform(pix.reshape(-1, 1, 2), np.linalg.inv(cam.plane_homography()))
    board = board.reshape(-1, 2)
    scale = texture.dpi / 25.4
    tx = (board[:, 0] - texture.origin_mm[0]) * scale - 0.5      # pixel-centre coordinates
    ty = (texture.origin_mm[1] - board[:, 1]) * scale - 0.5
    mapx = tx.reshape(h * ss, w * ss).astype(np.float32)
    mapy = ty.reshape(h * ss, w * ss).astype(np.float32)
    big = cv2.remap(texture.image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=90)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


def board_texture(config: Config, px_per_mm: float = 4.0, marker_scale: float = 1.0,
                  shift_mm: dict[int, tuple[float, float]] | None = None,
                  hidden: tuple[int, ...] = ()) -> Sheet:
    """A top-down picture of the board and its frame (grey levels), in a Sheet's mm mapping."""
    geo = BoardGeometry.from_config(config)
    reach = config.markers.offset_mm + config.markers.size_mm / 2 + 25.0
    lo, hi = -reach, geo.width + reach
    dpi = px_per_mm * 25.4
    n = int(round((hi - lo) * px_per_mm))
    sheet = Sheet(np.full((n, n), 235, np.uint8), dpi, (lo, hi))

    def rect(x0, y0, x1, y1, value):
        c0, r1 = sheet.to_px(x0, y0)
        c1, r0 = sheet.to_px(x1, y1)
        sheet.image[int(round(r0)):int(round(r1)), int(round(c0)):int(round(c1))] = value

    w, p = geo.width, geo.pitch
    rect(0, 0, w, w, 185)                                    # wood
    for k in range(geo.size + 1):                            # grid lines 1.5 mm
        rect(k * p - 0.75, 0, k * p + 0.75, w, 70)
        rect(0, k * p - 0.75, w, k * p + 0.75, 70)
    for index, marker_id in enumerate(config.markers.ids):
        if marker_id in hidden:
            cx, cy = geo.marker_center(index)
            rect(cx - 25, cy - 25, cx + 25, cy + 25, 40)     # a hand over it
            continue
        dx, dy = (shift_mm or {}).get(marker_id, (0.0, 0.0))
        cx, cy = geo.marker_center(index)
        hs = config.markers.size_mm / 2 * marker_scale
        corners = [(cx + dx - hs, cy + dy + hs), (cx + dx + hs, cy + dy + hs),
                   (cx + dx + hs, cy + dy - hs), (cx + dx - hs, cy + dy - hs)]
        draw_marker(sheet, config.markers.dictionary, marker_id, corners)
    return sheet


def calibrated_config(cam: PinholeCamera) -> Config:
    config = Config()
    config.camera.camera_matrix = [[float(v) for v in row] for row in cam.K]
    config.camera.distortion = [float(v) for v in cam.dist]
    return config


CENTRE = (220.0, 220.0)
