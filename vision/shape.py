"""Is there a disc with a rim, or only light and shade? The shape of a piece, square by square.

WHY: colour alone cannot tell an ivory piece from a bright, pale veil of
glare over bare wood, nor a dark piece from the shadow of a visitor: both
are a lighter (or darker) patch than the wood round them. What neither a
veil nor a shadow has is a piece's outline: a disc of the piece's known
diameter whose edge steps from the top to the wood (or to the side wall)
within a couple of pixels, all the way round, wherever the piece stands on
its square. A veil fades over many pixels; a shadow's edge crosses the
square on one side only.

Along rays from each square's top (the centre raised by the piece height,
as the features sample it) the brightness is read from well inside the
disc to well outside it. Per ray, the sharpest step over EDGE_PX pixels is
compared with the whole step from inside to outside; the median over the
rays is the square's `sharpness` (about 1 for a piece, blurred by the lens;
well under a half for a veil). It is measured both ways: a fall outward
for a light piece (`sharpness`), a rise outward for a dark one
(`sharpness_dark`). Each ray finds its own edge, so a piece left off centre
by a visitor keeps its sharpness.

A sharp ratio means nothing when the whole step is lost in the sensor's
noise (a dim room): `lift` (inside minus outside, grey levels) is also
compared with `noise`, the frame's own pixel-to-pixel scatter, so a faint
"disc" made of noise and grain is not taken for a piece.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.position import SquareClass
from vision.rectify import pixel_index, points_key
from vision.robust import mean_last, median, row_percentile

RAYS = 24
INNER = 0.55           # radii (piece radii) the profile starts at (outside the king's crown) ...
OUTER = 1.75           # ... and ends at
EDGE_PX = 3            # pixels over which a piece's rim steps (lens blur included)
MIN_STEP = 2.0         # grey levels: a whole step smaller than this has no measurable rim
NOISE_SIGMA = 2.0      # the scatter is measured against the picture blurred this much (px)
NOISE_STRIDE = 3       # ... on every third pixel each way (the median needs no more)


@dataclass(frozen=True)
class MovedTop:
    """A light top found off the expected one (OutlineMeter._moved), per square."""

    lift: np.ndarray            # `Outline.lift` round it (-inf where none was found)
    sharpness: np.ndarray       # `Outline.sharpness` round it (0 where none)
    roundness: np.ndarray       # `Outline.roundness` round it (0 where none)


@dataclass(frozen=True)
class Outline:
    sharpness: np.ndarray       # (squares,) light rim: median over rays of sharpest fall / whole fall
    sharpness_dark: np.ndarray  # (squares,) dark rim: median over rays of sharpest rise / whole rise
    lift: np.ndarray            # (squares,) inside minus outside brightness (median over rays), grey levels
    noise: float                # the frame's pixel scatter (robust sigma, grey levels)
    fall: np.ndarray            # (squares,) the sharpest fall outward over EDGE_PX (median over rays), grey levels
    rise: np.ndarray            # (squares,) the sharpest rise outward over EDGE_PX (median over rays), grey levels
    wall: np.ndarray            # (squares,) a dark arc round the disc's rim (piece_wall), grey levels
    wood_noise: np.ndarray      # (squares,) the pixel scatter on the square's own bare wood
    roundness: np.ndarray       # (squares,) share of rays one circle of the piece's size explains
    lift_far: np.ndarray | None = None   # (squares,) `lift` over the rays away from the camera only (None: as lift)
    top_far: np.ndarray | None = None    # (squares,) the top's grey level on those rays (None: not measured)
    lift_moved: np.ndarray | None = None  # (squares,) `lift` round the darkest top moved MOVED_SHIFT radii (else inf)
    sharpness_dark_moved: np.ndarray | None = None    # (squares,) `sharpness_dark` round that top (else 0)
    wall_colour: np.ndarray | None = None  # (squares,) `wall` in the deepest colour channel, near white (else 0)
    rays_clipped: np.ndarray | None = None  # (squares,) share of rays whose wood (their last WALL_EDGE samples) is clipped
    lit_moved: MovedTop | None = None      # a light top beside a top that read darker than its ring


def fine_detail(gray: np.ndarray) -> np.ndarray:
    """|picture - picture blurred by NOISE_SIGMA|: sensor noise, grain and JPEG, without the light's slopes."""
    g = gray.astype(np.float32)
    return cv2.absdiff(g, cv2.GaussianBlur(g, (0, 0), NOISE_SIGMA))       # np.abs(g - blurred)'s numbers, in one pass


def noise_of(fine: np.ndarray) -> float:
    """pixel_noise from a fine_detail the caller has already: one blur of the picture serves both."""
    return float(1.4826 * median(fine[::NOISE_STRIDE, ::NOISE_STRIDE].reshape(1, -1), 1)[0])


def pixel_noise(gray: np.ndarray) -> float:
    """Robust sigma of the picture's fine detail (sensor noise, grain, JPEG), in grey levels."""
    g = gray.astype(np.float32)
    every = (slice(None, None, NOISE_STRIDE),) * 2      # only the pixels the median takes are differenced
    fine = g[every] - cv2.GaussianBlur(g, (0, 0), NOISE_SIGMA)[every]
    return float(1.4826 * np.median(np.abs(fine)))


# The shaded side wall of a piece (seen under tilt on the camera's side) and
# its shadow on the wood (on the side away from the lamp) make a dark arc
# round the top's rim, darker than both the top inside it and the wood outside
# it. A veil of glare that clips wood and top to white leaves that arc where
# wall or shadow stay below white, and a veil (its soft core a hill of light,
# its edge a slope) never makes one. Measured on the picture blurred by
# WALL_BLUR px (the arc is several pixels wide, the sensor's grain is not), per
# ray as the smaller of the inside and outside levels minus the darkest level
# between them, and over the rays at the WALL_ARC percentile: an arc, not a ring.
WALL_BLUR = 1.0
WALL_ARC = 85.0
WALL_EDGE = 3          # samples at each end of a ray that are the top and the wood
# The arc is sought only this far (px) inside the grid lines round the square
# (their drawn half width and the picture's blur): a line is a dark band too.
WALL_LINE_CLEAR = 5.0
# A visitor sets a piece down off its square's centre, and its wall then
# curves round another top than the one expected: where the reader asks
# (glare, OutlineMeter.measure `search`), the wall is looked for round tops
# moved SEARCH_SHIFT piece radii in SEARCH_DIRECTIONS directions as well.
SEARCH_SHIFT = 0.45
SEARCH_DIRECTIONS = 6
# A dark piece set down off its square's centre (a robot's or a visitor's few millimetres, a piece lower than the
# configured height) shows its top beside the expected one: the rays' inner ends land on the wood on one side,
# their outer ends on the piece's own shaded wall on the other, and its lift (inside minus outside) comes out
# near zero, its dark rim's sharpness flickering with the noise, although it is plainly a dark piece. Round a top
# no lighter than its ring, tops moved MOVED_SHIFT piece radii in MOVED_DIRECTIONS directions are tried too (the
# rays' ends only); the darkest, if darker than the expected top's by MOVED_GAIN sigmas of the noise, is measured
# in full (Outline.lift_moved, sharpness_dark_moved), and `moved_dark_top` takes it where its dark rim is plain,
# on plain wood out of veils. (The simulation's museum demo, Throw Board set-up, k5: an attacker read in doubt in
# 3 of 8 pictures and the visitor asked to put it on; lift -4 to -6 grey levels, its rim 0.25-0.63 sharp; round
# the moved top -66 to -69 and 0.83-0.88, sure in 8 of 8. Cached held-out hand-free frames, 258 hard and 200
# museum: 11 and 6 fewer squares held back, best guesses wrong 178 and 7 as before, none wrong and sure.)
# Round a top that read darker than its ring, the lightest moved top is measured in full too where it stands
# that far above the expected one and plainly above the noise (Outline.lit_moved): a light piece set down
# so far off that its expected top fell on its shaded far rim (`moved_light_top`).
MOVED_SHIFT = 0.3
MOVED_DIRECTIONS = 8
MOVED_GAIN = 3.0
# A piece's rim is a circle of the piece's size, wherever a visitor set it
# down: along every ray its fall lies where that circle crosses the ray. A
# veil's soft core, a band of light's edge or the grid lines have their falls
# where they happen to lie. So circles of ROUND_RADII piece radii round tops
# moved up to ROUND_SHIFT piece radii (in steps of ROUND_GRID) are tried, and
# a square's `Outline.roundness` is the largest share of rays that one of them
# explains: the ray's fall where the circle crosses it (within a pixel) is at
# least ROUND_SHARE of the ray's sharpest fall out to ROUND_REACH radii.
# (Development frames, museum and hard light: of the light pieces whose disc
# was seen with a rim, 41 of 4,890 and 95 of 3,592 were explained less than
# 0.7, 3 and 18 less than 0.5; of the empty squares with such a "disc", under
# veils and bands of light, 1 of 11 and 10 of 64 were explained 0.7 or more.)
ROUND_RADII = (0.9, 1.0, 1.1)
ROUND_SHIFT = 0.5
ROUND_GRID = 0.125
ROUND_SHARE = 0.7
ROUND_REACH = 1.6
# The rays start INNER radii from the expected top, so a light piece set down further off it than that has rays
# that start on the wood beyond its rim, and no circle explains them (hard light, fresh seeds 145,081,017 k9: a
# defender plainly seen, its top 27 grey levels above the wood, its rim 0.98 sharp, read a sure empty (1.0): one
# circle explained 12 of 24 rays, and 21 round the top moved ROUND_MOVED_SHIFT radii down-left). Where a sharp
# light disc is explained less than in full, the rays are cast again from tops moved ROUND_MOVED_SHIFT radii in
# ROUND_MOVED_DIRECTIONS directions; a moved top at least as light as the expected one (the rays still start on
# the piece's top) lends its roundness.
ROUND_MOVED_SHIFT = 0.45
ROUND_MOVED_DIRECTIONS = 8


def _whole_step(prof: np.ndarray) -> np.ndarray:
    """Along each ray's profile (last axis, outward): its first three samples' mean minus its last three's."""
    return mean_last(prof[..., :3]) - mean_last(prof[..., -3:])


def _samples(gray: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The grey levels of `gray` at the flat pixel indices `at` (any shape), as float32."""
    return gray.ravel().take(at).astype(np.float32)


def _rays_from(gray: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(whole, steps) along the rays whose samples' flat pixel indices are `at` (T, R, K): each ray's whole
    step (T, R, as _whole_step) and its falls outward over EDGE_PX (T, R, steps)."""
    prof = _samples(gray, at)
    return _whole_step(prof), prof[..., :-EDGE_PX] - prof[..., EDGE_PX:]


def _rim(sharpest: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """Median over rays of the sharpest step (S, R) against the whole step (0 where there is no step)."""
    sharp = sharpest / np.maximum(whole, 1.0)
    return median(np.where(whole > MIN_STEP, sharp, 0.0), 1)


def _masked_median(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(..., S): the median along the last axis of `values` (..., S, R) over the entries `mask` (S, R)
    marks (one at least per row); a sort, several times faster than NaN-aware medians."""
    ordered = np.sort(np.where(mask, values, np.inf), -1)
    count = mask.sum(-1)
    low = np.take_along_axis(ordered, np.broadcast_to(((count - 1) // 2)[:, None], ordered.shape[:-1] + (1,)), -1)
    high = np.take_along_axis(ordered, np.broadcast_to((count // 2)[:, None], ordered.shape[:-1] + (1,)), -1)
    return (low[..., 0] + high[..., 0]) / 2.0


class OutlineMeter:
    """Measures the rim of a possible piece on every square at once."""

    def __init__(self, radius_px: float, interior_px: float | None = None):
        """`interior_px`: half the side of a square's area inside its grid lines, for `Outline.wall`."""
        self.interior = None if interior_px is None else interior_px - WALL_LINE_CLEAR
        ang = np.linspace(0, 2 * np.pi, RAYS, endpoint=False)
        radii = np.arange(INNER * radius_px, OUTER * radius_px, 1.0)
        self.offsets = (np.stack([np.cos(ang), np.sin(ang)], 1)[:, None, :] * radii[None, :, None])  # (R, K, 2)
        self.between = self.offsets[:, WALL_EDGE:-WALL_EDGE].astype(np.float32)                    # the wall's samples
        self.k = len(radii)
        turn = np.linspace(0, 2 * np.pi, SEARCH_DIRECTIONS, endpoint=False)
        self.moves = (SEARCH_SHIFT * radius_px * np.stack([np.cos(turn), np.sin(turn)], 1)).astype(np.float32)
        way = np.linspace(0, 2 * np.pi, MOVED_DIRECTIONS, endpoint=False)
        self.moved = MOVED_SHIFT * radius_px * np.stack([np.cos(way), np.sin(way)], 1)
        way = np.linspace(0, 2 * np.pi, ROUND_MOVED_DIRECTIONS, endpoint=False)
        self.round_moves = ROUND_MOVED_SHIFT * radius_px * np.stack([np.cos(way), np.sin(way)], 1)
        # each tried circle's crossing of each ray, as the index of the fall step there (R, circles)
        g = np.arange(-ROUND_SHIFT, ROUND_SHIFT + 1e-9, ROUND_GRID)
        shifts = np.array([(x, y) for x in g for y in g if x * x + y * y <= ROUND_SHIFT ** 2 + 1e-9])
        circles = np.array([(x, y, rho) for x, y in shifts for rho in ROUND_RADII]) * radius_px
        along = np.stack([np.cos(ang), np.sin(ang)], 1) @ circles[:, :2].T
        cross = along + np.sqrt(np.maximum(circles[:, 2] ** 2 - (circles[:, :2] ** 2).sum(1) + along ** 2, 0.0))
        steps_k = len(radii) - EDGE_PX
        self.crossing = np.clip(np.round(cross - radii[0] - EDGE_PX / 2.0).astype(int), 1, steps_k - 2)
        self.reach = int(min(steps_k, np.ceil(ROUND_REACH * radius_px - radii[0])))
        self._kept_key: tuple | None = None             # the tops the kept indices are round (_rays_at)
        self._kept: dict[str, np.ndarray] = {}
        self._asked: set[str] = set()                   # the moved sets asked for round them once so far

    def measure(self, gray: np.ndarray, tops: np.ndarray, wood_px: np.ndarray | None = None,
                centres: np.ndarray | None = None, noise: float | None = None,
                fine: np.ndarray | None = None, search: np.ndarray | None = None,
                colour: np.ndarray | None = None, near_white: np.ndarray | None = None) -> Outline:
        """`wood_px`: (squares, P, 2) pixels (column, row) of each square's bare wood, for `Outline.wood_noise`;
        `centres`: (squares, 2) the squares' centres, to keep `Outline.wall` off the grid lines; `noise`:
        pixel_noise(gray), and `fine`: fine_detail(gray), when the caller has them already; `search`:
        (squares,) bool, where to look for the wall round tops off the expected one as well (_searched_wall);
        `colour`: the BGR picture `gray` was made from, and `near_white`: (squares,) bool, the squares whose wall
        is measured in each colour as well (_colour_wall)."""
        n = gray.shape[0]
        at = self._rays_at(tops, n)                                                     # (S, R, K)
        prof = _samples(gray, at)
        inside = mean_last(prof[..., :3])
        whole = _whole_step(prof)                                                       # (S, R)
        steps = prof[..., :-EDGE_PX] - prof[..., EDGE_PX:]                              # falls outward
        if noise is None:
            noise = pixel_noise(gray) if fine is None else noise_of(fine)
        blurred = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), WALL_BLUR)
        soft = blurred.ravel().take(at)                                                 # (S, R, K)
        wall = self._wall(soft, tops, centres)
        wall_colour = np.zeros(len(tops), np.float32)
        if colour is not None and near_white is not None and near_white.any():
            some = np.nonzero(near_white)[0]
            wall_colour[some] = self._colour_wall(colour, at[some], tops[some],
                                                  None if centres is None else centres[some])
        if wood_px is None:
            wood_noise = np.full(len(tops), noise)
        else:
            wc = np.clip(wood_px[..., 0], 0, n - 1)
            wr = np.clip(wood_px[..., 1], 0, n - 1)
            wood_noise = 1.4826 * median((fine_detail(gray) if fine is None else fine)[wr, wc], 1)
        lift = median(whole, 1)
        lift_far, top_far = self._far_side(tops, centres, whole, inside, lift)
        sharpest_fall, sharpest_rise = steps.max(-1), -steps.min(-1)                    # (S, R), once for both uses
        sharpness_dark = _rim(sharpest_rise, -whole)
        lift_moved, sharpness_moved, lit_moved = self._moved(gray, tops, lift, noise)
        sharpness = _rim(sharpest_fall, whole)
        roundness = self._moved_round(gray, tops, lift, noise, sharpness, self._roundness(steps, lift))
        if search is not None:
            wall = self._searched_wall(blurred, soft, tops, centres, wall, wood_noise, lift,
                                       np.asarray(search, bool))
        return Outline(sharpness=sharpness, sharpness_dark=sharpness_dark,
                       lift=lift, noise=noise, fall=median(sharpest_fall, 1), rise=median(sharpest_rise, 1),
                       wall=wall, wood_noise=wood_noise, roundness=roundness, lift_far=lift_far,
                       top_far=top_far, lift_moved=lift_moved, sharpness_dark_moved=sharpness_moved,
                       wall_colour=wall_colour, lit_moved=lit_moved,
                       rays_clipped=(prof[..., -WALL_EDGE:] >= RAY_CLIPPED).any(-1).mean(-1))

    def _rays_at(self, tops: np.ndarray, n: int, kind: str = "rays", rows: np.ndarray | None = None) -> np.ndarray:
        """The flat pixel index of the samples round the squares' tops (`rows` of them, else every square),
        kept while the tops stay where they were: a still camera's tops are the last frame's, and the sets of
        points cast round them (tens of thousands, 3 ms a frame of the 30 it may take, issue 15) are then the
        last frame's too. The moved sets are kept for every square once asked for round the same tops a second
        time (a frame later); the first time only the `rows` asked for are worked out, so a single picture, or
        a camera that moves, costs no more than before. `kind` (_points_round)."""
        tops = np.asarray(tops)
        key = (n,) + points_key(tops)
        if self._kept_key != key:
            self._kept_key, self._kept, self._asked = key, {}, set()
        at = self._kept.get(kind)
        if at is None:
            if rows is not None and kind not in self._asked:
                self._asked.add(kind)
                return self._points_round(tops[rows], n, kind)
            at = self._kept[kind] = self._points_round(tops, n, kind)
        return at if rows is None else at[rows]

    def _points_round(self, tops: np.ndarray, n: int, kind: str) -> np.ndarray:
        """The flat pixel index of the samples round `tops` (T, 2). `kind`: "rays" (T, R, K) round the tops;
        "ends" (T, MOVED_DIRECTIONS, R, 6) the rays' ends round tops moved MOVED_SHIFT radii (_moved); "search"
        (T, SEARCH_DIRECTIONS, R, K) round tops moved SEARCH_SHIFT radii (_searched_wall, in float32 as the
        moved tops are); "round" (T, ROUND_MOVED_DIRECTIONS, R, K) round tops moved ROUND_MOVED_SHIFT radii
        (_moved_round)."""
        if kind == "rays":
            points = tops[:, None, None, :] + self.offsets[None]
        elif kind == "ends":
            ends = np.concatenate([self.offsets[:, :3], self.offsets[:, -3:]], 1)              # (R, 6, 2)
            points = tops[:, None, None, None, :] + self.moved[None, :, None, None, :] + ends[None, None]
        else:
            points = self._moved_tops(tops, kind)[:, :, None, None, :] + self.offsets[None, None]
        return pixel_index(points, n)

    def _moved_tops(self, tops: np.ndarray, kind: str) -> np.ndarray:
        """(T, D, 2) `tops` (T, 2) moved each way: "search" SEARCH_SHIFT radii, in float32 (_searched_wall),
        else ROUND_MOVED_SHIFT radii (_moved_round)."""
        if kind == "search":
            return np.asarray(tops, np.float32)[:, None, :] + self.moves[None]
        return np.asarray(tops, np.float64)[:, None, :] + self.round_moves[None]

    def _rays_round(self, gray: np.ndarray, tops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(whole, steps) along the rays round `tops` (T, 2): each ray's whole step (T, R, as _whole_step) and its
        falls outward over EDGE_PX (T, R, steps)."""
        at = pixel_index(np.asarray(tops, np.float64)[:, None, None, :] + self.offsets[None], gray.shape[0])
        return _rays_from(gray, at)

    def _colour_wall(self, colour: np.ndarray, at: np.ndarray, tops: np.ndarray,
                     centres: np.ndarray | None) -> np.ndarray:
        """Outline.wall measured in each colour channel alone, the deepest of the three.

        WHY: a lamp's warm light on pale wood clips red and green first, and grey
        is mostly those two: on wood and an ivory top at 250-255 grey levels the
        shaded wall's arc is a few grey levels in grey, while blue, short of
        clipping, still shows it 20-25 deep (museum light, fresh seeds
        128,001,017 g6: 4.7 in grey, 25 in blue; a coloured lamp leaves another
        channel the headroom). Bare wood under a veil has no arc in any channel:
        on the cached held-out frames (museum 23,794 and hard 39,669 empty
        squares) the deepest channel's wall counted for none of them.
        """
        # one blur of the three channels at once, in whole grey levels (the wall that counts is several deep)
        soft = cv2.GaussianBlur(colour, (0, 0), WALL_BLUR).reshape(-1, colour.shape[2]).take(at, axis=0)
        soft = soft.astype(np.float32)                                                  # (S, R, K, channels)
        return np.max([self._wall(soft[..., c], tops, centres) for c in range(soft.shape[-1])], 0)

    def _moved(self, gray: np.ndarray, tops: np.ndarray, lift: np.ndarray,
               noise: float) -> tuple[np.ndarray, np.ndarray, MovedTop]:
        """(Outline.lift_moved, Outline.sharpness_dark_moved, Outline.lit_moved): round each top no lighter than
        its ring, the lifts of tops moved MOVED_SHIFT radii (the rays' ends only); where the darkest is darker by
        MOVED_GAIN sigmas of the noise, the lift and dark rim measured round it (inf and 0 elsewhere); where the
        lightest is lighter by as much and plainly above the noise (SEEN_SNR's start) round a top that read
        darker than its ring (NOT_LIGHTER), the lift, light rim and roundness round it (-inf, 0, 0 elsewhere)."""
        lift_moved = np.full(len(lift), np.inf, np.float32)
        sharpness = np.zeros(len(lift), np.float32)
        lit = MovedTop(lift=np.full(len(lift), -np.inf, np.float32), sharpness=np.zeros(len(lift), np.float32),
                       roundness=np.zeros(len(lift), np.float32))
        some = np.nonzero(lift <= 0.0)[0]
        if not len(some):
            return lift_moved, sharpness, lit
        prof = _samples(gray, self._rays_at(tops, gray.shape[0], "ends", some))          # (S, D, R, 6)
        moved = median(_whole_step(prof), -1)                                         # (S, D)
        gain = MOVED_GAIN * max(noise, 0.5)
        best = moved.argmin(1)
        darker = moved[np.arange(len(some)), best] < lift[some] - gain
        dark, best_dark = some[darker], best[darker]
        if len(dark):
            whole, steps = self._rays_round(gray, tops[dark] + self.moved[best_dark])
            lift_moved[dark] = median(whole, 1)
            sharpness[dark] = _rim(-steps.min(-1), -whole)
        best = moved.argmax(1)
        top = moved[np.arange(len(some)), best]
        lighter = (top > lift[some] + gain) & (top > SEEN_SNR[0] * max(noise, 0.5)) & (lift[some] < -NOT_LIGHTER)
        light, best_light = some[lighter], best[lighter]
        if len(light):
            whole, steps = self._rays_round(gray, tops[light] + self.moved[best_light])
            lit.lift[light] = median(whole, 1)
            lit.sharpness[light] = _rim(steps.max(-1), whole)
            lit.roundness[light] = self._roundness(steps, lit.lift[light])
        return lift_moved, sharpness, lit

    def _far_side(self, tops: np.ndarray, centres: np.ndarray | None, whole: np.ndarray, inside: np.ndarray,
                  lift: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(Outline.lift_far, Outline.top_far): the lift and the top's grey level over the rays pointing
        away from the camera (the top stands off its base away from it: `tops` - `centres`); as `lift`
        and -inf where too few rays point so (a square under the camera). (None, None) without `centres`."""
        if centres is None:
            return None, None
        away = np.asarray(tops, np.float32) - np.asarray(centres, np.float32)
        far = (self.offsets[None, :, -1, :] * away[:, None, :]).sum(-1) > 0.0      # (S, R)
        some = far.sum(1) >= RAYS // 3
        lift_far, top_far = lift.copy(), np.full(len(lift), -np.inf, np.float32)
        if some.any():
            lift_far[some], top_far[some] = _masked_median(np.stack([whole[some], inside[some]]), far[some])
        return lift_far, top_far

    def _moved_round(self, gray: np.ndarray, tops: np.ndarray, lift: np.ndarray, noise: float,
                     sharpness: np.ndarray, roundness: np.ndarray) -> np.ndarray:
        """Outline.roundness with a light piece's top looked for off the expected one (ROUND_MOVED_SHIFT): where a
        disc seen above the noise (SEEN_SNR's start) with a sharp rim (RIM_HIGH) is explained less than in full,
        the best roundness round a moved top at least as light as the expected one. (A sharp rim only: round
        empty squares the grid lines' falls lie near a circle's too, and moved tops made 0.4-0.5 sharp ones
        rounder, 0.58-0.67: hard light, 145,036,017 b1, k2 and c7.)"""
        seen = lift > SEEN_SNR[0] * max(noise, 0.5)
        some = np.nonzero(seen & (sharpness >= RIM_HIGH) & (roundness < ROUND_RIM[1]))[0]
        if not len(some):
            return roundness
        d = len(self.round_moves)
        at = self._rays_at(tops, gray.shape[0], "round", some)                            # (S, D, R, K)
        whole, steps = _rays_from(gray, at.reshape((-1,) + at.shape[2:]))                # (S * D, ...)
        lift_moved = median(whole, 1)
        found = self._roundness(steps, lift_moved)
        found = np.where(lift_moved >= np.repeat(lift[some], d), found, 0.0).reshape(len(some), d).max(1)
        out = roundness.copy()
        out[some] = np.maximum(roundness[some], found)
        return out

    def _roundness(self, steps: np.ndarray, lift: np.ndarray) -> np.ndarray:
        """Outline.roundness from the falls outward (S, R, steps) along the rays; 1 (not judged) where the
        top is no lighter than the wood round it, as no light disc is seen there."""
        out = np.ones(len(steps))
        todo = np.nonzero(lift > 0.0)[0]
        if len(todo) == 0:
            return out
        falls = steps[todo]
        near = np.maximum(falls, np.roll(falls, 1, -1))
        near = np.maximum(near, np.roll(falls, -1, -1))                                 # within a pixel
        at = near[:, np.arange(RAYS)[:, None], self.crossing]                          # (T, R, circles)
        sharpest = falls[..., :self.reach].max(-1)[..., None]
        explained = (at >= ROUND_SHARE * sharpest) & (sharpest > MIN_STEP)
        out[todo] = explained.mean(1).max(-1)
        return out

    def _wall(self, soft: np.ndarray, tops: np.ndarray, centres: np.ndarray | None) -> np.ndarray:
        """Outline.wall from the blurred picture's samples along the rays (S, R, K) from `tops`."""
        ends = np.minimum(mean_last(soft[..., :WALL_EDGE]), mean_last(soft[..., -WALL_EDGE:]))
        between = soft[..., WALL_EDGE:-WALL_EDGE]
        if centres is not None and self.interior is not None:
            shift = (np.asarray(tops) - np.asarray(centres)).astype(np.float32)            # top off its centre
            off = np.maximum(np.abs(shift[:, 0, None, None] + self.between[None, ..., 0]),
                             np.abs(shift[:, 1, None, None] + self.between[None, ..., 1]))
            between = np.where(off < self.interior, between, np.inf)
        return row_percentile(np.maximum(ends - between.min(-1), 0.0), WALL_ARC)

    def _searched_wall(self, blurred: np.ndarray, soft: np.ndarray, tops: np.ndarray, centres: np.ndarray | None,
                       wall: np.ndarray, wood_noise: np.ndarray, lift: np.ndarray, search: np.ndarray) -> np.ndarray:
        """Outline.wall, on the `search` squares the deepest of the wall round the expected top and round
        tops moved SEARCH_SHIFT piece radii in SEARCH_DIRECTIONS directions (a piece set down off centre).

        Not looked for where the wall round the expected top already counts in full (piece_wall), where
        the picture round the top spans too few grey levels to hold any wall that could count, nor round
        a top darker than its wood (with_wall counts no light piece's wall there).
        """
        lo, hi = wall_bounds(wood_noise)
        todo = np.nonzero(search & (wall < hi) & (lift >= -NOT_LIGHTER))[0]
        ring = soft[todo]
        todo = todo[ring.max((1, 2)) - ring.min((1, 2)) >= lo[todo]]                  # the picture's span round it
        if len(todo) == 0:
            return wall
        moved = self._moved_tops(np.asarray(tops)[todo], "search").reshape(-1, 2)          # (T x directions, 2)
        at = self._rays_at(tops, blurred.shape[0], "search", todo)                    # (T, directions, R, K)
        ring = blurred.ravel().take(at.reshape((-1,) + at.shape[2:]))
        around = None if centres is None else np.repeat(np.asarray(centres)[todo], len(self.moves), 0)
        best = wall.copy()
        best[todo] = np.maximum(wall[todo], self._wall(ring, moved, around).reshape(len(todo), -1).max(1))
        return best


# A rim counts from a sharpness of RIM_LOW (none) to RIM_HIGH (all), light and dark.
RIM_LOW, RIM_HIGH = 0.2, 0.6
DARK_RIM_LOW, DARK_RIM_HIGH = 0.25, 0.5
# A light disc has a piece's rim only as far as one circle of the piece's size
# explains its rays' falls (Outline.roundness, none to all). Museum light,
# fresh seeds 93,061,017 b5, h5 and i5: empty squares under a veil whose edge
# ran across them, a "disc" lifted 7-17 grey levels with a sharp fall, read
# defenders (0.5-0.6); one circle explained 13 of their 24 rays. Development
# frames (museum 10M-15M, 93M, 94M; hard 11M-16M, 93M, 94M), every square
# compared: museum 9 squares read right that were wrong (the king's f6 on
# 10,041,017 among them), none made wrong; hard 29 and 19. A trade: museum
# 86,038,017 f6, the king on the throne under a veil of 0.86 that his colour
# read empty (0.79), now 13 rays of 24 round, is held back as empty (0.54)
# where the disc's fallback made him the king's best guess (0.43).
ROUND_RIM = (0.5, 0.7)
# A disc is seen when its whole step stands out of the noise (SEEN_SNR, in
# noise sigmas, none to all) and is a real share of the wood's brightness
# (SEEN_REL: grain, a plank's edge and JPEG stay below it).
SEEN_SNR = (3.0, 6.0)
SEEN_REL = (0.03, 0.08)
SEEN_REL_DARK = (0.04, 0.10)
# Where the camera could have seen a piece: a veil adds light to wood, lines
# and pieces alike and leaves their differences, so the grid lines' step
# below the wood (lens blur included) says how plainly the steps of that
# square come through. An ivory piece stands above its wood by at least
# LINE_SHARE of that step (docs/hardware.md: ivory on light wood, dark lines).
LINE_SHARE = 0.5
# Where the wood is this bright (grey level, none to all) the sensor nears
# clipping, and a piece's rim may be lost in it.
NEAR_CLIPPING = (215.0, 235.0)
# Near the sensor's clipping point the picture has no
# noise left and a light piece's top can stand only as far above the wood as
# the headroom to white: there a light disc is seen when its step is a real
# share of that headroom (HEADROOM_SHARE, none to all) and a few grey levels
# at least (HEADROOM_STEP).
HEADROOM_SHARE = (0.35, 0.6)
HEADROOM_STEP = (2.5, 4.0)
WHITE = 255.0
# A "light piece" darker than the wood round it by more than DARKER_THAN_WOOD
# grey levels is a dark piece under glare; one darker by NOT_LIGHTER is no light piece.
DARKER_THAN_WOOD = 10.0
NOT_LIGHTER = 3.0
# An "empty" square with a clear rim all round gives up to this share to the piece it shows.
EMPTY_RIM_DOUBT = 0.5
# A piece's share where no disc stood out of the noise: this much of it goes,
# so the reading keeps its order of classes but is no longer sure.
UNSEEN_DOUBT = 0.4


def _ramp(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return np.clip((x - lo) / (hi - lo), 0.0, 1.0)


def fall_seen(outline: Outline) -> np.ndarray:
    """Per square (0..1), how plainly an outline falls away from the top out of the noise (SEEN_SNR)."""
    return _ramp(outline.fall / max(outline.noise, 0.5), *SEEN_SNR)


def moved_dark_top(outline: Outline, plain: np.ndarray) -> Outline:
    """`outline` with a dark piece's top found off the expected one (Outline.lift_moved: darker than the expected
    top's lift, and round it a plainly dark rim, DARK_RIM_HIGH) taken instead, on the squares `plain` marks:
    wood neither near clipping nor under a veil, where a king's white body beside his shaded wall, or glare's
    white beside its edge, would look just so."""
    if outline.lift_moved is None or outline.sharpness_dark_moved is None:
        return outline
    use = np.asarray(plain, bool) & (outline.sharpness_dark_moved >= DARK_RIM_HIGH) & (outline.lift_moved < outline.lift)
    return replace(outline, lift=np.where(use, outline.lift_moved, outline.lift),
                   sharpness_dark=np.where(use, np.maximum(outline.sharpness_dark, outline.sharpness_dark_moved),
                                           outline.sharpness_dark))


def lit_moved_found(outline: Outline) -> np.ndarray:
    """Per square (bool), a light top found off the expected one (Outline.lit_moved) with a light piece's sharp
    rim (RIM_HIGH) that one circle of the piece's size explains nearly in full (ROUND_WHOLE)."""
    lit = outline.lit_moved
    if lit is None:
        return np.zeros(len(outline.lift), bool)
    return (lit.sharpness >= RIM_HIGH) & (lit.roundness >= ROUND_WHOLE)


def moved_light_top(outline: Outline, light: np.ndarray) -> Outline:
    """`outline` with a light piece's top found off the expected one (lit_moved_found) taken instead, on the
    squares `light` marks: those the colour reads a light piece.

    WHY: a light piece set down far off its square's centre (a visitor's hand, or a top the camera's tilt
    throws further than the configured height says) puts the expected top on its far rim, where its shaded
    side wall and shadow ring it: the top read darker than its wood, with a sharp dark rim, and the king
    (museum light, fresh seeds 147,004,017 d2, 0.75 radii off) went to the dark disc's guess, an attacker.
    Round a top moved MOVED_SHIFT radii the disc is plainly light, sharp and round. Only where the colour
    says a light piece too: an attacker's lamp-lit top beside his shadow shows such a disc as well (museum
    147,011,017 f4: 1.9 sharp, wholly round). Cached held-out frames (hard 135M, 141M, 142M, 145M, 146M;
    museum 141M, 145M, 147M; glare and shadows 141M): of the squares read darker than their ring whose moved
    light top is so sharp and round, and whose colour says a light piece, 5 defenders and the king, no
    attacker and no empty square (the attackers' such tops 0.71 round at most under a light colour).
    """
    use = np.asarray(light, bool) & lit_moved_found(outline)
    if not use.any() or outline.lit_moved is None:
        return outline
    lit = outline.lit_moved
    return replace(outline, lift=np.where(use, lit.lift, outline.lift),
                   sharpness=np.where(use, np.maximum(outline.sharpness, lit.sharpness), outline.sharpness),
                   roundness=np.where(use, lit.roundness, outline.roundness),
                   sharpness_dark=np.where(use, 0.0, outline.sharpness_dark))


def dark_lift(outline: Outline, wood_lum: np.ndarray) -> np.ndarray:
    """Outline.lift for judging whether a top is dark: where the top, on the rays pointing away from the
    camera, is no darker than the square's wood (`wood_lum`, grey levels), the lighter of all rays' lift
    and those rays' own (Outline.lift_far).

    WHY: under the camera's tilt a piece's top stands off its base away from the camera, and its side
    wall shows between them, on the camera's side; in light from the far side that wall is in shade,
    nearly black under a white top. More than half the rays round the top then started on it: the
    top read darker than its wood with a sharp dark rim, and white defenders on near-white wood went
    to the dark disc's guess, attackers (museum light, seeds 107,094,017 c5 and d9, 108,011,017 i7).
    The rays away from the camera see no wall. An attacker's top is darker than its wood there too,
    so he keeps his lift; his shadow there would only make those rays' lift less dark, which is why
    they count only over a top no darker than the wood (over every development frame: 8 squares'
    best guess changed: 5 defenders right that were wrong, 4 of them read as attackers and 1 as the
    king; 1 attacker under a hard-light veil held back as empty that was held back as attacker; 2
    wrong before and after; no square's reading turned sure and wrong).
    """
    if outline.lift_far is None or outline.top_far is None:
        return outline.lift
    light_far = outline.top_far >= np.asarray(wood_lum, np.float64) + 1.0
    return np.where(light_far, np.maximum(outline.lift, outline.lift_far), outline.lift)


@dataclass(frozen=True)
class DiscEvidence:
    """Per square, how plainly the camera saw a light or a dark disc (0..1 each)."""

    light_seen: np.ndarray     # a brighter disc stands out of noise and grain
    light_rim: np.ndarray      # ... and has a piece's sharp, round rim (Outline.roundness)
    dark_seen: np.ndarray
    dark_rim: np.ndarray

    @classmethod
    def of(cls, outline: Outline, wood_lum: np.ndarray, veil_share: np.ndarray | None = None) -> "DiscEvidence":
        """`veil_share`: the glare's share of the wood's light (vision/glare.py). A veil adds
        light to piece and wood alike and leaves their difference as it was, so the
        step is compared with the wood's own brightness under it."""
        noise = max(outline.noise, 0.5)
        own = wood_lum if veil_share is None else wood_lum * (1.0 - np.clip(veil_share, 0.0, 0.9))
        rel = outline.lift / np.maximum(own, 1.0)
        snr = outline.lift / noise
        light_seen = _ramp(snr, *SEEN_SNR) * _ramp(rel, *SEEN_REL)
        headroom = np.maximum(WHITE - wood_lum, 1.0)
        near_white = _ramp(wood_lum, *NEAR_CLIPPING)
        by_headroom = _ramp(outline.lift / headroom, *HEADROOM_SHARE) * _ramp(outline.lift, *HEADROOM_STEP)
        light_seen = np.maximum(light_seen, near_white * by_headroom)
        light_rim = _ramp(outline.sharpness, RIM_LOW, RIM_HIGH) * _ramp(outline.roundness, *ROUND_RIM)
        dark = dark_lift(outline, wood_lum)
        snr_dark, rel_dark = dark / noise, dark / np.maximum(own, 1.0)
        return cls(light_seen=light_seen, light_rim=light_rim,
                   dark_seen=_ramp(-snr_dark, *SEEN_SNR) * _ramp(-rel_dark, *SEEN_REL_DARK),
                   dark_rim=_ramp(outline.sharpness_dark, DARK_RIM_LOW, DARK_RIM_HIGH))


# A light piece's outline (Outline.fall: the sharpest fall outward along each
# ray from its top, wherever on the ray its rim lies, so a piece set off
# centre keeps it) is a step from ivory to wood that the lamps' light makes
# on both; a veil adds to both and leaves it. Against the grid lines' depth below the square's wood (the
# same light, the same lens blur, no veil estimate needed) it is about the
# same for every light piece of one frame: a light "disc" whose outline is
# weaker than OUTLINE_SHARE (none to all) of the median of the frame's plainly
# seen light discs (seen and rimmed, OUTLINE_PLAIN, with no bright veil on
# them, OUTLINE_VEIL) is the soft core of a veil, not a piece's rim. Judged
# only with OUTLINE_REFERENCE such discs at least.
OUTLINE_SHARE = (0.4, 0.6)
OUTLINE_PLAIN = 0.9
OUTLINE_VEIL = 0.35
OUTLINE_REFERENCE = 3


# A dark arc round the rim (Outline.wall) is a piece's when it is deeper than
# WALL_STEP grey levels plus WALL_SNR sigmas of the square's own wood's pixel
# scatter (none to all; near white the sensor has squeezed that scatter to
# nothing, and a few grey levels are a real step) and, like a dark disc, a
# real share of the wood's own light under the veil (SEEN_REL_DARK: the grain
# of the wood makes dark streaks too, but faint ones).
WALL_STEP = (3.0, 6.0)
WALL_SNR = (2.0, 3.0)
# On a square clipped white in every channel (SquareFeatures.saturated) the wood is flat at the sensor's top, with
# only JPEG's spread for texture, and the veil's share says nothing of the step's size (clipping squeezed it): an
# arc CLIPPED_WALL grey levels deep in grey (none to all) is a piece's. Hard light, seeds 141M and 145M (200
# frames, 299 squares blown white): 14 defenders read empty had arcs of 1.4-10.1 grey levels, which counted for
# less than half against the noise of the unclipped pixels round them and the veil's share. Of 512 blown empty
# squares (hard 141M, 142M, 145M; museum 141M, 145M) none had more than 0.9 in grey; in a colour channel up to 4.0
# (museum 145,094,017, beside a defender's shadow), so the colour wall keeps its own bar. Blown squares read wrong:
# hard 141M 24 -> 17, 145M 21 -> 16, 142M 42 -> 37; none made wrong.
CLIPPED_WALL = (1.5, 3.0)


def wall_bounds(wood_noise: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The wall depth (grey levels) that starts to count and that counts in full, per square's wood noise."""
    return WALL_STEP[0] + WALL_SNR[0] * wood_noise, WALL_STEP[1] + WALL_SNR[1] * wood_noise


def deepest_wall(outline: Outline) -> np.ndarray:
    """(squares,) the wall round each top in grey levels, or in the deepest colour channel where that was measured
    (Outline.wall_colour, on near-white wood): where a piece shows its side wall, one of them shows it."""
    return outline.wall if outline.wall_colour is None else np.maximum(outline.wall, outline.wall_colour)


def piece_wall(outline: Outline, wood_lum: np.ndarray, veil_share: np.ndarray,
               clipped: np.ndarray | None = None) -> np.ndarray:
    """Per square (0..1), how plainly a piece's shaded side wall or shadow shows round its top's rim.

    WHY: a veil that clips the wood white clips an ivory top with it, and
    the colour and the disc's step then show nothing; the dark arc round
    the rim is what is left of the piece (vision/reader.py). Empty wood has
    no such arc: a veil adds light smoothly, a shadow's edge crosses the
    square instead of curving round a disc. `veil_share`: the glare's share
    of the wood's light (vision/glare.py); `clipped`: squares clipped white
    in every channel, where CLIPPED_WALL says how deep an arc counts.
    """
    sigma = outline.wood_noise
    own = np.asarray(wood_lum, np.float64) * (1.0 - np.clip(veil_share, 0.0, 0.9))
    lo, hi = wall_bounds(sigma)
    wall = deepest_wall(outline)
    deep = np.clip((wall - lo) / (hi - lo), 0.0, 1.0)
    seen = deep * _ramp(wall / np.maximum(own, 1.0), *SEEN_REL_DARK)
    if clipped is None:
        return seen
    # (in grey: where every channel clipped, none has the headroom the colour wall looks for, only JPEG's chroma)
    return np.where(np.asarray(clipped, bool), np.maximum(seen, _ramp(outline.wall, *CLIPPED_WALL)), seen)


def with_wall(ev: DiscEvidence, outline: Outline, wood_lum: np.ndarray, veil_share: np.ndarray,
              plain_ok: np.ndarray | None = None, clipped: np.ndarray | None = None) -> DiscEvidence:
    """The evidence with a piece's wall (piece_wall) counted as its disc seen with a rim.

    The wall says a piece stands there, its top the colour: a top no darker
    than the wood round it (within NOT_LIGHTER grey levels: an ivory top
    clipped white with the wood) is a light piece's. A top only a little
    darker than the wood is a dark piece's only near white (NEAR_CLIPPING),
    where a veil has lifted a dark top towards the clipped wood; elsewhere
    an attacker's top is far darker than its wood, and a king's gold crown
    is a little darker. On a marked square the top must be lighter than the
    plain wood as well (`plain_ok`, lighter_than_plain) to be a light
    piece's: a top no lighter than the darker fill round it may be a dark
    piece's under glare, and the reader holds that square back.

    `clipped`: the squares clipped white in every channel (piece_wall's
    CLIPPED_WALL). The wall is counted once, as a disc seen with a rim as plainly as the
    wall shows (seen x rim, what the reader's checks weigh, becomes the wall's
    share where it was less); a disc already seen with its rim at least as
    plainly keeps its own evidence, so the wall is not counted on top of it.
    """
    wall = piece_wall(outline, wood_lum, veil_share, clipped)
    dark = dark_lift(outline, wood_lum) < -NOT_LIGHTER
    light = np.where(dark, 0.0, wall) * (1.0 if plain_ok is None else np.asarray(plain_ok, np.float64))
    dwall = np.where(dark, wall, 0.0) * _ramp(np.asarray(wood_lum, np.float64), *NEAR_CLIPPING)
    light_seen, light_rim = _seen_with_rim(ev.light_seen, ev.light_rim, light)
    dark_seen, dark_rim = _seen_with_rim(ev.dark_seen, ev.dark_rim, dwall)
    return replace(ev, light_seen=light_seen, light_rim=light_rim, dark_seen=dark_seen, dark_rim=dark_rim)


def _seen_with_rim(seen: np.ndarray, rim: np.ndarray, share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(seen, rim) raised just so far that seen x rim is at least `share` (unchanged where it is already)."""
    short = share > seen * rim
    raised = np.where(short, np.maximum(seen, share), seen)
    return raised, np.where(short, np.maximum(rim, share / np.maximum(raised, 1e-9)), rim)


# A rim this crisp (Outline.sharpness: the sharpest 3 px step against the whole step) that one circle of the
# piece's size explains (ROUND_RIM's upper end), out of veils (OUTLINE_VEIL), is a piece's edge.
CRISP_RIM = 0.8
# Under a veil (OUTLINE_VEIL or more) the veil's own light blurs the step: a rim at least CRISP_RIM_VEILED
# sharp that a circle explains at least ROUND_VEILED is a piece's edge there.
CRISP_RIM_VEILED = 0.6
ROUND_VEILED = 0.8


def crisp_rim(outline: Outline, veil_share: np.ndarray) -> np.ndarray:
    """(squares,) bool: a disc whose rim is a piece's edge plainly, whatever its outline's strength.

    WHY: `outline_match` weighs a light disc's outline against the frame's other light pieces' to
    tell a veil's soft core the size of a piece from a piece; a soft core has no crisp edge. On
    bright wood (210 grey levels) the camera's tone curve, bending over towards white, squeezes an
    ivory top's step: museum light, fresh seeds 130,059,017 a2, a Tablut defender set off centre,
    plainly seen (lift 20 grey levels, rim 1.09 sharp, round 1.0, no veil), fell 17.5 grey levels
    against grid lines 64 deep, under half the frame's other light pieces', and read empty in doubt
    (0.58). On 967 cached held-out frames it is the only square out of veils with a rim this crisp
    and round that `outline_match` turned down.

    Under a veil the same holds with a softer bar (CRISP_RIM_VEILED) and a rounder circle
    (ROUND_VEILED): the veil's light adds a slope across the rim, so the sharpest step is a smaller
    share of the whole, while a veil's soft core is no circle. Hard light, the 1,137 cached hand-free
    held-out frames (seeds 110M-134M): of the veiled squares with a light disc seen (light_seen 0.5 or
    more) that `outline_match` turned down, 20 pieces and no empty square were this sharp and round
    (the nearest empty one 0.54 sharp at 0.83 round); three of those pieces had been read empty
    (116,007,017 g4 and 128,057,017 e3 in doubt, 123,023,017 b1 a sure empty, 0.95).
    """
    veiled = np.asarray(veil_share) >= OUTLINE_VEIL
    return np.where(veiled, (outline.sharpness >= CRISP_RIM_VEILED) & (outline.roundness >= ROUND_VEILED),
                    (outline.sharpness >= CRISP_RIM) & (outline.roundness >= ROUND_RIM[1]))


def outline_match(ev: DiscEvidence, outline: Outline, depth: np.ndarray, veil_share: np.ndarray,
                  wood_lum: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Per square (0..1), whether its outline is as strong as the frame's plain light pieces' (1 when none to judge by,
    and where the rim is a piece's edge plainly, crisp_rim).

    The outline is `Outline.fall`, the sharpest fall of the rim in grey levels; `depth`: the
    grid lines' depth below the wood round the square, grey levels. Near white a light top
    can rise only to white: the fall expected is at most the headroom to
    white, and on wood near the clipping point it is not judged (NEAR_CLIPPING).
    The marked squares (`marked`: another, darker fill under the piece, its
    step against the lines another) neither judge nor are judged.
    """
    fall = outline.fall
    ratio = np.asarray(fall, np.float64) / np.maximum(np.asarray(depth, np.float64), MIN_STEP)
    marked = np.asarray(marked, bool)
    plain = (ev.light_seen >= OUTLINE_PLAIN) & (ev.light_rim >= OUTLINE_PLAIN) & (np.asarray(veil_share) < OUTLINE_VEIL)
    plain &= ~marked
    if int(plain.sum()) < OUTLINE_REFERENCE:
        return np.ones(len(ratio))
    wood = np.asarray(wood_lum, np.float64)
    expected = np.minimum(float(np.median(ratio[plain])) * np.maximum(np.asarray(depth, np.float64), MIN_STEP),
                          np.maximum(WHITE - wood, MIN_STEP))
    weak = (1.0 - _ramp(np.asarray(fall, np.float64) / expected, *OUTLINE_SHARE)) * ~marked
    return np.where(crisp_rim(outline, veil_share), 1.0, 1.0 - weak * (1.0 - _ramp(wood, *NEAR_CLIPPING)))


def with_outline(ev: DiscEvidence, match: np.ndarray) -> DiscEvidence:
    """The evidence with a light rim counted only as far as its outline matches the frame's pieces (outline_match)."""
    return replace(ev, light_rim=ev.light_rim * match)


# On a marked square a light piece must stand above the plain wood round it
# too (docs/hardware.md: ivory on light wood), not only above the darker fill
# it stands on: log(top / plain wood) from none (PLAIN_LIGHTER[0]) to all ([1]).
# A soft spot of light on bare fill lifts its middle above its own corners,
# never above the plain wood.
PLAIN_LIGHTER = (-0.05, 0.08)
# The king's share stands on his gold crown seen (the crown's log(B/R)
# against plain wood, none to all, vision.features) or on a light piece's disc.
CROWN_GOLD = (0.1, 0.25)


def light_keep(ev: DiscEvidence, lift: np.ndarray) -> np.ndarray:
    """Per square (0..1), the share of a defender's reading its disc allows.

    All of it for a disc seen with a rim; none for a plain disc without one,
    nor for a "light piece" no lighter than its wood; 1 - UNSEEN_DOUBT where
    nothing stood out of the noise.
    """
    keep = ev.light_seen * ev.light_rim + (1.0 - ev.light_seen) * (1.0 - UNSEEN_DOUBT)
    return np.where(lift < -NOT_LIGHTER, 0.0, keep)


def lighter_than_plain(plain_lum: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Per square (0..1), whether a light piece's top there is lighter than the plain wood (1 off the marked squares)."""
    return np.where(np.asarray(marked, bool), _ramp(np.asarray(plain_lum, np.float64), *PLAIN_LIGHTER), 1.0)


def king_keep(keep_light: np.ndarray, crown: np.ndarray | None, plain_ok: np.ndarray) -> np.ndarray:
    """Per square (0..1), the share of the king's reading what the camera saw allows.

    WHY: the king's top is his gold crown, which may be no lighter than the
    wood, so his disc alone proves little; but a square with neither a gold
    crown nor a light piece's disc (a soft spot of light on a marked square's
    fill, which the colour model can take for a crown on ivory) is no king.
    A plain disc without its rim keeps a guess (1 - UNSEEN_DOUBT): the king's
    rim is often lost round a tall crown in blur.
    """
    gold = np.zeros(len(keep_light)) if crown is None else _ramp(-np.asarray(crown, np.float64), *CROWN_GOLD)
    return np.maximum(gold, plain_ok * np.maximum(keep_light, 1.0 - UNSEEN_DOUBT))


def lit_dark_top(outline: Outline, wood_lum: np.ndarray, veil_share: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Per square (0..1), how plainly a marked square shows a piece's outline round a top that need not be
    darker than the fill: a dark piece there is known by its colour and that outline, not by its step.

    WHY: the marked squares' fill is darker wood, which leaves a near-black piece little room below it,
    and a lamp's gloss on the piece's top lifts it to the fill's brightness or above (museum light,
    development seeds 11,003,017 e9 and 13,031,017 e8: attackers on Tablut's camp squares, read as
    attackers by their colour, tops 4 grey levels above the fill, read empty). The rim then falls from
    the lit top into the piece's own shadow (Outline.fall), as plainly as a disc is seen (SEEN_SNR and
    SEEN_REL against the fill under any veil); bare fill has no such outline (development frames, all
    conditions: of 3,934 empty marked squares none reached 5 noise sigmas, and of the 19 the colour
    read as attackers none reached 3, where the ramp starts).
    """
    own = wood_lum * (1.0 - np.clip(veil_share, 0.0, 0.9))
    seen = fall_seen(outline) * _ramp(outline.fall / np.maximum(own, 1.0), *SEEN_REL)
    return seen * np.asarray(marked, np.float64)


def pieces_need_a_rim(probs: np.ndarray, ev: DiscEvidence, lift: np.ndarray,
                      plain_ok: np.ndarray | None = None, keep_k: np.ndarray | None = None,
                      lit_top: np.ndarray | None = None) -> np.ndarray:
    """Square probabilities (empty, attacker, defender, king) checked against the disc the camera saw.

    A piece is a disc with a rim: a defender's share needs a light disc with
    a sharp rim, an attacker's a dark one. Where the disc was seen plainly
    and has no rim (a veil, a shadow's edge) the piece's share goes to the
    empty square (a "light piece" clearly darker than its surroundings is a
    dark piece under glare: to the attacker). Where nothing stood out of the
    noise the camera cannot tell: UNSEEN_DOUBT of the share goes, so a square read
    "surely a piece" from its colour alone is held back rather than guessed.
    The other way, an "empty" square with a plain rim all round keeps only
    half of its share. `plain_ok` (lighter_than_plain) judges a marked
    square's light piece against the plain wood too. The king's share is checked by
    `keep_k` (king_keep: his crown or his disc) alone, as his gold crown may
    be darker than the wood. `lit_top` (lit_dark_top): an attacker's top on a marked square that its
    outline shows though no darker than the fill, which the camera did see.
    """
    e, a, d, k = (int(c) for c in (SquareClass.EMPTY, SquareClass.ATTACKER, SquareClass.DEFENDER, SquareClass.KING))
    out = probs.copy()
    rows = np.arange(len(out))
    plain_ok = np.ones(len(out)) if plain_ok is None else plain_ok
    keep_d = light_keep(ev, lift) * plain_ok
    moved = out[:, d] * (1.0 - keep_d)
    out[:, d] -= moved
    to = np.where(lift < -DARKER_THAN_WOOD, a, e)
    out[rows, to] += moved
    if keep_k is not None:
        moved = out[:, k] * (1.0 - keep_k)
        out[:, k] -= moved
        out[:, e] += moved
    unseen_keep = 1.0 - UNSEEN_DOUBT if lit_top is None else np.maximum(1.0 - UNSEEN_DOUBT, lit_top)
    keep_a = ev.dark_seen * ev.dark_rim + (1.0 - ev.dark_seen) * unseen_keep
    moved = out[:, a] * (1.0 - keep_a)
    out[:, a] -= moved
    out[:, e] += moved
    light, dark = ev.light_seen * ev.light_rim * plain_ok, ev.dark_seen * ev.dark_rim
    moved = out[:, e] * EMPTY_RIM_DOUBT * np.maximum(light, dark)
    out[:, e] -= moved
    out[rows, np.where(dark > light, a, d)] += moved
    return out



# A piece differs from its own wood by at least PIECE_STEP of the wood's own
# light (an ivory top above it, a dark one below it; a veil adds to both and
# leaves the step): where that step would stand plainly out of the noise
# (SHOWN_SNR, in noise sigmas of one pixel, none to all; the step is a median
# over many pixels, far steadier than one) and the wood is not near
# clipping, a piece would have shown.
PIECE_STEP = 0.1
SHOWN_SNR = (2.0, 4.0)
# A step within ABSENT_SNR noise sigmas (all to none up to SEEN_SNR's start) is no disc at all.
ABSENT_SNR = 1.0


def shape_conflict(probs: np.ndarray, outline: Outline, wood_lum: np.ndarray,
                   veil_share: np.ndarray | None = None, lit_top: np.ndarray | None = None) -> np.ndarray:
    """Per square (0..1), how plainly the disc contradicts a piece the colour reads there.

    A defender stands above its wood and an attacker below it by PIECE_STEP
    of the wood's own light at least (`veil_share`: the glare's share of the
    light, taken off the wood's brightness). Where such a step would stand
    plainly out of the noise, the colour reads a piece and the step is
    within the noise, colour and shape disagree; the caller mixes that much
    doubt in (towards `shape_fallback`): the square is held back and its
    best guess follows the prior, not the colour. The king is left out: his
    gold crown may sit as dark as the wood, and so is an attacker whose outline `lit_top` (lit_dark_top)
    shows on a marked square: the fill leaves no room for its step.
    """
    noise = max(outline.noise, 0.5)
    own = wood_lum if veil_share is None else wood_lum * (1.0 - np.clip(veil_share, 0.0, 0.9))
    would_show = _ramp(PIECE_STEP * own / noise, *SHOWN_SNR) * (1.0 - _ramp(wood_lum, *NEAR_CLIPPING))
    snr = outline.lift / noise
    label = probs.argmax(1)
    absent = np.select([label == int(SquareClass.DEFENDER), label == int(SquareClass.ATTACKER)],
                       [1.0 - _ramp(snr, ABSENT_SNR, SEEN_SNR[0]), 1.0 - _ramp(-snr, ABSENT_SNR, SEEN_SNR[0])],
                       default=0.0)
    if lit_top is not None:
        absent = np.where(label == int(SquareClass.ATTACKER), absent * (1.0 - lit_top), absent)
    return absent * would_show


# Wood just outside a piece (vision.features "ring") brighter than the square's
# corners by this much (log, none to all): the light itself swells towards the
# middle of the square (the core of a veil, a spot), and a light "disc" there
# confirms no piece.
RING_SPILL = (0.05, 0.15)


def shape_agreement(probs: np.ndarray, ev: DiscEvidence, wood_lum: np.ndarray,
                    line_lum: np.ndarray, noise: float, ring: np.ndarray | None = None) -> np.ndarray:
    """Per square (0..1), how plainly the disc the camera saw confirms the square's reading.

    A veil of glare takes the colour's word away (vision/reader.py), not the
    shape's: an added veil leaves a piece's step against the wood as it was.
    A piece's reading is confirmed by its rim (light for a defender or the
    king, dark for an attacker); an empty one by no disc at all where an
    ivory piece would have stood plainly out of the noise (the grid lines
    still show) and the wood is not near clipping. A light disc whose
    surrounding wood (`ring`) is itself lit above the square's corners is
    no confirmation: a veil's core the size of a piece looks just so.
    """
    label = probs.argmax(1)
    visible = _ramp(LINE_SHARE * (wood_lum - line_lum) / max(noise, 0.5), *SEEN_SNR)
    visible *= 1.0 - _ramp(wood_lum, *NEAR_CLIPPING)
    empty = (1.0 - np.maximum(ev.light_seen, ev.dark_seen)) * visible
    light, dark = ev.light_seen * ev.light_rim, ev.dark_seen * ev.dark_rim
    if ring is not None:
        light = light * (1.0 - _ramp(ring, *RING_SPILL))
    return np.select([label == int(SquareClass.EMPTY), label == int(SquareClass.ATTACKER)], [empty, dark],
                     default=light)


# How strongly a plain disc with a rim speaks for its piece where the colour
# has nothing to say: a likelihood ratio of SHAPE_ODDS against an empty square
# for a full light (or dark) disc with a rim, SHAPE_ODDS ** share for less.
SHAPE_ODDS = 50.0
# ... and this share of it stays "anything" (uniform): what is known before
# looking tilts the guess but is no sighting, so it must not make a square sure.
FALLBACK_OPEN = 0.2


def shape_fallback(prior: np.ndarray, ev: DiscEvidence) -> np.ndarray:
    """(squares, 4): what a square holds going by its disc alone, where the colour's word is gone.

    WHY: under a bright veil or on wood clipped white the colour model sees
    no piece and no wood, only light. What is left is what is known before
    looking (`prior`: most squares are empty) and the disc's own shape: a
    light disc with a rim for the defender or the king, a dark one for an
    attacker. So the best guess follows the prior unless a disc plainly
    shows; the confidence stays low either way (the caller mixes this in as
    doubt), so such a square is still reported as unsure.
    """
    light, dark = ev.light_seen * ev.light_rim, ev.dark_seen * ev.dark_rim
    odds = np.ones((len(light), len(prior)))
    odds[:, int(SquareClass.DEFENDER)] = SHAPE_ODDS ** light
    odds[:, int(SquareClass.KING)] = SHAPE_ODDS ** light
    odds[:, int(SquareClass.ATTACKER)] = SHAPE_ODDS ** dark
    out = np.asarray(prior, np.float64)[None, :] * odds
    out /= out.sum(1, keepdims=True)
    return (1.0 - FALLBACK_OPEN) * out + FALLBACK_OPEN / len(prior)


# A light piece's top stands above its wood by the lamps' light on ivory minus
# on wood, and its rim falls by as much; a veil adds light to both and leaves
# the step. So against the lamps' light on that square the step is about the
# same for every light piece of one frame, and the median of the frame's
# plainly seen light discs (seen and rimmed, OUTLINE_PLAIN; OUTLINE_REFERENCE
# at least) says how big it is here. The lamps' light is measured two ways,
# each with its own weakness: the grid lines' depth below the wood beside the
# square (the same lamps; a veil adds to line and wood alike, so every seen
# piece is a reference, but a thin, blurred line is shallow and noisy), and
# the wood's own brightness with the veil's share taken off (steady, but the
# share is only an estimate: references without a bright veil, OUTLINE_VEIL).
# A square whose top (Outline.lift) and rim (Outline.fall) both stand less
# than STEP_SHORT (all to none) of that above the wood, by either measure, is
# a veil's soft core or wood lit above its corners, not an ivory top. Near
# white the step expected is at most the headroom to white; judged only where
# the step expected would stand plainly out of the noise (SEEN_SNR).
STEP_SHORT = (0.3, 0.5)


def _step_shown(outline: Outline, light: np.ndarray, reference: np.ndarray, headroom: np.ndarray) -> np.ndarray:
    """Per square, how much of a light piece's step (against `light`, the lamps' light there) its top or rim shows."""
    if int(reference.sum()) < OUTLINE_REFERENCE:
        return np.ones(len(light))
    lift = np.minimum(float(np.median(outline.lift[reference] / light[reference])) * light, headroom)
    fall = np.minimum(float(np.median(outline.fall[reference] / light[reference])) * light, headroom)
    shown = np.maximum(outline.lift / np.maximum(lift, MIN_STEP), outline.fall / np.maximum(fall, MIN_STEP))
    visible = _ramp(lift / max(outline.noise, 0.5), *SEEN_SNR)
    return 1.0 - visible * (1.0 - _ramp(shown, *STEP_SHORT))


def light_step_short(probs: np.ndarray, ev: DiscEvidence, outline: Outline, depth: np.ndarray,
                     wood_lum: np.ndarray, veil_share: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Per square (0..1), how plainly a defender the colour reads stands too little above its wood for a light piece.

    WHY: under a veil the colour model reads wood as ivory, and a veil's core
    lifts the middle of a square by a few grey levels: too little for
    DiscEvidence to call it seen, too much to call it unseen, so the colour's
    defender stood; or a soft core lifts it enough to pass as a disc with a
    rim. How far a piece stands out here is known from the frame's own light
    pieces (`depth`: the grid lines' depth below the wood, grey levels;
    `veil_share`: the glare's share of the wood's light). The king is left out
    (his gold crown may sit as dark as the wood), and so are the marked
    squares (another fill under the piece, another step). The caller mixes
    this much doubt in (towards `shape_fallback`, the disc's rim not counted).
    """
    wood = np.asarray(wood_lum, np.float64)
    share = np.asarray(veil_share, np.float64)
    marked = np.asarray(marked, bool)
    plain = (ev.light_seen >= OUTLINE_PLAIN) & (ev.light_rim >= OUTLINE_PLAIN) & ~marked
    headroom = np.maximum(WHITE - wood, MIN_STEP)
    by_lines = _step_shown(outline, np.maximum(np.asarray(depth, np.float64), MIN_STEP), plain, headroom)
    own = np.maximum(wood * (1.0 - np.clip(share, 0.0, 0.9)), 1.0)
    by_wood = _step_shown(outline, own, plain & (share < OUTLINE_VEIL), headroom)
    defender = probs.argmax(1) == int(SquareClass.DEFENDER)
    return (1.0 - np.minimum(by_lines, by_wood)) * defender * ~marked


# A square read empty whose top is no lighter than its wood (Outline.lift below NOT_LIGHTER, so no veil's
# lift makes its rim) but whose rim falls outward RIM_ONLY_RATIO times as far as the frame's plainly seen
# empty squares' do (their 95th percentile, from RIM_ONLY_REFERENCE such squares at least), and at least
# RIM_ONLY_FLOOR grey levels: where the frame's bare wood shows almost no rim, the grey a veil's edge leaves
# on an empty square is no piece's (hard 15,019,017 e5: a rim of 6 grey levels against the wood's 2).
RIM_ONLY_RATIO = 2.5
RIM_ONLY_FLOOR = 4.0
RIM_ONLY_REFERENCE = 10
# ... or, out of veils and whatever its top, a rim falling RIM_WITH_WALL times as far as that wood's and a
# shaded wall round it WALL_ONLY_RATIO times as deep as the same squares' (at least WALL_ONLY_FLOOR grey
# levels): bare wood has neither, a piece has both.
RIM_WITH_WALL = 1.8
WALL_ONLY_RATIO = 2.0
WALL_ONLY_FLOOR = 1.0


def bare_wood_level(measure: np.ndarray, plain_empty: np.ndarray, floor: float) -> float:
    """What bare wood gives of an outline measure in this frame: its 95th percentile over the plainly empty
    squares (`plain_empty`, RIM_ONLY_REFERENCE of them at least, the caller's check), at least `floor`."""
    return max(float(np.percentile(measure[plain_empty], 95)), floor)


# A disc one circle of the piece's size explains nearly in full (ROUND_WHOLE), its rim plainly sharp (RIM_HIGH), its top
# NOT_LIGHTER above the wood and a shaded wall round it at least OUTLINED_WALL grey levels deep (deepest_wall) is a light
# piece's outline, whatever the colour says (outlined_light_top).
OUTLINED_WALL = 4.0


def outlined_light_top(probs: np.ndarray, outline: Outline) -> np.ndarray:
    """Per square (bool), a square read empty whose outline is a light piece's in every part: round, sharp-rimmed, its top
    lighter than the wood, walled. The caller holds it back with the light piece as its best guess.

    WHY: hard light, fresh seeds 152,045,017 e7: a defender under a bluish-white streak the veil's estimate missed
    (share 0), on wood at 241 grey levels where the camera's tone curve squeezes every step, its top 5 grey levels above
    the wood, its rim 0.66 sharp and 0.96 round, its wall 6.0 deep; the colour read a sure empty (0.99), and nothing
    held it back, as the rim's fall (5 grey levels) was short of what the frame's bare wood gives (rim_without_top).
    Wood does not make all four at once: of 177,000 squares of cached held-out frames (hard 135M-151M, museum
    141M-151M, glare 141M) the 11 empty ones round, sharp and with such a top had walls of 0.3-2.65 grey levels; the 2
    light pieces read empty, 3.4 and 5.8.
    """
    return ((probs.argmax(1) == int(SquareClass.EMPTY)) & (outline.roundness >= ROUND_WHOLE)
            & (outline.sharpness >= RIM_HIGH) & (outline.lift >= NOT_LIGHTER) & (deepest_wall(outline) >= OUTLINED_WALL))


def rim_without_top(probs: np.ndarray, outline: Outline, plain_empty: np.ndarray,
                    unseen_top: np.ndarray | None = None, unveiled: np.ndarray | None = None) -> np.ndarray:
    """Per square (bool), an "empty" square whose disc's rim falls outward as a piece's does though its top is
    no lighter than the wood: a light piece whose top a tinted lamp or its own shade has brought down to the
    wood's grey, which the colour took for wood.

    WHY: hard light, development seeds 14,021,017 a10 (a pale green defender), 14,033,017 e6 (a defender
    under a blue lamp), 12,035,017 d5 and 15,010,017 e3: light pieces plainly in the picture, their tops
    3.7-7.5 grey levels below the wood, their rims falling 12-27.5 grey levels, read empty. Bare wood's rim
    falls only into the grid lines beside it, about as far on every square of one frame; `plain_empty`
    (squares read surely empty with no veil over them and not blown white) says how far. In the development
    frames (hard 11M-16M, museum 10M-15M, shadows and dim 10M) none of the 56,906 empty squares read empty
    is taken by this; 8 defenders are, and 5 attackers with a lamp's gloss on their tops (one under a blue
    lamp that made it look like the defenders beside it), which were read empty and are read defenders now.
    So the caller only holds the square back, the light piece its best guess.
    `unseen_top`: squares whose top stood a little above the wood but not out of the noise (the caller's
    DiscEvidence.light_seen below half), out of veils, are taken as such tops too. Hard light, seeds
    90,055,017 h8 (a defender under a blue-white lamp, lift 5.5, only its shadow's crescent plain) and
    90,021,017 c5: read empty, 0.87 and 0.68. Development frames, 89M and 90M, every square compared: 3
    light pieces more read right, no square made wrong. Under a veil a soft core's edge makes such a rim:
    allowed there, it took 3 empty squares (hard 90,027,017 e4, 11,042,017 c7, 15,010,017 b4).
    `unveiled`: squares out of veils, where a rim that falls RIM_WITH_WALL times as far as the bare wood's
    together with a shaded wall (Outline.wall) WALL_ONLY_RATIO times as deep as the bare wood's marks a piece
    whatever its top. WHY: hard light, development seeds 16,049,017 f8 (a grey defender under a dim warm
    lamp, its top 2 grey levels above the wood, rim 13 and wall 6.6 where that frame's bare wood had at most
    7 and 1.9) read a sure empty, 1.00; e5 and g7 in that frame, 12,049,017 f7, 13,003,017 g5, 93,049,017
    f3 and 94,021,017 j9 with it (0.39-0.53). The rim alone is not enough: the grid lines give bare wood
    rims nearly as deep; nor the wall alone (a line's shadow). In the development frames (hard 11M-16M,
    93M, 94M; museum 10M-15M, 93M, 94M), these 7 defenders pass both and no square that is empty (the
    nearest fell 1.50-1.56 times as far as the bare wood's, its wall 2.1-2.3 times as deep).
    Either way the rim must be round: one circle of the piece's size explains at least ROUND_RIM[0] of its rays
    (Outline.roundness). Museum light, fresh seeds 102,098,017 a2: an empty square at the board's edge, its
    ring reaching over the border line into the dark frame on one side (8 rays of 24 round), read a defender
    (0.5). Of the 49 pieces this rule took on all development frames and 102M, the least round had 0.58.
    """
    plain_empty = np.asarray(plain_empty, bool)
    if int(plain_empty.sum()) < RIM_ONLY_REFERENCE:
        return np.zeros(len(probs), bool)
    usual = bare_wood_level(outline.fall, plain_empty, RIM_ONLY_FLOOR)
    faint = outline.lift < NOT_LIGHTER
    if unseen_top is not None:
        faint = faint | np.asarray(unseen_top, bool)
    rim = faint & (outline.fall >= RIM_ONLY_RATIO * usual)
    if unveiled is not None:
        wall = bare_wood_level(outline.wall, plain_empty, WALL_ONLY_FLOOR)
        rim = rim | (np.asarray(unveiled, bool) & (outline.fall >= RIM_WITH_WALL * usual)
                     & (outline.wall >= WALL_ONLY_RATIO * wall))
    return (probs.argmax(1) == int(SquareClass.EMPTY)) & rim & (outline.roundness >= ROUND_RIM[0])


# Under a veil, a shaded wall round the rim WALL_VEIL_RATIO times as deep as the frame's plainly seen empty
# squares' (their 95th percentile, at least WALL_ONLY_FLOOR grey levels; RIM_ONLY_REFERENCE such squares at least).
WALL_VEIL_RATIO = 4.0
# ... or, on a square read empty in doubt (less than DOUBTFUL_EMPTY sure), a wall WALL_AMONG_VEILED times as
# deep as the frame's other veiled squares read empty have (their WALL_VEILED_PERCENTILE-th percentile, at least
# WALL_ONLY_FLOOR; RIM_ONLY_REFERENCE such squares at least) and WALL_WITH_VEILED times bare wood's.
DOUBTFUL_EMPTY = 0.6
WALL_AMONG_VEILED = 3.0
WALL_VEILED_PERCENTILE = 90.0
WALL_WITH_VEILED = 1.5

# A light piece's disc shows as one circle of its size (Outline.roundness at
# least ROUND_WHOLE) or by its shaded side wall round the top (a wall at
# least WALL_NONE grey levels deep); a soft spot of a veil's light shows
# neither.
ROUND_WHOLE = 0.85
WALL_NONE = 1.5
# the grey level at which the camera has clipped a ray's wood white (as SquareFeatures.saturated)
RAY_CLIPPED = 246.0


def blob_without_wall(probs: np.ndarray, outline: Outline, sure: float) -> np.ndarray:
    """Per square (bool), a light piece read in doubt (best guess a defender, under `sure`) whose disc is neither
    round nor walled: a veil's soft spot of light, not a piece. The caller makes it an empty square, held back.

    WHY: a piece stands 8-12 mm tall (docs/hardware.md), so it shows a circle's edge at its top or, where a
    veil or the camera's tilt has blurred that edge, its side wall and shadow as a dark arc round it
    (Outline.wall, deepest_wall). A veil's soft spot over bare wood is lighter in its middle and may fall off
    round it over part of a circle, but it has no wall. Hard light, the 630 cached hand-free frames of the
    held-out renderer (bench/foreign_vision.py, seeds 110M-131M, 69,829 squares): 33 empty squares were read
    a defender in doubt, 30 of them less round than ROUND_WHOLE with walls of 0-1.44 grey levels (the others'
    walls 1.82-5.44); of the 1,392 defenders read so in doubt, the 282 less round than that had walls of 1.88
    grey levels and more. Museum light (507 frames, 56,307 squares): no square of either kind. With this
    check (and the clipped rays below, which leave 2 of those spots as they were) the best guesses wrong on
    all 1,137 frames went from 441 to 412, none new, none surer.
    Sure defenders are left as they are: the colour has plainly seen a light piece there.

    A ray whose wood, out beyond the rim and the wall, is clipped white (Outline.rays_clipped) lies in a lamp's
    core, where neither an edge nor a wall can show, so those rays are not held against the disc: only a disc
    too little round on the rays the camera saw is a spot. A spot's own clipped middle ends inside its rays:
    museum light, fresh seeds 133,048,017 i9, a glare spot the size of a piece on bare wood, its middle
    clipped, read a defender (0.5) while every ray that touched white anywhere was counted (0.33 of them
    from the rim outward, 0.04 at the wood). Hard light, fresh seeds 132,094,017 f6: the king on the throne
    half inside a lamp's clipped core, 0.375 of his rays clipped at the wood, his edge round on the rest
    (0.67 in all) and his wall in the core, was read empty (0.42) without this.
    """
    light = (probs.argmax(1) == int(SquareClass.DEFENDER)) & (probs.max(1) < sure)
    unseen = 0.0 if outline.rays_clipped is None else outline.rays_clipped
    return light & (outline.roundness + unseen < ROUND_WHOLE) & (deepest_wall(outline) < WALL_NONE)


def washed_dark_top(probs: np.ndarray, outline: Outline, wood_lum: np.ndarray, veiled: np.ndarray,
                    blown: np.ndarray) -> np.ndarray:
    """Per square (bool), a square read empty under a veil on wood all but clipped white (NEAR_CLIPPING's end,
    not `blown`) whose top is darker than its ring (by NOT_LIGHTER), on the rays away from the camera too
    (Outline.lift_far), with a plainly dark rim (DARK_RIM_HIGH), standing SEEN_SNR's start sigmas of the
    square's own wood's scatter below it: what a veil left of an attacker. The caller holds it back, its best
    guess the attacker.

    WHY: a veil that lifts the wood to the sensor's top lifts an attacker's dark top towards it too, and what
    is left is a top a few grey levels darker than the wood with the sharp edge of a disc round it. Against
    the frame's noise (DiscEvidence.dark_seen) so faint a top is not seen; but clipping squeezes the wood's
    own scatter near white to a grey level or less, and against that it stands out plainly. Bare wood so
    near white under a veil that shows such a top has the scatter of wood short of clipping. Cached held-out
    frames (hard 141M, 142M, 145M, 146M, 147M; museum 141M, 145M), squares read empty so: 12 attackers, 1
    empty square (hard 147,071,017, 8.5 grey levels below wood of scatter 1.0); two empty squares with a
    faint dark rimmed top at 237-240 (hard 142,071,017; museum 145,039,017) had wood scatter 2.9-3.6.
    """
    far = outline.lift if outline.lift_far is None else outline.lift_far
    read_empty = ((probs.argmax(1) == int(SquareClass.EMPTY)) & np.asarray(veiled, bool) & ~np.asarray(blown, bool)
                  & (np.asarray(wood_lum, np.float64) >= NEAR_CLIPPING[1]))
    return (read_empty & (outline.lift < -NOT_LIGHTER) & (far < -NOT_LIGHTER)
            & (outline.sharpness_dark >= DARK_RIM_HIGH) & (-outline.lift >= SEEN_SNR[0] * outline.wood_noise))


def wall_under_veil(probs: np.ndarray, outline: Outline, plain_empty: np.ndarray, veiled: np.ndarray,
                    blown: np.ndarray | None = None) -> np.ndarray:
    """Per square (bool), an "empty" square under a veil with a piece's shaded wall round its rim: a piece the
    veil washed out, which the colour took for lit wood. `blown`: squares clipped white, never such a
    square, nor counted in the veiled squares' own measure (nothing of a wall is left to see there).

    WHY: a veil adds light smoothly over wood, lines and pieces alike; it washes a piece's top towards the
    wood's grey and its rim's step with it, but the piece still stands: its side wall and its shadow make a
    dark arc round the top (Outline.wall) that no veil over bare wood makes. Hard light, development frames
    (hard 11M-16M, 93M, 94M, 97M-101M; museum 10M-15M, 93M, 94M, 96M, 101M), squares read empty under a veil
    (share at least VEIL_SHARE), not blown white: 67 pieces (32 attackers, 27 defenders, 8 kings, 6 of them
    on the throne) had a wall at least WALL_VEIL_RATIO times the frame's bare wood's, no empty square did (the
    nearest 3.5 and 3.35 times: museum 93,061,017 g5, hard 94,002,017 e4). The caller holds such a square
    back, its best guess the piece its top says: darker than the wood an attacker, else a light piece (13 of
    the 67 tops say the other kind; the colour under such a veil says nothing surer).

    Bare wood out of the veils is a strict measure under one: a veil squeezes the wood's grain and the
    lines' blur alike, and what a veiled bare square shows of a "wall" is the frame's own. So a square read
    empty only in doubt (the veil's doubt: under DOUBTFUL_EMPTY) is measured against the other veiled
    squares read empty too: a wall WALL_AMONG_VEILED times their WALL_VEILED_PERCENTILE-th percentile, and
    WALL_WITH_VEILED times bare wood's, is a piece's. Development frames (as above, and hard 102M, 103M,
    museum 102M), squares read empty in doubt under a veil, not blown: hard 31 pieces (14 attackers, 14
    defenders, 3 kings) and museum 1 defender had such a wall, no empty square (the nearest 2.7 times the
    veiled squares' in hard light, 2.8 times in museum light: 102,079,017 f8, under a shadow's edge).
    """
    plain_empty = np.asarray(plain_empty, bool)
    if int(plain_empty.sum()) < RIM_ONLY_REFERENCE:
        return np.zeros(len(probs), bool)
    bare = bare_wood_level(outline.wall, plain_empty, WALL_ONLY_FLOOR)
    read_empty = (probs.argmax(1) == int(SquareClass.EMPTY)) & np.asarray(veiled, bool)
    if blown is not None:
        read_empty &= ~np.asarray(blown, bool)
    walled = read_empty & (outline.wall >= WALL_VEIL_RATIO * bare)
    if int(read_empty.sum()) >= RIM_ONLY_REFERENCE:
        veiled_level = max(float(np.percentile(outline.wall[read_empty], WALL_VEILED_PERCENTILE)), WALL_ONLY_FLOOR)
        walled |= (read_empty & (probs.max(1) < DOUBTFUL_EMPTY)
                   & (outline.wall >= WALL_AMONG_VEILED * veiled_level) & (outline.wall >= WALL_WITH_VEILED * bare))
    return walled


# An ivory top on a marked square's darker fill stands far above that fill: at least FILL_STEP times as
# far as the grid lines beside the square sink below it (Outline.lift against wood_lum - line_lum).
FILL_STEP = 1.0


def light_on_fill_short(probs: np.ndarray, outline: Outline, depth: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Per square (0..1), a light piece the colour reads on a marked square (the throne left to the caller)
    whose top stands less above the fill than the grid lines sink below it: a soft spot of light, not ivory.

    WHY: hard light, fresh seeds 89,027,017 a4 and 89,003,017 e2, both Tablut camp squares: a streak of light
    along the board's edge and a soft spot under a green lamp lifted the darker fill above the plain wood, and
    their edges gave the "disc" a rim (sharpness 0.55-0.60), so the squares read sure defenders (1.00, 0.94).
    light_step_short leaves the marked squares out (another fill, another step). Over the development frames
    and 89M (all conditions), the 9 empty marked squares read light stood 0.23-0.57 of the lines' depth above
    their fill; the 4 light pieces on marked squares (kings on corners) 2.3-6.9. `depth`: wood_lum - line_lum.
    The caller counts this as light_step_short: the rim is not counted and the square is held back.
    """
    light = np.isin(probs.argmax(1), (int(SquareClass.DEFENDER), int(SquareClass.KING)))
    step = np.maximum(np.asarray(depth, np.float64), MIN_STEP)
    return (light & np.asarray(marked, bool) & (outline.lift < FILL_STEP * step)).astype(np.float64)


def crown_alone(probs: np.ndarray, ev: DiscEvidence, outline: Outline, unveiled: np.ndarray) -> np.ndarray:
    """Per square (0..1), a king the colour reads where, with no veil there, neither a light disc stands out
    of the noise nor any outline round the top (Outline.fall within SEEN_SNR noise sigmas): gold-tinted wood.

    WHY: the king is the one piece king_keep lets through on his crown's colour alone (his gold top may be no
    lighter than the wood), but he is a piece all the same: his ivory body round the crown and his shadow
    fall away from the top. Hard light, seeds 90,022,017 b1, 89,020,017 b11 and 13,032,017 j5: bare wood that
    the light tinted gold read kings (0.83, 0.78, 0.85) with no disc and a fall of about 2 noise sigmas, while
    the real king, his crown unseen, was read a defender. The kings of the development frames and 89M with no
    light disc seen, out of veils, fell 10.9-15.1 sigmas; under veils (left out here) the crown may be all
    that is left of him.
    """
    king = probs.argmax(1) == int(SquareClass.KING)
    return king * (1.0 - ev.light_seen) * (1.0 - fall_seen(outline)) * np.asarray(unveiled, np.float64)


def piece_shown(ev: DiscEvidence, outline: Outline) -> np.ndarray:
    """Per square (bool), whether the camera plainly saw a piece there: a disc, light or dark, with its rim,
    or an outline falling away from the top out of the noise (SEEN_SNR), as a king's body round his crown."""
    return np.maximum.reduce([ev.light_seen * ev.light_rim, ev.dark_seen * ev.dark_rim, fall_seen(outline)]) >= 0.5


# A dark piece's top against the lighter wood makes a step on the disc's circle (vision/features "edge": the
# mean gradient on the circle over the wood's light; the frames' attackers 0.4-0.7). A circle softer than
# SOFT_CIRCLE (all to none) has no piece's edge. And a dark top stands below the wood behind a rim that rises
# within the lens blur: a sharpest rise outward over EDGE_PX (Outline.rise) within SHARP_RISE noise sigmas
# (all to none) is the soft edge of a shadow.
SOFT_CIRCLE = (0.2, 0.3)
SHARP_RISE = (4.0, 6.0)


def dark_without_edge(probs: np.ndarray, ev: DiscEvidence, outline: Outline, edge: np.ndarray) -> np.ndarray:
    """Per square (0..1), an attacker the colour reads with nothing of a piece's edge: a soft circle round
    either no dark top standing out of the noise (DiscEvidence.dark_seen) or a dark patch whose rim rises
    no sharper than the noise allows (a shadow's).

    WHY: the colour is read against the square's own bare wood, and in dim light an onlooker's shadow or
    a lamp's falling-off across the square makes its middle darker than that reference, which looks like a
    dark top. A real attacker is a disc with an edge. Hard light, development seeds:
    - no dark top seen: 16,041,017 k10, 11,005,017 a4, 15,029,017 k2 and ten more, empty squares in dim wood
      (53-130 grey levels) read attackers (0.5-0.6), their circles' edge 0.11-0.25, while the attackers the
      colour read with no dark top seen had edges of 0.38-0.66;
    - a dark patch seen: 13,011,017 c6, 15,042,017 i5, 16,028,017 d4 and five more, empty squares under a
      shadow read attackers, their circles' edge 0.12-0.20 and their rims' sharpest rise 2.3-3.8 noise
      sigmas; of 6,204 attackers read so, 1 % rose less than 6.5 sigmas and 1 % had an edge under 0.19.
    The caller mixes this in as the shape conflict's doubt, towards the prior with the dark disc not counted.
    """
    attacker = probs.argmax(1) == int(SquareClass.ATTACKER)
    sharp = _ramp(outline.rise / max(outline.noise, 0.5), *SHARP_RISE)
    return attacker * (1.0 - ev.dark_seen * sharp) * (1.0 - _ramp(np.asarray(edge, np.float64), *SOFT_CIRCLE))


def without_dark(ev: DiscEvidence, shadow: np.ndarray) -> DiscEvidence:
    """The evidence with a dark disc's rim counted only as far as it is no shadow's (dark_without_edge)."""
    return replace(ev, dark_rim=ev.dark_rim * (1.0 - shadow))


def clipped_top(ev: DiscEvidence, clipped: np.ndarray) -> DiscEvidence:
    """The evidence with what shows of a piece counted as a light piece's where its top is clipped white.

    WHY: where glare has clipped a square's top white in every channel (SquareFeatures.saturated), what
    is left of a piece is the dark crescent of its shaded wall and shadow (piece_wall), and where that
    crescent reaches into the disc sampled as its top, it reads as a dark disc. But a veil that leaves the
    wall dark does not lift a near-black top to white: the top that clipped is ivory. Museum light,
    development seeds 11,042,017 j6, i7 and j7 and 10,007,017 g5: defenders under a white veil, only their
    crescents left, read attackers (0.5); in the development frames (hard and museum) a square blown white
    was read an attacker five times, each a defender.
    """
    clipped = np.asarray(clipped, bool)
    shown = np.maximum(ev.light_seen * ev.light_rim, ev.dark_seen * ev.dark_rim)     # the disc, light or dark
    return replace(ev, light_seen=np.where(clipped, shown, ev.light_seen),
                   light_rim=np.where(clipped, 1.0, ev.light_rim),
                   dark_seen=np.where(clipped, 0.0, ev.dark_seen), dark_rim=np.where(clipped, 0.0, ev.dark_rim))
