"""Camera frames of the reference board for the simulation and the tests.

A frame is built the way light makes it: a top-down texture of the board is
lit (daylight gradient, spotlights, the pieces' soft shadows), warped through a
pinhole camera with lens distortion, the pieces are drawn as shaded cylinders
in perspective (far ones first), then an optional arm reaches in, glare,
blur, sensor noise and JPEG compression damage the picture. Each frame draws
its materials at random within the spec (wood and ivory shades, piece height
8-12 mm) so that tests do not lean on one look.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.config import Config
from calibration.geometry import BoardGeometry
from vision.render_board import TextureFrame, board_texture, rgb_to_bgr
from vision.render_camera import CameraModel, board_to_image_maps, sample_camera
from vision.render_conditions import conditions

CIRCLE_STEPS = 36


@dataclass
class Piece3D:
    letter: str
    x: float
    y: float
    radius: float
    height: float
    crown_radius: float = 0.0
    crown_height: float = 0.0


@dataclass
class Light:
    position: np.ndarray      # board mm, z up
    strength: float
    colour: np.ndarray        # BGR multiplier
    sigma_mm: float           # spot footprint on the board


@dataclass
class Rendered:
    """The frame and what produced it (tests use the camera to check geometry)."""

    image: np.ndarray
    camera: CameraModel
    pieces: dict[int, str]
    hand: bool
    meta: dict = field(default_factory=dict)


def render_frame(pieces: Mapping[int, str], board: str = "board-11", *, seed: int = 0, condition: str = "museum",
                 hand: bool = False, config: Config | None = None, camera: CameraModel | None = None,
                 hide_markers: tuple[int, ...] = (), dark: float | None = None,
                 board_look: dict | None = None) -> Rendered:
    """Render the position `pieces` (square index -> 't'/'T'/'K') on `board`.

    `camera` fixes the pose (a sequence of frames from one mounted camera);
    `board_look`, a dict the caller keeps, fixes the board's wood, lines and
    markers too (one physical board under that camera): its top-down texture
    is drawn on the first frame and reused, while light, pieces and sensor
    vary per frame as before (the texture is a third of a frame's cost);
    `hide_markers` paints over marker ids (a covered marker); `dark` overrides
    the exposure (a light switched off).
    """
    config = config or Config()
    cond = conditions(condition)
    rng = np.random.default_rng(seed)
    geo = BoardGeometry.from_config(config, board)
    W = geo.width
    size_px = (config.camera.width, config.camera.height)
    mk = config.markers
    extent = mk.offset_mm + mk.size_mm / 2 + mk.quiet_zone_mm
    if camera is None:
        camera = sample_camera(rng, W, extent, size_px, cond.max_tilt_deg, cond.distance_mm, cond.distortion, cond.fill)
    else:
        rng.uniform(size=8)
    frame = TextureFrame(ppm=2.0, lo=-170.0, hi=W + 170.0)
    colours = _materials(rng, config)
    lights = _lights(rng, cond, W)
    pieces3d = _pieces(rng, pieces, geo, config, cond)

    if board_look is not None and "texture" in board_look:
        tex = board_look["texture"].copy()
    else:
        tex = board_texture(geo, frame, rng, colours, grain=rng.uniform(0.03, 0.09))
        if board_look is not None:
            board_look["texture"] = tex.copy()
    for marker_index, marker_id in enumerate(mk.ids):
        if marker_id in hide_markers:
            cx, cy = geo.marker_center(marker_index)
            a = frame.to_px(np.array([[cx - extent, cy + extent], [cx + extent, cy - extent]]))
            (c0, r0), (c1, r1) = a.astype(int)
            tex[r0:r1, c0:c1] = colours["frame"] * 0.6
    light_field, piece_light = _light_field(frame, lights, cond, rng, pieces3d, tex.shape[:2])
    exposure = dark if dark is not None else rng.uniform(*cond.exposure)
    # the camera's auto-exposure: the playing area's mean light maps to `exposure`
    (c0, r0), (c1, r1) = frame.to_px(np.array([[0.0, W], [W, 0.0]])).astype(int)
    exposure /= float(light_field[r0:r1:4, c0:c1:4].mean())
    # texture x light x exposure, clipped, in place: the texture is large and
    # temporaries of its size were a third of a frame's time
    lit_f = np.multiply(light_field, tex, out=light_field)
    lit_f *= exposure
    lit = np.clip(lit_f, 0, 255, out=lit_f).astype(np.uint8)

    mx, my = board_to_image_maps(camera, frame.matrix())
    image = cv2.remap(lit, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                      borderValue=tuple(float(v) * exposure * 0.5 for v in colours["table"]))

    _draw_pieces(image, pieces3d, piece_light, camera, lights, colours, exposure, rng, cond)
    if hand:
        _draw_arm(image, camera, geo, rng)
    image = _damage(image, rng, cond)
    return Rendered(image=image, camera=camera, pieces=dict(pieces), hand=hand,
                    meta={"condition": condition, "seed": seed, "exposure": exposure, "board": board})


def _materials(rng: np.random.Generator, config: Config) -> dict[str, np.ndarray]:
    """Colours of this frame's board and pieces: the config's, varied within the spec's words."""
    spec = config.boards[config.board].wood_rgb if config.board in config.boards else (214, 178, 128)
    jitter = lambda rgb, a: rgb_to_bgr(rgb) * rng.uniform(1 - a, 1 + a, 3).astype(np.float32)  # noqa: E731
    wood = jitter(spec, 0.1) * rng.uniform(0.9, 1.05)
    return {
        "wood": wood,
        "marked": jitter(config.boards[config.board].marked_rgb, 0.1),
        "line": jitter(config.boards[config.board].line_rgb, 0.2),
        "frame": wood * rng.uniform(0.55, 1.0) * rng.uniform(0.93, 1.07, 3).astype(np.float32),
        "table": np.array(rng.uniform(40, 70) * rng.uniform(0.85, 1.15, 3), np.float32),
        "paper": np.array([242, 244, 245], np.float32) * rng.uniform(0.92, 1.0),
        "ink": np.array([22, 22, 24], np.float32) * rng.uniform(0.7, 1.3),
        "attacker": jitter(config.pieces.attacker_rgb, 0.25),
        "defender": np.minimum(jitter(config.pieces.defender_rgb, 0.06), 255),
        "crown": jitter(config.pieces.crown_rgb, 0.1),
    }


def _lights(rng: np.random.Generator, cond, W: float) -> list[Light]:
    """A broad key light (daylight / ceiling) and some spotlights."""
    def cast():
        return (1.0 + rng.normal(0, cond.colour_cast, 3)).astype(np.float32)
    key = Light(np.array([rng.uniform(-0.7, 1.7) * W, rng.uniform(-0.7, 1.7) * W, rng.uniform(700, 1500)]),
                1.0, cast(), 1e6)
    spots = []
    for _ in range(rng.integers(cond.spots[0], cond.spots[1] + 1)):
        spots.append(Light(np.array([rng.uniform(0, W), rng.uniform(0, W), rng.uniform(900, 1600)]),
                           rng.uniform(*cond.spot_strength), cast() * np.array([0.85, 0.95, 1.1], np.float32),
                           rng.uniform(0.15, 0.45) * W))
    return [key] + spots


def _light_at(lights: list[Light], xy: np.ndarray, ambient: float) -> np.ndarray:
    """Illumination (BGR multiplier) of horizontal surfaces at board points xy (N x 2)."""
    total = np.full((len(xy), 3), ambient, np.float32)
    for light in lights:
        d2 = ((light.position[None, :2] - xy) ** 2).sum(1)
        falloff = np.exp(-d2 / (2 * light.sigma_mm ** 2))
        total += (light.strength * falloff)[:, None].astype(np.float32) * light.colour[None, :]
    return total


def _light_field(frame: TextureFrame, lights: list[Light], cond, rng, pieces3d: list[Piece3D],
                 shape: tuple[int, int]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per-texture-pixel illumination: ambient, lights, a daylight gradient, the pieces' soft shadows.

    Also the light without the shadows at each piece's centre, which lights
    that piece (its own shadow falls beside it, not on its top)."""
    step = 8
    n = shape[0]
    coarse = n // step + 1
    idx = (np.arange(coarse) * step + 0.5) / frame.ppm
    xs = frame.lo + idx
    ys = frame.hi - idx
    gx, gy = np.meshgrid(xs, ys)
    ambient = 0.35
    key, spots = lights[0], lights[1:]
    pts = np.stack([gx.ravel(), gy.ravel()], 1)
    base = _light_at([Light(key.position, 0.0, key.colour, key.sigma_mm)] + spots, pts, ambient)
    ramp = np.array([math.cos(a := rng.uniform(0, 2 * math.pi)), math.sin(a)])
    grad = 1.0 + cond.gradient * ((pts - (frame.lo + frame.hi) / 2) @ ramp) / (frame.hi - frame.lo)
    base = base * grad[:, None]
    keyf = key.strength * 0.55 * key.colour[None, :] * grad[:, None]
    base_img = cv2.resize(base.reshape(coarse, coarse, 3), (n, n), interpolation=cv2.INTER_LINEAR)
    key_img = cv2.resize(keyf.reshape(coarse, coarse, 3).astype(np.float32), (n, n), interpolation=cv2.INTER_LINEAR)
    # soft shadows of the pieces from the key light, drawn at half resolution
    half = n // 2
    mask: np.ndarray = np.zeros((half, half), np.float32)
    block = rng.uniform(*cond.shadow)
    for p in pieces3d:
        h = p.height + p.crown_height
        L = key.position
        shift = h * (np.array([p.x, p.y]) - L[:2]) / (L[2] - h)
        ang = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        ring = np.stack([np.cos(ang), np.sin(ang)], 1) * p.radius
        pts2 = np.vstack([ring + [p.x, p.y], ring + [p.x, p.y] + shift])
        px = frame.to_px(pts2) / 2
        hull = cv2.convexHull(px.astype(np.float32))
        cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), 1.0, lineType=cv2.LINE_8, shift=4)
    sigma = rng.uniform(*cond.shadow_blur_mm) * frame.ppm / 2
    mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    mask = cv2.resize(mask, (n, n), interpolation=cv2.INTER_LINEAR)
    centres = [np.clip(frame.to_px(np.array([p.x, p.y])), 0, n - 1).astype(int) for p in pieces3d]
    piece_light = [base_img[r, c] + key_img[r, c] for c, r in centres]
    # in place: these arrays are the texture's size, and temporaries of it were slow
    shade = np.subtract(1.0, np.multiply(mask, block, out=mask), out=mask)
    light = np.add(base_img, np.multiply(key_img, shade[..., None], out=key_img), out=base_img)
    return light, piece_light


def _pieces(rng, pieces: Mapping[int, str], geo: BoardGeometry, config: Config, cond) -> list[Piece3D]:
    pc = config.pieces
    height = rng.uniform(8.0, 12.0)
    out = []
    for sq, letter in pieces.items():
        cx, cy = geo.square_center(sq)
        off = rng.normal(0, cond.piece_offset_mm / 2, 2).clip(-cond.piece_offset_mm, cond.piece_offset_mm)
        if letter == "t":
            p = Piece3D("t", cx + off[0], cy + off[1], pc.attacker_diameter_mm / 2, height)
        elif letter == "T":
            p = Piece3D("T", cx + off[0], cy + off[1], pc.defender_diameter_mm / 2, height)
        elif letter == "K":
            r = pc.king_diameter_mm / 2
            p = Piece3D("K", cx + off[0], cy + off[1], r, height + pc.king_extra_height_mm * 0.4,
                        crown_radius=r * rng.uniform(0.45, 0.7), crown_height=pc.king_extra_height_mm * 0.6)
        else:
            raise ValueError(f"unknown piece letter {letter!r}")
        out.append(p)
    return out


def _draw_pieces(image: np.ndarray, pieces3d: list[Piece3D], piece_light: list[np.ndarray], cam: CameraModel,
                 lights: list[Light],
                 colours: dict[str, np.ndarray], exposure: float, rng, cond) -> None:
    """Shaded cylinders, far first, so nearer pieces hide the ones behind them."""
    if not pieces3d:
        return
    C = cam.center
    order = sorted(zip(pieces3d, piece_light), key=lambda q: -((q[0].x - C[0]) ** 2 + (q[0].y - C[1]) ** 2))
    ang = np.linspace(0, 2 * np.pi, CIRCLE_STEPS, endpoint=False)
    cs, sn = np.cos(ang), np.sin(ang)
    key = lights[0]
    for p, light in order:
        body = colours["attacker"] if p.letter == "t" else colours["defender"]
        rings = [(p.radius, 0.0, p.height)]
        if p.crown_radius:
            rings.append((p.crown_radius, p.height, p.height + p.crown_height))
        for level, (r, z0, z1) in enumerate(rings):
            colour = body if level == 0 else colours["crown"]
            pts = []
            for z in (z0, z1):
                pts.append(np.stack([p.x + r * cs, p.y + r * sn, np.full_like(cs, z)], 1))
            px = cam.project(np.vstack(pts))
            bottom, top = px[:CIRCLE_STEPS], px[CIRCLE_STEPS:]
            to_light = key.position - np.array([p.x, p.y, z1])
            to_light /= np.linalg.norm(to_light)
            for i in range(CIRCLE_STEPS):
                j = (i + 1) % CIRCLE_STEPS
                mid = (ang[i] + ang[j]) / 2 if j else (ang[i] + 2 * np.pi) / 2
                normal = np.array([math.cos(mid), math.sin(mid), 0.0])
                view = C - np.array([p.x + r * normal[0], p.y + r * normal[1], (z0 + z1) / 2])
                if normal @ view <= 0:
                    continue
                shade = 0.3 + 0.8 * max(0.0, float(normal @ to_light)) + 0.15 * float(normal @ view / np.linalg.norm(view))
                quad = np.array([bottom[i], bottom[j], top[j], top[i]])
                _fill(image, quad, colour * light * shade * exposure)
            top_colour = colour * light * exposure * (1.05 if level else 1.0)
            _fill(image, top, top_colour)
            if level == 0 and rng.random() < cond.specular:
                c = top.mean(0) + (top[0] - top.mean(0)) * rng.uniform(-0.4, 0.4)
                axes = (max(1, int(np.ptp(top[:, 0]) * 0.12)), max(1, int(np.ptp(top[:, 1]) * 0.08)))
                overlay = image.copy()
                cv2.ellipse(overlay, (int(c[0]), int(c[1])), axes, rng.uniform(0, 180), 0, 360,
                            (255, 255, 255), -1, cv2.LINE_AA)
                a = rng.uniform(0.2, 0.6)
                cv2.addWeighted(overlay, a, image, 1 - a, 0, dst=image)


def _fill(image: np.ndarray, poly: np.ndarray, colour) -> None:
    c = tuple(float(min(255.0, max(0.0, v))) for v in colour)
    hull = cv2.convexHull(poly.astype(np.float32))
    cv2.fillConvexPoly(image, np.round(hull * 16).astype(np.int32), c, lineType=cv2.LINE_AA, shift=4)


def _draw_arm(image: np.ndarray, cam: CameraModel, geo: BoardGeometry, rng) -> None:
    """A visitor's arm reaching from the image edge to a square, with its shadow."""
    h, w = image.shape[:2]
    # the hand reaches for a square at least one in from the edge, as when moving a piece
    f, r = rng.integers(1, geo.size - 1, 2)
    tx, ty = geo.square_center(int(r) * geo.size + int(f))
    tip = cam.project(np.array([[tx, ty, 60.0]]))[0]
    side = rng.integers(4)
    entry_xy = {0: (rng.uniform(0, w), -40), 1: (w + 40, rng.uniform(0, h)),
             2: (rng.uniform(0, w), h + 40), 3: (-40, rng.uniform(0, h))}[int(side)]
    entry = np.array(entry_xy, np.float64)
    ends = cam.project(np.array([[tx, ty, 60.0], [tx + 10, ty, 60.0]]))
    scale = float(np.linalg.norm(ends[1] - ends[0]))        # pixels per 10 mm at the hand
    width = 80 * scale / 10 * rng.uniform(0.9, 1.2)     # an arm about 80 mm wide
    direction = (tip - entry) / np.linalg.norm(tip - entry)
    normal = np.array([-direction[1], direction[0]])
    wrist = tip - direction * 70 * scale / 10
    tone = rng.uniform()
    skin = (np.array([185, 205, 240]) * (1 - tone) + np.array([55, 80, 120]) * tone) * rng.uniform(0.92, 1.08, 3)
    sleeve = rng.uniform(30, 200, 3)
    shadow_shift = np.array(rng.normal(0, 1, 2)) * 40 * scale / 10
    arm_poly = np.array([entry + normal * width * 0.6, wrist + normal * width * 0.45,
                         wrist - normal * width * 0.45, entry - normal * width * 0.6])
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, (arm_poly + shadow_shift).astype(np.int32), 255)
    cv2.ellipse(mask, tuple(int(v) for v in tip + shadow_shift), (int(width * 0.55), int(width * 0.7)),
                math.degrees(math.atan2(direction[1], direction[0])) + 90, 0, 360, 255, -1)
    shadow = _soft(mask, width * 0.3)
    image[:] = (image * (1 - 0.5 * shadow[..., None])).astype(np.uint8)
    cv2.fillConvexPoly(image, arm_poly.astype(np.int32), tuple(float(v) for v in sleeve), cv2.LINE_AA)
    cv2.ellipse(image, tuple(int(v) for v in tip), (int(width * 0.5), int(width * 0.65)),
                math.degrees(math.atan2(direction[1], direction[0])) + 90, 0, 360,
                tuple(float(v) for v in skin), -1, cv2.LINE_AA)
    for k in range(4):
        f0 = tip + direction * width * 0.45 + normal * width * (k - 1.5) * 0.22
        f1 = f0 + direction * width * rng.uniform(0.35, 0.6)
        cv2.line(image, tuple(int(v) for v in f0), tuple(int(v) for v in f1), tuple(float(v) * 0.95 for v in skin),
                 max(2, int(width * 0.16)), cv2.LINE_AA)
    # cylindrical shading across the arm
    shade = np.zeros((h, w), np.float32)
    cv2.fillConvexPoly(shade, (arm_poly + normal * width * 0.3).astype(np.int32), 1.0)
    shade = _soft(shade, width * 0.2)
    image[:] = np.clip(image * (1 - 0.25 * shade[..., None]), 0, 255).astype(np.uint8)


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """A wide Gaussian blur done at quarter resolution (soft shadows need no detail)."""
    h, w = mask.shape[:2]
    small = cv2.resize(mask.astype(np.float32), (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), max(0.5, sigma / 4))
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return out / 255.0 if mask.dtype == np.uint8 else out


def _damage(image: np.ndarray, rng, cond) -> np.ndarray:
    """Glare, blur, sensor noise and JPEG compression."""
    h, w = image.shape[:2]
    out: np.ndarray = image.astype(np.float32)
    n_glare = int(rng.integers(cond.glare[0], cond.glare[1] + 1))
    if n_glare:
        glare = np.zeros((h // 4, w // 4), np.float32)
        for _ in range(n_glare):
            c = (int(rng.uniform(0.2, 0.8) * w / 4), int(rng.uniform(0.2, 0.8) * h / 4))
            axes = (int(rng.uniform(8, 30)), int(rng.uniform(5, 18)))
            cv2.ellipse(glare, c, axes, rng.uniform(0, 180), 0, 360, rng.uniform(*cond.glare_strength), -1)
        glare = cv2.GaussianBlur(glare, (0, 0), 5)
        glare = cv2.resize(glare, (w, h), interpolation=cv2.INTER_LINEAR)
        out += glare[..., None] * 255
    sigma = rng.uniform(*cond.blur)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, rng.uniform(*cond.noise), out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.integers(cond.jpeg[0], cond.jpeg[1] + 1))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:                     # our own encoding: cannot happen short of a broken OpenCV
        raise RuntimeError("the JPEG round trip of a rendered frame failed")
    return decoded
