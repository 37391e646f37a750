"""Glare: the soft veil of light a lamp or window leaves on the varnish, found and taken off again.

WHY: a glare patch is light *added* to whatever lies under it (wood, grid
lines and pieces alike), white or nearly so, and smooth over several
squares. Added white light keeps the differences between the colour
channels and lifts all of them, so the wood under a veil looks paler and
brighter, and an empty square in the middle of a veil looks like ivory to a
classifier that compares colours. Light that *multiplies* (a spotlight, a
dim room, a shadow) scales the channels instead and keeps their ratios.

So every bit of bare wood is split into the two: observed = a * wood
colour + v * white, with the wood colour taken from the board itself (the
median over its bare wood, most of which no veil covers). `v` is the veil's
strength there in grey levels. It is measured on a quarter-size picture
(4 px, a tenth of a square: streaks of glare can be narrower than a square)
only where bare wood can be (not on the piece discs a square could hold,
nor on the darker marked squares), smoothed there, and carried over the
piece discs from the wood round them. The grid-line check for a hand
(vision/occlusion.py) looks at the picture with the veil subtracted as well
as at the picture as taken (a veil lifts a line to the wood's brightness).
The square features are measured on the picture as taken: on the
development frames the subtraction's small errors cost the colour model
more than the veil did. Instead a square where the veil is a large share
of the light, or the wood is clipped white, keeps a lowered confidence
(`GlareField.share`, `.clipped`; vision/reader.py): the camera saw little
of it. Coloured light (a stage gel) can pass for a faint veil.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from vision.rectify import RectifiedFrame
from vision.robust import mean_last, median

# The veil is measured on the rectified picture shrunk by this factor.
STEP = 4
# Smoothing of the measured veil (sigma, in shrunk pixels), and the wider one
# that carries it over the piece discs where no wood shows.
SMOOTH = 1.2
FILL = 4.0
# Piece discs masked out of the measurement: this many piece radii round the
# base and the top (the side wall of an ivory piece is as pale as a veil).
DISC_RADII = 1.45
# A veil fainter than this (grey levels) is noise and JPEG, not glare.
MIN_VEIL = 6.0
# Of a channel's level at most this share is taken as veil (the rest is the wood's own colour).
MAX_VEIL_SHARE = 0.85
# Wood brighter than this in its dimmest channel is clipped white by the sensor:
# the split into wood and veil no longer holds, and the square is seen as white.
CLIPPED_LEVEL = 238.0
# A red channel above this is (nearly) clipped and says nothing of the veil.
RED_CLIPPED = 245.0
# A square counts as clipped when this share of its bare wood is.
CLIPPED_SHARE = 0.2


@dataclass(frozen=True)
class GlareField:
    """The veil of light over one frame's board."""

    image: np.ndarray          # (rect, rect) float32 veil in grey levels over the rectified picture
    share: np.ndarray          # (squares,) the veil's largest share of the wood's brightness in the square
    clipped: np.ndarray        # (squares,) bool: the square's wood clipped white by the sensor

    @property
    def any(self) -> bool:
        return bool(self.image.max() > MIN_VEIL)


class GlareEstimator:
    """Finds the veil over the board and removes it from the rectified picture."""

    def __init__(self, geometry: BoardGeometry, frame: RectifiedFrame, marked: np.ndarray,
                 piece_radius_mm: float, piece_height_mm: float):
        n = geometry.size
        self.n = n
        self.frame = frame
        self.small = frame.pixels // STEP
        k = self.small
        s = frame.ppm / STEP
        cols = (np.arange(k) + 0.5) * STEP - 0.5
        X, Y = np.meshgrid(cols, cols)
        m, w = frame.margin_mm, frame.width_mm
        xmm = (X + 0.5) / frame.ppm - m
        ymm = w + m - (Y + 0.5) / frame.ppm
        p = geometry.pitch
        inside = (xmm > 0.5) & (xmm < w - 0.5) & (ymm > 0.5) & (ymm < w - 0.5)
        f = np.clip((xmm // p).astype(int), 0, n - 1)
        r = np.clip((ymm // p).astype(int), 0, n - 1)
        self.square_of = r * n + f                                  # (k, k) square index per shrunk pixel
        # the shrunk pixels grouped by square, for a per-square maximum in one call (np.maximum.at is slow)
        flat = self.square_of.ravel()
        self._by_square = np.argsort(flat, kind="stable")
        self._squares, self._starts = np.unique(flat[self._by_square], return_index=True)
        self.inside = inside
        self.board = inside & ~np.asarray(marked, bool)[self.square_of]
        self.xmm, self.ymm = xmm, ymm
        self.centres = np.array([geometry.square_center(q) for q in range(n * n)], np.float64)
        self.radius = piece_radius_mm * DISC_RADII
        self.height = piece_height_mm
        self.px_mm = s
        self._mask_key: tuple | None = None
        self._mask: np.ndarray | None = None
        self._bare: np.ndarray | None = None

    def _wood_mask(self, camera_center: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Shrunk pixels that show bare plain wood whatever stands on the squares, and bare board (marked fill too)."""
        key = None if camera_center is None else tuple(np.round(np.asarray(camera_center), 0))
        if self._mask is not None and self._bare is not None and key == self._mask_key:
            return self._mask, self._bare
        cx = self.centres[self.square_of]                          # (k, k, 2) the pixel's own square's centre
        dx, dy = self.xmm - cx[..., 0], self.ymm - cx[..., 1]
        near = dx * dx + dy * dy <= self.radius ** 2
        if camera_center is not None and camera_center[2] > 2 * self.height:
            c = np.asarray(camera_center, np.float64)
            t = self.height / (c[2] - self.height)
            tx = cx[..., 0] + (cx[..., 0] - c[0]) * t
            ty = cx[..., 1] + (cx[..., 1] - c[1]) * t
            ex, ey = self.xmm - tx, self.ymm - ty
            near |= ex * ex + ey * ey <= self.radius ** 2
            # the side wall between base and top
            mx, my = (cx[..., 0] + tx) / 2, (cx[..., 1] + ty) / 2
            near |= (self.xmm - mx) ** 2 + (self.ymm - my) ** 2 <= self.radius ** 2
        self._mask_key, self._mask, self._bare = key, self.board & ~near, self.inside & ~near
        return self._mask, self._bare

    def estimate(self, rect: np.ndarray, camera_center: np.ndarray | None = None) -> GlareField:
        k = self.small
        small = cv2.resize(rect[:k * STEP, :k * STEP], (k, k), interpolation=cv2.INTER_AREA).astype(np.float32)
        wood_px, bare_px = self._wood_mask(camera_center)
        obs = small[wood_px]                                        # (P, 3)
        if len(obs) < 10:
            zero = np.zeros(rect.shape[:2], np.float32)
            return GlareField(zero, np.zeros(self.n ** 2), np.zeros(self.n ** 2, bool))
        unit = obs / (np.linalg.norm(obs, axis=1, keepdims=True) + 1e-6)
        wood = median(unit, 0)
        wood /= np.linalg.norm(wood) + 1e-9
        one = np.ones(3, np.float32) / np.sqrt(3)
        A = np.stack([wood, one], 1)                                # (3, 2)
        proj = np.linalg.pinv(A)[1] / np.sqrt(3)                    # observed -> veil per channel
        v = small @ proj.astype(np.float32)                         # (k, k)
        # where red is clipped, blue and green alone: B = a wB + v, G = a wG + v
        if wood[1] - wood[0] > 0.05:
            two = (small[..., 0] * wood[1] - small[..., 1] * wood[0]) / (wood[1] - wood[0])
            v = np.where(small[..., 2] > RED_CLIPPED, two, v)
        v = np.clip(v, 0, None)
        darkest = np.minimum(np.minimum(small[..., 0], small[..., 1]), small[..., 2])   # small.min(2), faster
        v = np.minimum(v, MAX_VEIL_SHARE * darkest)
        weight = wood_px.astype(np.float32)
        near = cv2.GaussianBlur(v * weight, (0, 0), SMOOTH)
        near_w = cv2.GaussianBlur(weight, (0, 0), SMOOTH)
        far = cv2.GaussianBlur(v * weight, (0, 0), FILL)
        far_w = cv2.GaussianBlur(weight, (0, 0), FILL)
        use_near = near_w > 0.25
        field = np.where(use_near, near / np.maximum(near_w, 1e-6), far / np.maximum(far_w, 1e-6))
        field = np.where(field < MIN_VEIL, 0.0, field).astype(np.float32)
        image = np.zeros(rect.shape[:2], np.float32)
        image[:k * STEP, :k * STEP] = cv2.resize(field, (k * STEP, k * STEP), interpolation=cv2.INTER_LINEAR)
        lum = mean_last(small)
        # the veil is measured on plain wood only (the fill has another colour) and
        # carried over the marked squares; its share there is of the light the
        # plain wood round them shows (the fill's darkness is no more veil)
        plain = cv2.GaussianBlur(lum * weight, (0, 0), FILL) / np.maximum(far_w, 1e-6)
        lum = np.where(wood_px, lum, np.maximum(plain, lum))
        share_px = np.where(bare_px, field / np.maximum(lum, 1.0), 0.0)
        n2 = self.n ** 2
        flat = self.square_of.ravel()
        share = np.zeros(n2)
        share[self._squares] = np.maximum(np.maximum.reduceat(share_px.ravel()[self._by_square], self._starts), 0.0)
        white = (darkest > CLIPPED_LEVEL) & wood_px
        counts = np.bincount(flat, weights=wood_px.ravel().astype(np.float64), minlength=n2)
        whites = np.bincount(flat, weights=white.ravel().astype(np.float64), minlength=n2)
        clipped = whites > CLIPPED_SHARE * np.maximum(counts, 1.0)
        return GlareField(image=image, share=share, clipped=clipped)

    @staticmethod
    def remove(rect: np.ndarray, glare: GlareField) -> np.ndarray:
        """The rectified picture without the veil (uint8; clipped pixels stay as flat as they were)."""
        if not glare.any:
            return rect
        # the picture's levels are whole, so floor(level - veil) is level - ceil(veil): one saturating
        # uint8 subtraction instead of a float picture clipped and cast back, a quarter of the time
        # (issue 15: 30 ms a frame) and exact, where float32's rounding put 41 of 13 million values
        # of the bench's 40 frames one level off
        veil = np.minimum(np.ceil(glare.image), 255.0).astype(np.uint8)
        return cv2.subtract(rect, cv2.merge((veil, veil, veil)))
