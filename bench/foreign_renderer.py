"""A second, independent camera-frame renderer of the reference board, written
from docs/hardware.md only.

WHY: the vision reader is tuned and tested on frames from vision's own
renderer; the issue scores it on frames "from a renderer it has never seen,
following only the hardware spec". This module is that other renderer. It was
written without looking at vision's renderer and deliberately makes its own
choices wherever the spec leaves room:

- board: procedurally grained light wood in planks (maple / birch / beech / oak
  tones), a walnut frame and plinth with engraved storage slots, a cloth table;
- pieces: ray-cast cylinders (per-pixel, 3x3 supersampled) with a slightly
  domed, bevelled top face, Lambert + Blinn-Phong shading, a gold crown cylinder
  on the king, soft cast shadows and contact shadows on the board;
- camera: a pinhole at 600-800 mm looking at the board centre from up to 25
  degrees off vertical, any roll, the focal length chosen so the four markers
  fill most of the frame, a division-model radial lens distortion;
- light: a key lamp (its mirror glare on the varnish placed physically), warm
  spot pools, a linear gradient, white balance, vignetting, exposure;
- sensor: defocus blur, signal-dependent noise, JPEG; in the `clipped` stress a
  digital gain after the sensor has clipped, so white lands below 255;
- the room (`Room`, drawn from its own seed stream so the scenes above stay
  as they were): soft veils of light (a window or lamp mirrored in the
  varnish, a flare in the lens) lying over wood, lines and pieces alike,
  mild in `museum` (up to two) and strong in `hard` (two to four, clipping);
  coloured stage spotlights (gels); dim exposure with the sensor's gain noise
  in `hard`; the moving shadow of a visitor standing by the table (it moves
  from frame to frame); and, on request, a visitor's arm and hand over the
  board (`HandPose`), with its cast shadow.

Only the figures (board sizes, marker ids/positions/sizes, piece sizes) come
from the project's configuration defaults, which are the spec's figures.

Command line:
    python bench/foreign_renderer.py --board board-11 --position OTN --out F.png
        [--seed N] [--condition clean|museum|hard|glare|dim|gels|shadows|clipped] [--hand]
"""
from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.config import Config
from calibration.config_file import load_config
from engine import Board, Piece
from engine.otn import pieces_from_position

IMAGE_W, IMAGE_H = 1280, 720
# The three levels, then the museum room with one of hard's troubles at full
# strength each (strong veils; dim exposure with gain noise; fully gelled
# spotlights; an onlooker's shadow on every frame), to see which one costs what;
# and "clipped": strong veils seen by a camera that darkens its picture after the
# sensor has clipped (a digital gain), so glare's clipped core is flat below white.
LEVELS = ("clean", "museum", "hard")
STRESSES = ("glare", "dim", "gels", "shadows", "clipped")
CONDITIONS = LEVELS + STRESSES


def base_level(condition: str) -> str:
    """The level a condition's scene is drawn at (a stress is the museum's room plus the stress)."""
    return "museum" if condition in STRESSES else condition


TEX_PX_PER_MM = 2.5
MARGIN_PX = 90  # extra canvas around the ideal image so lens distortion never samples outside it

# Light wood tones (RGB) for the playing surface: maple, birch, beech, light oak, ash.
WOOD_TONES_RGB = [(214, 178, 128), (226, 202, 160), (205, 160, 112), (196, 158, 104), (222, 196, 150)]
WALNUT_RGB = (92, 62, 40)
CLOTH_RGB = (58, 62, 70)
LINE_RGB = (48, 34, 24)
VARIANT_OF_SIZE = {11: "copenhagen", 9: "tablut"}


@dataclass
class Scene:
    """Every random choice of one frame, drawn up front from the seed."""

    condition: str
    # camera
    distance_mm: float
    tilt_deg: float
    tilt_azimuth_deg: float
    roll_deg: float
    aim_jitter_mm: tuple[float, float]
    fill: float
    principal_jitter_px: tuple[float, float]
    k1: float
    k2: float
    # materials
    wood_rgb: tuple[float, float, float]
    plank_along_x: bool
    grain_period_mm: float
    piece_height_mm: float
    attacker_rgb: tuple[float, float, float]
    defender_rgb: tuple[float, float, float]
    gold_rgb: tuple[float, float, float]
    placement_jitter_mm: float
    # light
    key_elevation_deg: float
    key_azimuth_deg: float
    key_strength: float
    ambient: float
    gradient: tuple[float, float]
    spots: list[tuple[float, float, float, float]] = field(default_factory=list)  # x, y, sigma, amplitude
    shadow_strength: float = 0.4
    shadow_softness_mm: float = 2.5
    glare: float = 0.0
    glare_sigma_mm: float = 40.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    exposure: float = 1.0
    post_gain: float = 1.0          # a gain after the sensor clips (the camera's digital gain): white lands below 255
    vignette: float = 0.1
    # sensor
    blur_sigma: float = 0.5
    motion_blur_px: float = 0.0
    noise_sigma: float = 1.0
    jpeg_quality: int = 95
    # the room (see Room): stage gels per spot (BGR gains), veils of light, a visitor's shadow
    spot_tints: list[tuple[float, float, float]] = field(default_factory=list)
    veils: list["Veil"] = field(default_factory=list)
    onlooker: float = 0.0           # chance per frame that a visitor's shadow falls on the board
    onlooker_strength: tuple[float, float] = (0.2, 0.4)


def _u(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(rng.uniform(lo, hi))


def _rgb(values: Iterable[float]) -> tuple[float, float, float]:
    r, g, b = (float(v) for v in values)
    return (r, g, b)


def draw_scene(condition: str, rng: np.random.Generator, board_width_mm: float) -> Scene:
    """Random scene parameters for a condition (clean < museum < hard)."""
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}, not {condition!r}")
    level = LEVELS.index(base_level(condition))  # 0, 1, 2
    tone = np.array(WOOD_TONES_RGB[int(rng.integers(len(WOOD_TONES_RGB)))], float)
    tone = tone * _u(rng, 0.94, 1.05)
    warm = _u(rng, -1.0, 1.0) * (0.04, 0.12, 0.2)[level]
    wb = (1.0 - warm, 1.0, 1.0 + warm)  # BGR: warm light lifts red, cools blue
    spots = []
    n_spots = (0, int(rng.integers(1, 4)), int(rng.integers(2, 5)))[level]
    for _ in range(n_spots):
        spots.append((_u(rng, -60, board_width_mm + 60), _u(rng, -60, board_width_mm + 60),
                      _u(rng, 60, 180), _u(rng, 0.15, 0.5) if level == 1 else _u(rng, 0.35, 0.9)))
    grad_mag = (0.05, 0.22, 0.38)[level]
    jitter_colour = (0.03, 0.07, 0.1)[level]

    def piece_colour(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
        return _rgb(c * _u(rng, 1 - jitter_colour, 1 + jitter_colour) for c in rgb)

    return Scene(
        condition=condition,
        distance_mm=_u(rng, 600, 800),
        tilt_deg=_u(rng, 0, (8, 25, 25)[level]) if level < 2 else _u(rng, 10, 25),
        tilt_azimuth_deg=_u(rng, 0, 360),
        roll_deg=_u(rng, 0, 360) if level else _u(rng, -15, 15),
        aim_jitter_mm=(_u(rng, -15, 15), _u(rng, -15, 15)),
        fill=_u(rng, 0.8, 0.93),
        principal_jitter_px=(_u(rng, -12, 12), _u(rng, -8, 8)),
        k1=_u(rng, 0.0, 0.02) if level == 0 else _u(rng, -0.03, 0.07),
        k2=_u(rng, -0.01, 0.01),
        wood_rgb=_rgb(tone),
        plank_along_x=bool(rng.integers(2)),
        grain_period_mm=_u(rng, 1.8, 4.5),
        piece_height_mm=_u(rng, 8, 12),
        attacker_rgb=piece_colour((48, 34, 26)),     # near-black brown
        defender_rgb=piece_colour((238, 228, 204)),  # ivory
        gold_rgb=piece_colour((214, 168, 60)),
        placement_jitter_mm=(1.0, 2.5, 3.5)[level],
        key_elevation_deg=_u(rng, 40, 78),
        key_azimuth_deg=_u(rng, 0, 360),
        key_strength=_u(rng, 0.45, 0.65),
        ambient=_u(rng, 0.45, 0.6),
        gradient=(_u(rng, -grad_mag, grad_mag), _u(rng, -grad_mag, grad_mag)),
        spots=spots,
        shadow_strength=(_u(rng, 0.1, 0.2), _u(rng, 0.25, 0.55), _u(rng, 0.45, 0.7))[level],
        shadow_softness_mm=_u(rng, 1.5, 4.0),
        glare=(0.0, _u(rng, 0.2, 0.9) if rng.random() < 0.65 else 0.0, _u(rng, 0.8, 1.6))[level],
        glare_sigma_mm=_u(rng, 25, 70),
        white_balance=wb,
        exposure=(_u(rng, 0.95, 1.05), _u(rng, 0.75, 1.12), _u(rng, 0.5, 1.0))[level],
        vignette=(_u(rng, 0.0, 0.08), _u(rng, 0.05, 0.25), _u(rng, 0.15, 0.4))[level],
        blur_sigma=(_u(rng, 0.3, 0.5), _u(rng, 0.5, 1.1), _u(rng, 0.8, 1.6))[level],
        motion_blur_px=(0.0, 0.0, _u(rng, 0.0, 2.5))[level],
        noise_sigma=(_u(rng, 0.5, 1.2), _u(rng, 1.8, 3.5), _u(rng, 3.5, 6.0))[level],
        jpeg_quality=int((rng.integers(92, 97), rng.integers(70, 93), rng.integers(55, 76))[level]),
    )


@dataclass(frozen=True)
class Veil:
    """A soft patch or streak of light over everything in view, in board mm (x, y)."""

    x: float
    y: float
    sigma_mm: float
    aspect: float            # >1: a streak
    angle_deg: float
    level: float             # grey levels added at its peak (before exposure)
    power: float             # 2: Gaussian; larger: a flatter top with a softer rim
    tint: tuple[float, float, float]   # BGR, near white


# Stage gels (BGR gains) for coloured spotlights.
GELS_BGR = [(0.45, 0.75, 1.0), (0.75, 0.55, 1.0), (1.0, 0.82, 0.55), (0.6, 1.0, 0.65), (1.0, 0.95, 0.5),
            (0.95, 0.5, 1.0)]


def draw_room(scene: Scene, rng: np.random.Generator, board_width_mm: float) -> None:
    """The room's extra light and shade for a condition, drawn from its own seed stream (see module doc)."""
    level = LEVELS.index(base_level(scene.condition))
    if level == 0:
        return
    w = board_width_mm
    gel_chance, gel_mix = ((0.3, 0.5), (0.6, 1.0), (1.0, 1.0))[2 if scene.condition == "gels" else level - 1]
    tints: list[tuple[float, float, float]] = []
    for _ in scene.spots:
        if rng.random() < gel_chance:
            gel = np.array(GELS_BGR[int(rng.integers(len(GELS_BGR)))])
            tints.append(_rgb((1 - gel_mix) * np.array((0.78, 0.92, 1.0)) + gel_mix * gel))
        else:
            tints.append((0.78, 0.92, 1.0))
    scene.spot_tints = tints
    strong = level == 2 or scene.condition in ("glare", "clipped")
    n_veils = int(rng.integers(2, 5)) if strong else int(rng.integers(0, 3))
    veils = []
    for _ in range(n_veils):
        warm = _u(rng, -0.04, 0.04)
        veils.append(Veil(x=_u(rng, 0.05 * w, 0.95 * w), y=_u(rng, 0.05 * w, 0.95 * w),
                          sigma_mm=_u(rng, 15, 60) if strong else _u(rng, 12, 45),
                          aspect=_u(rng, 1.0, 4.0), angle_deg=_u(rng, 0, 180),
                          level=_u(rng, 80, 190) if strong else _u(rng, 45, 120),
                          power=float(rng.choice([2.0, 3.0, 4.0])),
                          tint=(1.0 - warm, 1.0, 1.0 + warm)))
    scene.veils = veils
    if level == 2 or scene.condition == "dim":
        scene.exposure = _u(rng, 0.35, 0.55)
        scene.noise_sigma = scene.noise_sigma * _u(rng, 1.0, 1.4)
    shadows = scene.condition == "shadows"
    scene.onlooker = 1.0 if shadows else (0.5, 0.8)[level - 1]
    scene.onlooker_strength = (0.25, 0.5) if level == 2 or shadows else (0.15, 0.35)
    if scene.condition == "clipped":        # drawn last: every other condition's scenes stay as they were
        scene.post_gain = _u(rng, 0.5, 0.85)


@dataclass(frozen=True)
class HandPose:
    """A visitor's arm reaching over the board: fingertips at (x, y) mm, `z` mm above it,
    the arm coming in from the direction `azimuth_deg` (board frame), `skin` and `sleeve` BGR."""

    x: float
    y: float
    z: float = 60.0
    azimuth_deg: float = 270.0
    skin: tuple[float, float, float] = (140.0, 170.0, 215.0)
    sleeve: tuple[float, float, float] | None = (90.0, 60.0, 40.0)

    def withdrawn(self, fraction: float, board_width_mm: float) -> "HandPose":
        """The same arm pulled back along itself by `fraction` of the way out past the board's edge."""
        a = math.radians(self.azimuth_deg)
        reach = 1.3 * board_width_mm * fraction
        return HandPose(self.x + reach * math.cos(a), self.y + reach * math.sin(a), self.z + 60 * fraction,
                        self.azimuth_deg, self.skin, self.sleeve)


def random_hand(rng: np.random.Generator, board_width_mm: float) -> HandPose:
    """A hand over a random square, the arm from a random side, any skin tone, any sleeve (or none)."""
    tone = _u(rng, 0, 1)
    skin_bgr = np.array([180, 200, 235]) * (1 - tone) + np.array([45, 65, 100]) * tone
    skin = _rgb(skin_bgr * rng.uniform(0.9, 1.1, 3))
    sleeve = None if rng.random() < 0.3 else _rgb(rng.uniform(20, 230, 3))
    w = board_width_mm
    # fingertips down at a piece's height over the playing area, as when moving a piece
    return HandPose(_u(rng, 0.2 * w, 0.8 * w), _u(rng, 0.2 * w, 0.8 * w), _u(rng, 20, 60), _u(rng, 0, 360),
                    skin, sleeve)


# --------------------------------------------------------------------------- geometry

@dataclass(frozen=True)
class Layout:
    """The spec's figures for one board: squares, pitch, markers, pieces, storage."""

    size: int
    pitch: float
    marker_size: float
    marker_offset: float
    quiet_zone: float
    marker_ids: tuple[int, ...]
    attacker_d: float
    defender_d: float
    king_d: float
    king_extra_h: float
    storage_attacker_x: tuple[float, ...]
    storage_defender_dx: tuple[float, ...]
    storage_first_y: float
    storage_pitch: float

    @property
    def width(self) -> float:
        return self.size * self.pitch

    @classmethod
    def from_config(cls, config: Config, board: str) -> "Layout":
        if board not in config.boards:
            raise ValueError(f"unknown board {board!r} (known: {', '.join(sorted(config.boards))})")
        spec = config.boards[board]
        pc, st, mk = config.pieces, config.storage, config.markers
        return cls(spec.squares, spec.pitch_mm, mk.size_mm, mk.offset_mm, mk.quiet_zone_mm, tuple(mk.ids),
                   pc.attacker_diameter_mm, pc.defender_diameter_mm, pc.king_diameter_mm, pc.king_extra_height_mm,
                   tuple(st.attacker_columns_x_mm), tuple(st.defender_columns_offset_mm),
                   st.first_slot_y_mm, st.slot_pitch_mm)

    def marker_centres(self) -> list[tuple[float, float]]:
        w, o = self.width, self.marker_offset
        return [(-o, -o), (w + o, -o), (w + o, w + o), (-o, w + o)]

    def special_squares(self) -> list[tuple[int, int]]:
        """(file, rank) of the darker squares: centre and corners (11), or castle and camps (9)."""
        n, c = self.size, self.size // 2
        if n == 9:
            camps = []
            for a in (0, n - 1):
                camps += [(a, c - 1), (a, c), (a, c + 1), (1 if a == 0 else n - 2, c)]
                camps += [(c - 1, a), (c, a), (c + 1, a), (c, 1 if a == 0 else n - 2)]
            return [(c, c)] + camps
        return [(c, c), (0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1)]

    def slots(self, side: str, count: int) -> list[tuple[float, float]]:
        xs = list(self.storage_attacker_x) if side == "attackers" else [self.width + d for d in self.storage_defender_dx]
        per = max(1, math.ceil(count / len(xs)))
        return [(xs[i // per], self.storage_first_y + (i % per) * self.storage_pitch) for i in range(count)]


@dataclass
class PieceSpec:
    x: float
    y: float
    radius: float
    height: float
    rgb: tuple[float, float, float]
    gloss: float
    shininess: float
    crown: bool = False


@dataclass
class Camera:
    """Pinhole camera: world (board mm, z up) to ideal (undistorted) canvas pixels."""

    K: np.ndarray
    R: np.ndarray  # world -> camera rotation
    C: np.ndarray  # centre in world

    def project(self, pts: np.ndarray) -> np.ndarray:
        pc = (pts - self.C) @ self.R.T
        uv = pc @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def rays(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """World directions through canvas pixels (any shape), last axis xyz."""
        kinv = np.linalg.inv(self.K)
        pix = np.stack([u, v, np.ones_like(u)], -1)
        return pix @ (self.R.T @ kinv).T

    def plane_homography(self) -> np.ndarray:
        """Board plane (x, y) mm at z = 0 -> canvas pixels."""
        t = -self.R @ self.C
        return self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])


def make_camera(scene: Scene, layout: Layout) -> Camera:
    w = layout.width
    target = np.array([w / 2 + scene.aim_jitter_mm[0], w / 2 + scene.aim_jitter_mm[1], 0.0])
    tilt, az = math.radians(scene.tilt_deg), math.radians(scene.tilt_azimuth_deg)
    offset = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
    centre = target + scene.distance_mm * offset
    z = target - centre
    z /= np.linalg.norm(z)
    roll = math.radians(scene.roll_deg)
    up = np.array([math.cos(roll), math.sin(roll), 0.0])
    up = up - z * float(up @ z)
    up /= np.linalg.norm(up)
    y = -up
    x = np.cross(y, z)
    R = np.stack([x, y, z])
    # Focal length: the markers' quiet-zone squares fill `fill` of the frame around the principal point.
    half = layout.marker_size / 2 + layout.quiet_zone
    corners = []
    for cx, cy in layout.marker_centres():
        corners += [(cx - half, cy - half, 0), (cx + half, cy - half, 0), (cx + half, cy + half, 0), (cx - half, cy + half, 0)]
    pc = (np.array(corners) - centre) @ R.T
    xn, yn = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
    f = min(scene.fill * IMAGE_W / 2 / np.abs(xn).max(), scene.fill * IMAGE_H / 2 / np.abs(yn).max())
    cx = IMAGE_W / 2 + scene.principal_jitter_px[0] + MARGIN_PX
    cy = IMAGE_H / 2 + scene.principal_jitter_px[1] + MARGIN_PX
    K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
    return Camera(K, R, centre)


# --------------------------------------------------------------------------- board texture

class Texture:
    """The board plane as an image: texture pixel (col, row) <-> board mm (x, y)."""

    def __init__(self, layout: Layout):
        w = layout.width
        self.x0 = min(layout.storage_attacker_x) - 40.0
        self.x1 = w + max(layout.storage_defender_dx) + 40.0
        self.y0, self.y1 = -80.0, w + 80.0
        self.s = TEX_PX_PER_MM
        self.cols = int(round((self.x1 - self.x0) * self.s))
        self.rows = int(round((self.y1 - self.y0) * self.s))
        cols, rows = np.meshgrid(np.arange(self.cols, dtype=np.float32), np.arange(self.rows, dtype=np.float32))
        self.X = np.float32(self.x0) + (cols + 0.5) / np.float32(self.s)
        self.Y = np.float32(self.y1) - (rows + 0.5) / np.float32(self.s)

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Board mm -> texture pixel coordinates (pixel centres at integers, as OpenCV draws)."""
        return (x - self.x0) * self.s - 0.5, (self.y1 - y) * self.s - 0.5

    def to_mm(self) -> np.ndarray:
        """Texture pixel -> board mm (3x3), the inverse of `px`."""
        return np.array([[1 / self.s, 0, self.x0 + 0.5 / self.s], [0, -1 / self.s, self.y1 - 0.5 / self.s], [0, 0, 1.0]])


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], scale_px: float) -> np.ndarray:
    small = rng.standard_normal((max(2, int(shape[0] / scale_px) + 2), max(2, int(shape[1] / scale_px) + 2)))
    big = cv2.resize(small.astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return big / np.float32(small.std() + 1e-6)


def _wood(rng: np.random.Generator, tex: Texture, rgb: tuple[float, float, float], along_x: bool,
          period: float, plank_mm: tuple[float, float]) -> np.ndarray:
    """Planked wood: each plank its own tone and grain phase; grain lines warped by smooth noise."""
    across = tex.Y if along_x else tex.X
    along = tex.X if along_x else tex.Y
    warp = _smooth_noise(rng, across.shape, 60 * tex.s) * 6.0 + _smooth_noise(rng, across.shape, 12 * tex.s) * 0.8
    edges = (np.cumsum(rng.uniform(*plank_mm, size=40)) + float(across.min()) - rng.uniform(0, plank_mm[0])).astype(np.float32)
    plank = np.searchsorted(edges, across)
    tone = rng.uniform(0.93, 1.06, size=len(edges) + 1).astype(np.float32)[plank]
    phase = rng.uniform(0, 2 * np.pi, size=len(edges) + 1).astype(np.float32)[plank]
    slope = rng.uniform(-0.02, 0.02, size=len(edges) + 1).astype(np.float32)[plank]
    g = np.sin((2 * np.pi / period) * (across + warp + slope * along) + phase)
    grain = 1.0 - 0.10 * np.clip(g, 0, 1) ** 6 - 0.03 * (g * 0.5 + 0.5)
    fleck = 1.0 + 0.025 * rng.standard_normal(across.shape, dtype=np.float32)
    lum = tone * grain * fleck
    # plank seams: thin darker lines
    ext = np.concatenate([[np.float32(-1e9)], edges, [np.float32(1e9)]])
    seam_dist = np.minimum(across - ext[plank], ext[plank + 1] - across)
    lum = np.where(seam_dist < 0.25, lum * 0.8, lum).astype(np.float32)
    return lum[..., None] * np.array(rgb[::-1], np.float32)


def build_board_texture(rng: np.random.Generator, scene: Scene, layout: Layout, tex: Texture) -> np.ndarray:
    w, p = layout.width, layout.pitch
    X, Y = tex.X, tex.Y
    img = np.empty((tex.rows, tex.cols, 3), np.float32)
    img[:] = np.array(CLOTH_RGB[::-1], np.float32) * (1 + 0.05 * _smooth_noise(rng, X.shape, 8 * tex.s))[..., None]
    walnut = _wood(rng, tex, WALNUT_RGB, not scene.plank_along_x, 2.5, (70, 120))
    inside_plinth = (X > tex.x0 + 12) & (X < tex.x1 - 12) & (Y > tex.y0 + 12) & (Y < tex.y1 - 12)
    img[inside_plinth] = walnut[inside_plinth]
    playing_wood = _wood(rng, tex, scene.wood_rgb, scene.plank_along_x, scene.grain_period_mm, (55, 110))
    rim = 4.0  # a little light wood beyond the outer grid line
    on_board = (X > -rim) & (X < w + rim) & (Y > -rim) & (Y < w + rim)
    img[on_board] = playing_wood[on_board]
    # darker fill on the throne, corners / camps: a stain
    for f, r in layout.special_squares():
        m = (X > f * p) & (X < (f + 1) * p) & (Y > r * p) & (Y < (r + 1) * p)
        img[m] *= np.array([0.62, 0.68, 0.76], np.float32)
    # grid lines, 1.5 mm wide, antialiased by distance
    half = 0.75
    dx = np.abs(X / p - np.round(X / p)) * p
    dy = np.abs(Y / p - np.round(Y / p)) * p
    inside = (X > -half - 1) & (X < w + half + 1) & (Y > -half - 1) & (Y < w + half + 1)
    line = np.clip(half + 0.5 / tex.s - np.minimum(dx, dy), 0, 1 / tex.s) * tex.s
    line *= inside
    img = img * (1 - line[..., None]) + np.array(LINE_RGB[::-1], np.float32) * line[..., None]
    # engraved storage slots: a darker ring
    for side, n in (("attackers", 24), ("defenders", 13)):
        for sx, sy in layout.slots(side, n):
            c = tex.px(sx, sy)
            cv2.circle(img, (int(c[0] * 16), int(c[1] * 16)), int(11 * tex.s * 16), (30, 40, 55), 2, cv2.LINE_AA, 4)
    # markers on white labels
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for (cx, cy), mid in zip(layout.marker_centres(), layout.marker_ids):
        lab = layout.marker_size / 2 + layout.quiet_zone + _u(rng, 0.5, 3.5)
        x0, y0 = tex.px(cx - lab, cy + lab)
        x1, y1 = tex.px(cx + lab, cy - lab)
        paper = np.array([226, 234, 238], np.float32) * _u(rng, 0.95, 1.03)
        cv2.rectangle(img, (int(round(x0)), int(round(y0))), (int(round(x1)), int(round(y1))), paper.tolist(), -1)
        h = layout.marker_size / 2
        mx0, my0 = tex.px(cx - h, cy + h)
        side_px = int(round(layout.marker_size * tex.s))
        bits = cv2.aruco.generateImageMarker(dictionary, int(mid), 6 * 20)
        bits = cv2.resize(bits, (side_px, side_px), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        ink = np.array([30, 28, 26], np.float32)
        r0, c0 = int(round(my0)), int(round(mx0))
        patch = img[r0:r0 + side_px, c0:c0 + side_px]
        b = bits[: patch.shape[0], : patch.shape[1], None]
        img[r0:r0 + side_px, c0:c0 + side_px] = paper * b + ink * (1 - b)
    return img


def illumination(scene: Scene, layout: Layout, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Light falling on the board plane at (x, y) mm, BGR gains (gradient + warm spot pools)."""
    w = layout.width
    base = 1.0 + scene.gradient[0] * (x - w / 2) / w + scene.gradient[1] * (y - w / 2) / w
    out = np.repeat(base[..., None], 3, axis=-1).astype(np.float32)
    tungsten = (0.78, 0.92, 1.0)  # BGR
    for k, (sx, sy, sigma, amp) in enumerate(scene.spots):
        tint = np.array(scene.spot_tints[k] if k < len(scene.spot_tints) else tungsten, np.float32)
        g = amp * np.exp(-((x - sx) ** 2 + (y - sy) ** 2) / (2 * sigma ** 2))
        out += g[..., None].astype(np.float32) * tint
    return out


def key_light(scene: Scene) -> np.ndarray:
    el, az = math.radians(scene.key_elevation_deg), math.radians(scene.key_azimuth_deg)
    return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def apply_shadows_and_glare(img: np.ndarray, scene: Scene, layout: Layout, tex: Texture,
                            pieces: list[PieceSpec], camera: Camera) -> np.ndarray:
    L = key_light(scene)
    shade: np.ndarray = np.zeros((tex.rows, tex.cols), np.float32)
    contact: np.ndarray = np.zeros_like(shade)
    for pc in pieces:
        h = pc.height + (layout.king_extra_h if pc.crown else 0.0)
        ex, ey = pc.x - h * L[0] / L[2], pc.y - h * L[1] / L[2]
        a, b = tex.px(pc.x, pc.y), tex.px(ex, ey)
        r = int(round(pc.radius * tex.s * 16))
        pa, pb = (int(a[0] * 16), int(a[1] * 16)), (int(b[0] * 16), int(b[1] * 16))
        cv2.line(shade, pa, pb, 1.0, 2 * r // 16, cv2.LINE_AA, 4)
        cv2.circle(shade, pb, r, 1.0, -1, cv2.LINE_AA, 4)
        cv2.circle(contact, pa, int(r * 1.12), 1.0, -1, cv2.LINE_AA, 4)
    soft = scene.shadow_softness_mm * tex.s
    shade = cv2.GaussianBlur(shade, (0, 0), soft)
    contact = cv2.GaussianBlur(contact, (0, 0), 0.8 * tex.s)
    light = illumination(scene, layout, tex.X, tex.Y)
    key = scene.key_strength * L[2]
    direct = scene.ambient + key * (1.0 - scene.shadow_strength * shade / max(1e-6, scene.key_strength) * 0.9)
    direct = direct - 0.18 * contact
    img = img * light * direct[..., None] / (scene.ambient + key)
    if scene.glare > 0:
        lamp = np.array([layout.width / 2, layout.width / 2, 0.0]) + 1500.0 * L
        mirror = lamp * np.array([1, 1, -1.0])
        t = camera.C[2] / (camera.C[2] - mirror[2])
        g = camera.C + t * (mirror - camera.C)
        blob = np.exp(-((tex.X - g[0]) ** 2 + (tex.Y - g[1]) ** 2) / (2 * scene.glare_sigma_mm ** 2))
        img = img + (scene.glare * 150.0 * blob)[..., None] * np.array([0.97, 0.99, 1.0], np.float32)
    return img


# --------------------------------------------------------------------------- pieces

def piece_list(scene_seed: int, scene: Scene, layout: Layout, pieces: dict[int, Piece]) -> list[PieceSpec]:
    """Pieces on their squares, each a little off centre (the same offset for a square
    throughout a game on one scene), plus the captured ones parked in storage."""
    out = []
    n = layout.size
    h = scene.piece_height_mm

    def spec(x: float, y: float, piece: Piece) -> PieceSpec:
        if piece == Piece.ATTACKER:
            return PieceSpec(x, y, layout.attacker_d / 2, h, scene.attacker_rgb, 0.35, 35.0)
        if piece == Piece.DEFENDER:
            return PieceSpec(x, y, layout.defender_d / 2, h, scene.defender_rgb, 0.3, 55.0)
        return PieceSpec(x, y, layout.king_d / 2, h, scene.defender_rgb, 0.3, 55.0, crown=True)

    j = scene.placement_jitter_mm
    for sq, piece in pieces.items():
        f, r = sq % n, sq // n
        rng = np.random.default_rng((scene_seed, sq))
        ang, rad = _u(rng, 0, 2 * np.pi), j * math.sqrt(_u(rng, 0, 1))
        out.append(spec((f + 0.5) * layout.pitch + rad * math.cos(ang), (r + 0.5) * layout.pitch + rad * math.sin(ang), Piece(piece)))
    # captured pieces parked in storage, as the robot leaves them
    start = Board(VARIANT_OF_SIZE.get(n, "copenhagen")).pieces() if n in VARIANT_OF_SIZE else {}
    n_att = sum(1 for p in start.values() if p == Piece.ATTACKER)
    n_def = sum(1 for p in start.values() if p == Piece.DEFENDER)
    on_att = sum(1 for p in pieces.values() if p == Piece.ATTACKER)
    on_def = sum(1 for p in pieces.values() if p == Piece.DEFENDER)
    king_on = any(p == Piece.KING for p in pieces.values())
    for x, y in layout.slots("attackers", n_att)[: max(0, n_att - on_att)]:
        out.append(spec(x, y, Piece.ATTACKER))
    dslots = layout.slots("defenders", n_def + 1)
    if not king_on:
        out.append(spec(*dslots[0], Piece.KING))
    for x, y in dslots[1:][: max(0, n_def - on_def)]:
        out.append(spec(x, y, Piece.DEFENDER))
    return out


def _shade(scene: Scene, normal: np.ndarray, view: np.ndarray, albedo: np.ndarray, gloss: float,
           shininess: float, light: np.ndarray, metal: bool) -> np.ndarray:
    L = key_light(scene)
    ndl = np.clip(normal @ L, 0, None)
    amb = scene.ambient * (0.55 + 0.45 * np.clip(normal[..., 2], 0, 1))
    hv = view + L
    hv /= np.linalg.norm(hv, axis=-1, keepdims=True)
    spec = gloss * np.clip((normal * hv).sum(-1), 0, None) ** shininess
    norm = scene.ambient + scene.key_strength * L[2]
    diffuse = albedo * ((amb + scene.key_strength * ndl) / norm)[..., None]
    spec_col = albedo / 255.0 * 255.0 if metal else np.full(3, 245.0)
    return (diffuse + spec[..., None] * spec_col) * light


def render_pieces(canvas: np.ndarray, scene: Scene, layout: Layout, camera: Camera, pieces: list[PieceSpec],
                  ss: int = 3) -> None:
    """Ray-cast each piece (body cylinder, domed top, king's crown) into its own box; painter's order."""
    order = sorted(pieces, key=lambda pc: -np.linalg.norm(camera.C[:2] - np.array([pc.x, pc.y])))
    H, W = canvas.shape[:2]
    for pc in order:
        cylinders = [(pc.radius, 0.0, pc.height, np.array(pc.rgb[::-1], float), pc.gloss, pc.shininess, False)]
        if pc.crown:
            cylinders.append((pc.radius * 0.5, pc.height, pc.height + layout.king_extra_h,
                              np.array(scene.gold_rgb[::-1], float), 0.9, 22.0, True))
        top_h = cylinders[-1][2]
        ring = np.array([[pc.x + pc.radius * math.cos(a), pc.y + pc.radius * math.sin(a), z]
                         for a in np.linspace(0, 2 * np.pi, 16, endpoint=False) for z in (0.0, top_h)])
        uv = camera.project(ring)
        u0, v0 = int(math.floor(uv[:, 0].min())) - 2, int(math.floor(uv[:, 1].min())) - 2
        u1, v1 = int(math.ceil(uv[:, 0].max())) + 2, int(math.ceil(uv[:, 1].max())) + 2
        u0, v0, u1, v1 = max(u0, 0), max(v0, 0), min(u1, W), min(v1, H)
        if u1 <= u0 or v1 <= v0:
            continue
        sub = (np.arange(ss) + 0.5) / ss
        us = (np.arange(u0, u1)[:, None] + sub[None, :]).ravel()
        vs = (np.arange(v0, v1)[:, None] + sub[None, :]).ravel()
        U, V = np.meshgrid(us, vs)
        d = camera.rays(U, V)
        C = camera.C
        best_t = np.full(U.shape, np.inf)
        colour = np.zeros(U.shape + (3,))
        light = illumination(scene, layout, np.array(pc.x), np.array(pc.y)).reshape(3)
        view = -d / np.linalg.norm(d, axis=-1, keepdims=True)
        for radius, z0, z1, albedo, gloss, shin, metal in cylinders:
            # top disc (slightly domed, bevelled at the rim)
            t_top = (z1 - C[2]) / d[..., 2]
            px = C[0] + t_top * d[..., 0] - pc.x
            py = C[1] + t_top * d[..., 1] - pc.y
            rr = np.sqrt(px ** 2 + py ** 2)
            hit_top = (rr <= radius) & (t_top > 0) & (t_top < best_t)
            if hit_top.any():
                q = rr[hit_top] / radius
                bevel = np.clip((q - 0.82) / 0.18, 0, 1)
                tilt = 0.12 * q + 0.9 * bevel ** 2
                nx = px[hit_top] / np.maximum(rr[hit_top], 1e-6) * tilt
                ny = py[hit_top] / np.maximum(rr[hit_top], 1e-6) * tilt
                n = np.stack([nx, ny, np.ones_like(nx)], -1)
                n /= np.linalg.norm(n, axis=-1, keepdims=True)
                colour[hit_top] = _shade(scene, n, view[hit_top], albedo, gloss, shin, light, metal)
                best_t[hit_top] = t_top[hit_top]
            # side wall: |C_xy + t d_xy - c|^2 = r^2, entering root
            ox, oy = C[0] - pc.x, C[1] - pc.y
            a = d[..., 0] ** 2 + d[..., 1] ** 2
            b = 2 * (ox * d[..., 0] + oy * d[..., 1])
            c = ox ** 2 + oy ** 2 - radius ** 2
            disc = b * b - 4 * a * c
            ok = disc >= 0
            t_side = np.where(ok, (-b - np.sqrt(np.where(ok, disc, 0))) / (2 * np.maximum(a, 1e-12)), np.inf)
            z = C[2] + t_side * d[..., 2]
            hit_side = ok & (z >= z0) & (z <= z1) & (t_side > 0) & (t_side < best_t)
            if hit_side.any():
                sx = (C[0] + t_side[hit_side] * d[hit_side][:, 0] - pc.x) / radius
                sy = (C[1] + t_side[hit_side] * d[hit_side][:, 1] - pc.y) / radius
                n = np.stack([sx, sy, np.zeros_like(sx)], -1)
                col = _shade(scene, n, view[hit_side], albedo, gloss * 0.6, shin, light, metal)
                ao = 0.75 + 0.25 * np.clip((z[hit_side] - z0) / max(z1 - z0, 1e-6), 0, 1)
                colour[hit_side] = col * ao[:, None]
                best_t[hit_side] = t_side[hit_side]
        cover = np.isfinite(best_t).astype(np.float64)
        h, w = v1 - v0, u1 - u0
        cover_px = cover.reshape(h, ss, w, ss).mean(axis=(1, 3))
        col_px = (colour * cover[..., None]).reshape(h, ss, w, ss, 3).sum(axis=(1, 3)) / (ss * ss)
        region = canvas[v0:v1, u0:u1]
        canvas[v0:v1, u0:u1] = region * (1 - cover_px[..., None]) + col_px


# --------------------------------------------------------------------------- the room over the picture

FIELD_STEP = 4  # canvas pixels per sample of the smooth light fields (veils, shadows)


def board_field(camera: Camera, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Board-plane mm (x, y) seen at every FIELD_STEP-th canvas pixel (rays cut with z = 0)."""
    h, w = shape
    v, u = np.mgrid[0:h:FIELD_STEP, 0:w:FIELD_STEP].astype(np.float64)
    Hinv = np.linalg.inv(camera.plane_homography())
    pts = np.stack([u + 0.5, v + 0.5, np.ones_like(u)], -1) @ Hinv.T
    return pts[..., 0] / pts[..., 2], pts[..., 1] / pts[..., 2]


def _upsample(small: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    return cv2.resize(small.astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def apply_veils(ideal: np.ndarray, scene: Scene, camera: Camera) -> None:
    """Add each veil of light over whatever lies under it (wood, lines, pieces, a hand)."""
    if not scene.veils:
        return
    X, Y = board_field(camera, ideal.shape[:2])
    light = np.zeros(X.shape + (3,), np.float32)
    for veil in scene.veils:
        a = math.radians(veil.angle_deg)
        du, dv = X - veil.x, Y - veil.y
        along = (du * math.cos(a) + dv * math.sin(a)) / (veil.sigma_mm * veil.aspect)
        across = (-du * math.sin(a) + dv * math.cos(a)) / veil.sigma_mm
        r2 = along ** 2 + across ** 2
        g = np.exp(-0.5 * r2 ** (veil.power / 2))
        # the level is what the sensor receives, whatever the exposure (a mirrored lamp is bright)
        light += (veil.level / max(scene.exposure, 0.05) * g)[..., None].astype(np.float32) * np.array(veil.tint, np.float32)
    ideal += _upsample(light, ideal.shape[:2])


def apply_onlooker(ideal: np.ndarray, scene: Scene, layout: Layout, camera: Camera, rng: np.random.Generator) -> None:
    """Perhaps the soft shadow of a visitor standing by the table; where it falls changes every frame."""
    if scene.onlooker <= 0 or rng.random() >= scene.onlooker:
        return
    w = layout.width
    side = _u(rng, 0, 2 * math.pi)
    cx, cy = w / 2 + 0.75 * w * math.cos(side), w / 2 + 0.75 * w * math.sin(side)
    X, Y = board_field(camera, ideal.shape[:2])
    a, b = _u(rng, 120, 260), _u(rng, 70, 140)
    du, dv = X - cx, Y - cy
    along = (du * -math.sin(side) + dv * math.cos(side)) / a
    across = (du * math.cos(side) + dv * math.sin(side)) / b
    mask: np.ndarray = (along ** 2 + across ** 2 <= 1.0).astype(np.float32)
    mask = cv2.GaussianBlur(mask, (0, 0), _u(rng, 6, 14))
    dim = 1.0 - _u(rng, *scene.onlooker_strength) * mask
    ideal *= _upsample(dim, ideal.shape[:2])[..., None]


def _arm_axis(hand: HandPose, board_width_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points along the arm (mm, world), their radii (mm) and whether each is skin (hand, bare arm)."""
    a = math.radians(hand.azimuth_deg)
    back = np.array([math.cos(a), math.sin(a), 0.0])
    t = np.arange(0.0, 1.6 * board_width_mm, 6.0)
    rise = np.clip(t - 180.0, 0, None) * 0.35
    pts = np.array([hand.x, hand.y, hand.z])[None] + t[:, None] * back[None] + rise[:, None] * np.array([0, 0, 1.0])
    radius = np.interp(t, [0, 25, 90, 170, 200, 400, 2000], [16, 34, 44, 30, 32, 42, 48])
    skin = (t < 185) | (hand.sleeve is None)
    return pts, radius, skin


def _pixel(p: np.ndarray) -> tuple[int, int]:
    """A projected point as OpenCV's drawing wants it: whole pixels within the range of a C int. A point of a
    withdrawing arm far out of the picture projects to millions of pixels (confirm_latency, seeds 103M)."""
    limit = 1 << 20
    x, y = (float(v) if np.isfinite(v) else limit for v in p[:2])
    return int(np.clip(x, -limit, limit)), int(np.clip(y, -limit, limit))


def apply_hand(ideal: np.ndarray, scene: Scene, layout: Layout, camera: Camera, hand: HandPose) -> None:
    """Draw a visitor's arm (a shaded tube of skin and sleeve) and its shadow on the board."""
    h, w = ideal.shape[:2]
    pts, radius, skin = _arm_axis(hand, layout.width)
    f = camera.K[0, 0]
    L = key_light(scene)
    # its shadow: the axis cast along the key light onto the board
    ground = pts - pts[:, 2:3] * (L / L[2])[None]
    ground[:, 2] = 0.0
    shadow: np.ndarray = np.zeros((h, w), np.float32)
    for p, r in zip(camera.project(ground), radius):
        depth = float((ground[0] - camera.C) @ camera.R[2])
        cv2.circle(shadow, _pixel(p), max(1, int(f * r / depth)), 1.0, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 6.0)
    ideal *= (1.0 - 0.5 * scene.key_strength / (scene.ambient + scene.key_strength) * shadow)[..., None]
    # the arm itself, far end first
    depth = (pts - camera.C) @ camera.R[2]
    uv = camera.project(pts)
    cover = np.zeros((h, w), np.float32)
    colour = np.zeros((h, w, 3), np.float32)
    light = illumination(scene, layout, np.array(hand.x), np.array(hand.y)).reshape(3)
    brightness = (scene.ambient + 0.8 * scene.key_strength) / (scene.ambient + scene.key_strength)
    for k in range(len(pts) - 1, -1, -1):
        col = np.array(hand.skin if skin[k] else hand.sleeve, np.float32) * light * brightness
        r_px = max(1, int(f * radius[k] / max(depth[k], 1.0)))
        centre = _pixel(uv[k])
        cv2.circle(colour, centre, r_px, col.tolist(), -1, cv2.LINE_AA)
        cv2.circle(cover, centre, r_px, 1.0, -1, cv2.LINE_AA)
    # round shading: darker towards the tube's outline
    rim = cv2.GaussianBlur(cover, (0, 0), 5.0)
    shade = 0.55 + 0.45 * np.clip(rim * 1.4 - 0.4, 0, 1)
    cover = cover[..., None]
    ideal[:] = ideal * (1 - cover) + colour * shade[..., None] * cover


# --------------------------------------------------------------------------- camera pipeline

def lens_and_sensor(ideal: np.ndarray, scene: Scene, camera: Camera, rng: np.random.Generator) -> np.ndarray:
    f, cx, cy = camera.K[0, 0], camera.K[0, 2], camera.K[1, 2]
    u, v = np.meshgrid(np.arange(IMAGE_W, dtype=np.float32), np.arange(IMAGE_H, dtype=np.float32))
    xd = (u + MARGIN_PX - cx) / f
    yd = (v + MARGIN_PX - cy) / f
    r2 = xd * xd + yd * yd
    k = 1 + scene.k1 * r2 + scene.k2 * r2 * r2  # division-style model: undistorted = distorted * k
    map_x = (xd * k * f + cx).astype(np.float32)
    map_y = (yd * k * f + cy).astype(np.float32)
    img: np.ndarray = cv2.remap(ideal, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    img *= scene.exposure
    img *= np.array(scene.white_balance, np.float32)
    rn = r2 / r2.max()
    img *= (1 - scene.vignette * rn)[..., None]
    if scene.motion_blur_px > 0.3:
        n = int(math.ceil(scene.motion_blur_px * 2)) | 1
        kernel = np.zeros((n, n), np.float32)
        ang = _u(rng, 0, np.pi)
        c = n // 2
        cv2.line(kernel, (int(c - math.cos(ang) * c), int(c - math.sin(ang) * c)),
                 (int(c + math.cos(ang) * c), int(c + math.sin(ang) * c)), 1.0, 1)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    img = cv2.GaussianBlur(img, (0, 0), scene.blur_sigma)
    sigma = np.sqrt(scene.noise_sigma ** 2 * (0.4 + 0.6 * np.clip(img, 0, 255) / 128.0))
    img = img + sigma * rng.standard_normal(img.shape).astype(np.float32)
    out = np.clip(img, 0, 255)
    if scene.post_gain != 1.0:              # the sensor clipped above; the camera darkens what it kept
        out = out * scene.post_gain
    out = out.astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:
        raise RuntimeError("JPEG decoding failed")
    return decoded


@dataclass
class Prepared:
    """One scene with one position, rendered up to the room's changing parts and the sensor."""

    scene: Scene
    layout: Layout
    camera: Camera
    ideal: np.ndarray            # float32 canvas, before veils, shadows of people, hands and the sensor
    scene_seed: int


def prepare(board: str, position: str, condition: str = "museum", config: Config | None = None,
            scene_seed: int = 0) -> Prepared:
    """The expensive part of a frame (board texture, lights, ray-cast pieces) for `position` on one scene."""
    config = config or load_config(None)
    layout = Layout.from_config(config, board)
    pieces = pieces_from_position(position, layout.size)
    rng = np.random.default_rng(scene_seed)
    scene = draw_scene(condition, rng, layout.width)
    draw_room(scene, np.random.default_rng((scene_seed, 11)), layout.width)
    camera = make_camera(scene, layout)
    tex = Texture(layout)
    specs = piece_list(scene_seed, scene, layout, pieces)
    board_img = build_board_texture(rng, scene, layout, tex)
    board_img = apply_shadows_and_glare(board_img, scene, layout, tex, specs, camera)
    H = camera.plane_homography() @ tex.to_mm()
    canvas_size = (IMAGE_W + 2 * MARGIN_PX, IMAGE_H + 2 * MARGIN_PX)
    ideal = cv2.warpPerspective(board_img, H, canvas_size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(float(c) * 0.8 for c in CLOTH_RGB[::-1]))
    render_pieces(ideal, scene, layout, camera, specs)
    return Prepared(scene, layout, camera, ideal.astype(np.float32), scene_seed)


def expose(prepared: Prepared, seed: int = 0, hand: HandPose | None = None,
           onlooker_seed: int | None = None) -> np.ndarray:
    """One camera frame of a prepared scene: the room's shadows, a hand, the veils, then lens and sensor.

    `seed` draws what changes from frame to frame (sensor noise and, unless
    `onlooker_seed` fixes it for a run of frames, where an onlooker's shadow falls)."""
    ideal = prepared.ideal.copy()
    p = prepared
    o_seed = seed if onlooker_seed is None else onlooker_seed
    apply_onlooker(ideal, p.scene, p.layout, p.camera, np.random.default_rng((p.scene_seed, o_seed, 13)))
    if hand is not None:
        apply_hand(ideal, p.scene, p.layout, p.camera, hand)
    apply_veils(ideal, p.scene, p.camera)
    return lens_and_sensor(ideal, p.scene, p.camera, np.random.default_rng((p.scene_seed, seed, 7)))


def render(board: str, position: str, seed: int = 0, condition: str = "museum",
           config: Config | None = None, scene_seed: int | None = None, hand: HandPose | None = None) -> np.ndarray:
    """A 1280x720 BGR camera frame of `position` (OTN, first rank first) on `board`.

    `scene_seed` fixes the camera, board, materials and light (default: `seed`);
    `seed` draws the sensor noise and the onlooker's shadow, so the frames of one
    game share a scene; `hand` puts a visitor's arm over the board.
    """
    scene_seed = seed if scene_seed is None else scene_seed
    return expose(prepare(board, position, condition, config, scene_seed), seed, hand)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Independent renderer of the reference tafl board (bench only).")
    ap.add_argument("--board", default="board-11")
    ap.add_argument("--position", help="OTN position record, first rank first (default: the start position)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--condition", default="museum", choices=CONDITIONS)
    ap.add_argument("--hand", action="store_true", help="a visitor's arm over the board")
    args = ap.parse_args(argv)
    config = load_config(None)
    if args.board not in config.boards:
        print(f"error: unknown board {args.board!r}", file=sys.stderr)
        return 2
    position = args.position
    if position is None:
        size = config.boards[args.board].squares
        position = Board(VARIANT_OF_SIZE.get(size, "copenhagen")).position_otn()
    try:
        hand = random_hand(np.random.default_rng((args.seed, 5)), Layout.from_config(config, args.board).width) \
            if args.hand else None
        img = render(args.board, position, args.seed, args.condition, config, hand=hand)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not cv2.imwrite(args.out, img):
        print(f"error: cannot write {args.out}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
