"""The board seen from straight above, as a texture in board millimetres.

The renderer warps this picture into the camera (render_camera), so the wood,
the grid, the marked squares and the printed markers are drawn once per frame
at a resolution finer than the camera's.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from vision.position import marked_squares


@dataclass(frozen=True)
class TextureFrame:
    """Where the texture sits in board millimetres."""

    ppm: float          # texture pixels per millimetre
    lo: float           # board mm at the texture's left / bottom edge
    hi: float           # board mm at the texture's right / top edge

    @property
    def pixels(self) -> int:
        return int(round((self.hi - self.lo) * self.ppm))

    def matrix(self) -> np.ndarray:
        """Texture pixel (col, row) from board (x, y) mm: row 0 is the far (+y) edge."""
        p = self.ppm
        return np.array([[p, 0, -self.lo * p - 0.5], [0, -p, self.hi * p - 0.5], [0, 0, 1]], np.float64)

    def to_px(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, np.float64)
        return np.stack([(xy[..., 0] - self.lo) * self.ppm - 0.5, (self.hi - xy[..., 1]) * self.ppm - 0.5], -1)


def rgb_to_bgr(rgb) -> np.ndarray:
    return np.array(rgb[::-1], np.float32)


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Zero-mean, unit-ish noise varying over about `cells` blobs per axis."""
    small = rng.normal(0, 1, (cells[1] + 1, cells[0] + 1)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def wood(rng: np.random.Generator, shape: tuple[int, int], base_bgr: np.ndarray, grain: float) -> np.ndarray:
    """Wood: a base colour with long grain along x and slow blotches."""
    h, w = shape
    y = np.arange(h, dtype=np.float32)[:, None]
    warp = smooth_noise(rng, shape, (3, 6)) * 18.0
    period = rng.uniform(5.0, 11.0)
    rings = np.sin((y + warp) * (2 * np.pi / period) + smooth_noise(rng, shape, (40, 4)) * 0.8)
    fine = smooth_noise(rng, shape, (w // 3, h // 40))
    blotch = smooth_noise(rng, shape, (4, 4))
    v = 1.0 + grain * (0.6 * rings + 0.35 * fine) + 0.04 * blotch
    return base_bgr[None, None, :] * v[..., None]


def board_texture(geometry: BoardGeometry, frame: TextureFrame, rng: np.random.Generator,
                  colours: dict[str, np.ndarray], grain: float) -> np.ndarray:
    """The top-down picture (float32 BGR, 0-255) of table, frame, playing area and markers."""
    n = frame.pixels
    shape = (n, n)
    W = geometry.width
    mk = geometry.markers
    tex = np.empty((n, n, 3), np.float32)
    tex[:] = colours["table"]
    tex *= (1.0 + 0.05 * smooth_noise(rng, shape, (6, 6)))[..., None]

    def rect(x0, y0, x1, y1):
        (c0, r1), (c1, r0) = frame.to_px(np.array([[x0, y0], [x1, y1]]))
        return int(round(r0)), int(round(r1)) + 1, int(round(c0)), int(round(c1)) + 1

    border = mk.offset_mm + mk.size_mm / 2 + mk.quiet_zone_mm + rng.uniform(4, 14)
    r0, r1, c0, c1 = rect(-border, -border, W + border, W + border)
    tex[r0:r1, c0:c1] = wood(rng, (r1 - r0, c1 - c0), colours["frame"], grain)
    r0, r1, c0, c1 = rect(0, 0, W, W)
    tex[r0:r1, c0:c1] = wood(rng, (r1 - r0, c1 - c0), colours["wood"], grain)

    pitch = geometry.pitch
    for sq in marked_squares(geometry.size):
        f, r = sq % geometry.size, sq // geometry.size
        a0, a1, b0, b1 = rect(f * pitch, r * pitch, (f + 1) * pitch, (r + 1) * pitch)
        patch = tex[a0:a1, b0:b1]
        tex[a0:a1, b0:b1] = patch * (colours["marked"] / colours["wood"])[None, None, :]

    lw = geometry.spec.line_width_mm * frame.ppm
    line = tuple(float(v) for v in colours["line"])
    for k in range(geometry.size + 1):
        x = k * pitch
        (ca, ra), (cb, rb) = frame.to_px(np.array([[x, 0], [x, W]]))
        _thick_line(tex, (ca, ra), (cb, rb), lw, line)
        (ca, ra), (cb, rb) = frame.to_px(np.array([[0, x], [W, x]]))
        _thick_line(tex, (ca, ra), (cb, rb), lw, line)

    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, mk.dictionary))
    for index, marker_id in enumerate(mk.ids):
        cx, cy = geometry.marker_center(index)
        q = mk.size_mm / 2 + mk.quiet_zone_mm
        a0, a1, b0, b1 = rect(cx - q, cy - q, cx + q, cy + q)
        tex[a0:a1, b0:b1] = colours["paper"]
        side = int(round(mk.size_mm * frame.ppm))
        img = cv2.aruco.generateImageMarker(dictionary, int(marker_id), side, borderBits=1)
        (mc, mr), = frame.to_px(np.array([[cx - mk.size_mm / 2, cy + mk.size_mm / 2]])) + 0.5
        mr, mc = int(round(mr)), int(round(mc))
        ink = np.where(img[..., None] > 127, colours["paper"], colours["ink"])
        tex[mr:mr + side, mc:mc + side] = ink
    return tex


def _thick_line(img: np.ndarray, p0, p1, width: float, colour) -> None:
    """An axis-aligned band `width` pixels wide between two points (sub-pixel edges)."""
    (x0, y0), (x1, y1) = p0, p1
    h = width / 2
    if abs(x1 - x0) < abs(y1 - y0):
        lo, hi = x0 - h, x0 + h
        rows = slice(int(min(y0, y1) - h), int(max(y0, y1) + h) + 1)
        _band(img, lo, hi, rows, axis=1, colour=colour)
    else:
        lo, hi = y0 - h, y0 + h
        cols = slice(int(min(x0, x1) - h), int(max(x0, x1) + h) + 1)
        _band(img, lo, hi, cols, axis=0, colour=colour)


def _band(img, lo, hi, span: slice, axis: int, colour) -> None:
    """Fill pixels between lo and hi along `axis` with partial coverage at the edges."""
    first, last = int(np.floor(lo)), int(np.ceil(hi))
    colour = np.asarray(colour, np.float32)
    for i in range(first, last):
        cover = min(hi, i + 1) - max(lo, i)
        if cover <= 0:
            continue
        if axis == 1:
            region = img[span, i]
        else:
            region = img[i, span]
        region[:] = region * (1 - cover) + colour * cover
