"""What each square looks like, as a few numbers that do not depend on the light.

Every measurement is taken relative to the square's own bare wood (the four
corner patches of the square, which no centred piece reaches): a spotlight,
a shadow or a colour cast changes the wood and the piece alike, so ratios
and chroma differences stay put. Pieces have height, so the top of a piece is
sampled where it appears in the rectified picture: the square's centre pushed
away from the camera's nadir by h / (Z - h).

Features per square (FEATURE_NAMES):
  lum        log(top brightness / wood brightness)        dark attacker << 0
  blue       log(B/R) of the top minus the surrounding wood's   ivory > 0, gold < 0
  green      log(G/R) of the top minus the surrounding wood's
  ring       log(brightness just outside the piece / wood) side wall, shadow
  edge       gradient strength on the piece's outline / wood brightness
  gold       a low percentile of the per-pixel log(B/R) in the top, minus the
             surrounding wood's                                     crown
  texture    brightness spread inside the top / wood brightness
  contrast   (top - wood) / (wood - grid line) brightness: unchanged by glare
             that adds light as well as by light that multiplies it
  plain_lum  log(top brightness / plain wood nearby): on a marked square the
             piece is compared with unmarked wood too (a dark piece on a dark
             camp square is still far darker than the plain wood around)
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.config import PieceConfig
from calibration.geometry import BoardGeometry
from vision.rectify import RectifiedFrame, pixel_index, points_key
from vision.robust import median, nanmedian, row_percentile

# A wood patch with a channel above this (8 bit, +1 as gathered) is near the sensor's clipping: its
# colour ratios say nothing of the wood (vision/occlusion.foreign_squares leaves it out).
COLOUR_CLIPPED = 246.0
#: sample indices kept for the centres and tops asked for lately (FeatureExtractor._index): a frame asks for
#: about ten, and a camera that moves asks anew each frame
INDICES_KEPT = 32
FEATURE_NAMES = ("lum", "blue", "green", "ring", "edge", "gold", "texture", "contrast", "plain_lum")


def _disc(radius_px: float) -> np.ndarray:
    r = int(np.ceil(radius_px))
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    keep = dx * dx + dy * dy <= radius_px * radius_px
    return np.stack([dx[keep], dy[keep]], 1)


def _annulus(r0: float, r1: float) -> np.ndarray:
    r = int(np.ceil(r1))
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    d2 = dx * dx + dy * dy
    keep = (d2 >= r0 * r0) & (d2 <= r1 * r1)
    return np.stack([dx[keep], dy[keep]], 1)


# A king's gold crown is a small top in the middle of his light disc (docs: reference hardware): the crown
# centre (CROWN_CENTRE_MM round the top's centre) against a ring of the disc's top outside it
# (CROWN_RING_MM), in log(blue / red), the crown's gold being short of blue.
CROWN_CENTRE_MM = 2.5
CROWN_RING_MM = (6.5, 8.0)


def crown_centred(rect_bgr: np.ndarray, tops_px: np.ndarray, ppm: float) -> np.ndarray:
    """(n,) how much goldener each top's centre is than the ring of its top round it: log(B/R) of the
    ring minus that of the centre (NaN where the top lies too near the picture's edge to measure).

    WHY: a lamp of warm light tints a defender's whole top gold, and the colour then reads the king, sure
    (hard light, a museum day's York board after the king was captured and parked, seed 61: a defender on
    d9 read the king 0.97, and the next game began with that defender on the throne as the king). The king's
    gold is his crown, smaller than his disc: in the middle of his top and not round it. The held-out
    renderer's hard development frames: kings 0.28 (median; 5th percentile 0.02), defenders -0.06 (99th
    percentile 0.04); this renderer's hard light: kings 0.68, defenders -0.06, that d9 -0.22.
    """
    inner = _disc(CROWN_CENTRE_MM * ppm)
    ring = _annulus(CROWN_RING_MM[0] * ppm, CROWN_RING_MM[1] * ppm)
    h, w = rect_bgr.shape[:2]
    reach = int(np.ceil(CROWN_RING_MM[1] * ppm))
    out = np.full(len(tops_px), np.nan)
    for i, (x, y) in enumerate(np.round(np.asarray(tops_px, np.float64)).astype(int)):
        if reach <= x < w - reach and reach <= y < h - reach:
            out[i] = _blue_red(rect_bgr, x, y, ring) - _blue_red(rect_bgr, x, y, inner)
    return out


def _blue_red(rect_bgr: np.ndarray, x: int, y: int, offsets: np.ndarray) -> float:
    """Median log(B/R) of the pixels at `offsets` round (x, y)."""
    px = rect_bgr[y + offsets[:, 1], x + offsets[:, 0]].astype(np.float32) + 1.0
    return float(np.median(np.log(px[:, 0] / px[:, 2])))


@dataclass
class SquareFeatures:
    """Per-square feature matrix and the wood brightness it was measured against."""

    values: np.ndarray        # (squares, len(FEATURE_NAMES))
    wood_lum: np.ndarray      # (squares,) grey level of the bare wood
    top_px: np.ndarray        # (squares, 2) rectified pixel where each top was sampled
    saturated: np.ndarray     # (squares,) bool: wood and top both blown out by glare
    line_lum: np.ndarray      # (squares,) grey level of the grid lines round the square
    wood_chroma: np.ndarray   # (squares, 2) log(B/R), log(G/R) of the square's corner patches, the glare veil taken off
    colour_unseen: np.ndarray  # (squares,) bool: a channel of the wood near clipping, its colour unknown
    hue_seen: np.ndarray | None = None   # (squares,) bool: blue and green short of clipping, their ratio kept
    crown: np.ndarray | None = None   # (squares,) the gold feature against plain wood (marked squares too)
    plain_clear: np.ndarray | None = None   # (squares,) log(top / plain wood nearby) with the glare veil taken off


class FeatureExtractor:
    """Samples the rectified board at fixed windows, all squares at once."""

    def __init__(self, geometry: BoardGeometry, pieces: PieceConfig, frame: RectifiedFrame):
        from vision.position import marked_squares
        self.geometry = geometry
        self.marked = np.zeros(geometry.size ** 2, bool)
        self.marked[list(marked_squares(geometry.size))] = True
        self.frame = frame
        self.height = pieces.height_mm
        self._indices: dict[tuple, np.ndarray] = {}
        s = frame.ppm
        r = max(pieces.defender_diameter_mm, pieces.attacker_diameter_mm) / 2
        self.radius_mm = r
        self.disc = _disc(0.55 * r * s)
        self.gold_disc = _disc(0.7 * r * s)
        self.ring = _annulus(1.3 * r * s, 1.65 * r * s)[::2]
        ang = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        self.circle = np.stack([np.cos(ang), np.sin(ang)], 1) * r * s
        d = geometry.pitch / 2 - max(4.0, 0.15 * geometry.pitch)
        patch = _disc(max(1.5, 2.5 * s))
        corners = np.array([[d, d], [d, -d], [-d, d], [-d, -d]]) * s
        self.corner_offsets = np.concatenate([patch + np.round(c).astype(int) for c in corners])
        self.patch_len = len(patch)
        # points on the grid lines round the square, near its corners, with
        # samples across each line (the darkest of three is the line)
        h = geometry.pitch / 2
        line_list: list[tuple[float, float]] = []
        across_list: list[tuple[int, int]] = []
        for sx in (-1, 1):
            for sy in (-1, 1):
                for dd in (0.1 * geometry.pitch, 0.15 * geometry.pitch):
                    line_list.append((sx * (h - dd), sy * h))
                    across_list.append((0, 1))
                    line_list.append((sx * h, sy * (h - dd)))
                    across_list.append((1, 0))
        line_pts = np.array(line_list) * np.array([s, -s])
        across = np.array(across_list, np.float64)
        self.line_bands = [np.round(line_pts + across * k).astype(int) for k in (-1.5, 0.0, 1.5)]
        n = geometry.size
        self.centres_mm = np.array([geometry.square_center(sq) for sq in range(n * n)], np.float64)
        self.centres_px = frame.to_px(self.centres_mm)

    def wood_pixels(self) -> np.ndarray:
        """(squares, P, 2) rectified pixels (column, row) of each square's bare-wood corner patches."""
        c = np.round(self.centres_px).astype(np.int32)
        return c[:, None, :] + self.corner_offsets[None].astype(np.int32)

    def top_centres(self, camera_center: np.ndarray | None) -> np.ndarray:
        """Rectified pixel of each square's piece top (base centre raised by the piece height)."""
        if camera_center is None or camera_center[2] <= self.height * 2:
            return self.centres_px
        c = np.asarray(camera_center, np.float64)
        k = self.height / (c[2] - self.height)
        top_mm = self.centres_mm + (self.centres_mm - c[None, :2]) * k
        return self.frame.to_px(top_mm)

    def _index(self, centres: np.ndarray, offsets: np.ndarray, n: int) -> np.ndarray:
        """The flat pixel index of centre + offset for every square (the offsets from the centre's pixel).

        WHY kept: the squares' centres never move and a still camera's piece tops move only when the
        board's pose does, so a frame mostly asks for the indices the one before it did (several
        thousand points, a millisecond a frame of the 30 it may take, issue 15)."""
        key = (n,) + points_key(centres, offsets)
        at = self._indices.get(key)
        if at is None:
            if len(self._indices) >= INDICES_KEPT:
                self._indices.clear()
            at = self._indices[key] = pixel_index(np.round(centres)[:, None, :] + offsets[None], n)
        return at

    def _gather(self, img: np.ndarray, centres: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Pixels at centre + offset for every square: (squares, offsets[, channels]), as float32."""
        n = img.shape[0]
        at = self._index(centres, offsets, n)
        flat = img.reshape(n * n, -1) if img.ndim == 3 else img.reshape(-1)
        return np.add(flat.take(at, axis=0), np.float32(1.0), dtype=np.float32)    # one pass to float32

    def _plain_reference(self, ref_lum: np.ndarray) -> np.ndarray:
        """Per square, the median of a wood measure (brightness, chroma) over the plain squares in the 5x5 round it."""
        n = self.geometry.size
        grid = ref_lum.astype(np.float32).copy()
        grid[self.marked] = np.nan
        grid = grid.reshape(n, n)
        pad = np.pad(grid, 2, mode="edge")
        windows = np.stack([pad[i:i + n, j:j + n] for i in range(5) for j in range(5)], 0)
        out = nanmedian(windows, 0).reshape(-1)
        return np.where(np.isfinite(out), out, ref_lum)

    def extract(self, rect_bgr: np.ndarray, camera_center: np.ndarray | None,
                veil: np.ndarray | None = None, gray: np.ndarray | None = None) -> SquareFeatures:
        """`veil`: the glare's grey level over the rectified picture (vision/glare.py), for `plain_clear`;
        `gray`: the picture in grey when the caller has converted it already."""
        img = rect_bgr
        gray = cv2.cvtColor(rect_bgr, cv2.COLOR_BGR2GRAY) if gray is None else gray
        gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0, ksize=3)
        gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1, ksize=3)
        grad = cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy))
        tops = self.top_centres(camera_center)
        lum_w = np.array([0.114, 0.587, 0.299], np.float32)

        corner = self._gather(img, self.centres_px, self.corner_offsets)          # (S, 4*P, 3)
        S = corner.shape[0]
        patch_means = corner.reshape(S, 4, self.patch_len, 3).mean(2)           # (S, 4, 3)
        patch_lum = patch_means @ lum_w
        order = np.argsort(patch_lum, 1)
        mid = np.take_along_axis(patch_means, order[:, 1:3, None], 1).mean(1)    # median of 4 patches
        ref_lum = mid @ lum_w

        disc = self._gather(img, tops, self.disc)                                 # (S, D, 3)
        top = median(disc, 1)
        top_lum = top @ lum_w
        disc_lum = disc @ lum_w
        ring = self._gather(img, tops, self.ring)
        ring_bgr = median(ring, 1)
        ring_lum = median(ring @ lum_w, 1)
        edge_pts = np.concatenate([tops[:, None, :] + self.circle[None], self.centres_px[:, None, :] + self.circle[None]], 1)
        n = grad.shape[0]
        ec = np.clip(np.round(edge_pts).astype(np.int32), 0, n - 1)
        edge = grad[ec[..., 1], ec[..., 0]].mean(1).astype(np.float32)

        gdisc = self._gather(img, tops, self.gold_disc)
        pix_blue = np.log(gdisc[..., 0]) - np.log(gdisc[..., 2])
        # chroma of the wood right round the piece: the corner patches sit next
        # to other squares' colours, which camera chroma subsampling smears in
        ref_blue = np.log(ring_bgr[:, 0]) - np.log(ring_bgr[:, 2])
        ref_green = np.log(ring_bgr[:, 1]) - np.log(ring_bgr[:, 2])
        gold = row_percentile(pix_blue, 15) - ref_blue

        line_lum = median(np.minimum.reduce([self._gather(gray, self.centres_px, b) for b in self.line_bands]), 1)
        contrast = (top_lum - ref_lum) / np.maximum(ref_lum - line_lum, 0.3 * ref_lum)

        plain = self._plain_reference(ref_lum)

        values = np.stack([
            np.log(top_lum / ref_lum),
            np.log(top[:, 0] / top[:, 2]) - ref_blue,
            np.log(top[:, 1] / top[:, 2]) - ref_green,
            np.log(ring_lum / ref_lum),
            edge / ref_lum,
            gold,
            disc_lum.std(1) / ref_lum,
            contrast,
            np.log(top_lum / plain),
        ], 1).astype(np.float64)
        saturated = (mid.min(1) > 246) & (top.min(1) > 246)      # every channel clipped: pure white
        # the crown's gold measured against plain wood: a marked square's stain
        # would otherwise make a king standing on it look less gold than he is
        taken_blue = np.log(mid[:, 0] / mid[:, 2])
        plain_blue = self._plain_reference(taken_blue)
        crown = gold + np.where(self.marked, taken_blue - plain_blue, 0.0)
        # the wood's own colour: a veil adds white, which pulls every channel's
        # ratio towards 1, so taken as seen a veil's patch looks off-colour like
        # a sleeve; with the veil's grey level off the corner patches it is the
        # wood's again. A channel near clipping has lost its ratio altogether.
        wood = mid
        if veil is not None:
            v_corner = self._gather(veil, self.centres_px, self.corner_offsets) - 1.0
            v_patch = v_corner.reshape(S, 4, self.patch_len).mean(2)
            v_mid = np.take_along_axis(v_patch, order[:, 1:3], 1).mean(1)
            wood = np.maximum(mid - v_mid[:, None], 1.0)
        wood_chroma = np.stack([np.log(wood[:, 0] / wood[:, 2]), np.log(wood[:, 1] / wood[:, 2])], 1)
        colour_unseen = mid.max(1) > COLOUR_CLIPPED
        # red clips first on wood (its brightest channel); blue against green is kept while both are short of
        # clipping, and a white veil never lifts wood's blue above its green (vision/occlusion.foreign_squares)
        hue_seen = mid[:, :2].max(1) <= COLOUR_CLIPPED
        # a veil over the plain wood round a square but not over its piece (or the
        # other way) would tilt the comparison with plain wood: take it off both
        plain_clear = values[:, FEATURE_NAMES.index("plain_lum")]
        if veil is not None:
            v_top = self._gather(veil, tops, np.zeros((1, 2), int))[:, 0] - 1.0
            v_wood = self._gather(veil, self.centres_px, np.zeros((1, 2), int))[:, 0] - 1.0
            wood_clear = np.maximum(ref_lum - v_wood, 1.0)
            plain_clear = np.log(np.maximum(top_lum - v_top, 1.0) / self._plain_reference(wood_clear))
        return SquareFeatures(values=values, wood_lum=ref_lum - 1.0, top_px=tops, saturated=saturated,
                              line_lum=line_lum - 1.0,
                              wood_chroma=wood_chroma, crown=crown, plain_clear=plain_clear,
                              colour_unseen=colour_unseen, hue_seen=hue_seen)
