"""Is something (a hand, an arm) over the board? Judged by the grid lines.

The dark grid lines are the one thing printed on every board that no piece
standing on a square centre covers: the crossings of the lines are the
farthest points from every square's centre. A hand or a sleeve, of any
colour and in any light, hides a connected patch of crossings (two or more
next to each other: a hand is wider than a square). Glare lifts the wood and
the lines alike; where the reader finds a veil, crossings are judged on the
picture as taken and with the veil taken off (GridChecker.both). Dim
light and noise never hide two crossings side by side. The core of a strong
glare patch can still wash two lines out in both looks; it is lit far
brighter than the board's wood, which no hand over the board is (a hand is
lit by the same lamps as the wood and shades it), so a patch whose every
crossing is that bright is glare, not a hand. Colour tests
for skin would fail on wood, which is skin-coloured.

Wood clipped white round a crossing is never taken as covered on its own: the
camera kept no line there to judge. But a pale arm under a bright lamp clips
white along its top too, and then only its shaded edge hides crossings the
ordinary way, one here and one there, never two side by side (museum light,
development seeds 15,025,029: an arm over a3-d3 hid six crossings, four of
them clipped, and was read as a board). A clipped crossing whose line is gone
next to one hidden where the camera has not squeezed the line (NEAR_WHITE) is
the rest of that arm; a veil's core fades out over crossings whose lines
still show.

A crossing is hidden only when its line is gone, not merely faint: the
line/wood ratio is blind to *why* a line is faint. A veil adds light to the
line and the wood alike, so their ratio goes towards 1 while the line's
depth in grey levels (wood minus line) stays, squeezed only by the camera's
tone curve near white; dim exposure shrinks that depth and the noise stays.
In a dim frame a veil cannot even reach 1.8 times the board's median wood
(the picture clips at 255 first), so the glare-core rule alone does not
catch it. A hand or a sleeve over a crossing leaves no line at all: its
depth is within the frame's own pixel noise. So a crossing counts as hidden
only when its line's depth is within LINE_SNR noise sigmas (the frame's
own scatter, vision/shape.pixel_noise) in at least one look, besides the
ratio test in both.

The line is compared with the wood off the crossing's diagonals and with the
wood right beside it, and is gone when it is gone against either: an arm is
shaded across (lit from one side, a veil over part of it), and against the
diagonals' median the dim side of a bare hand passes for a line, while
against the hand's own surface on both sides of the line it does not.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from vision.rectify import RectifiedFrame, pixel_index
from vision.robust import nanmedian, row_percentile
from vision.shape import WHITE, pixel_noise

# A patch of hidden crossings whose wood is everywhere brighter than this
# many times the board's median wood is the core of a glare patch, not a hand.
GLARE_BRIGHTNESS = 1.8
# A lone crossing inside hidden next to a line gone at the board's edge (GridChecker.occluded, a fingertip)
# counts only where its wood is lit at most this many times the board's median wood: a fingertip lights
# nothing, and a veil's streak along the edge leaves those two cues where it lies brighter than that.
TIP_LIGHT = 1.4
# A line darker than its wood by more than this many noise sigmas is seen, however
# faint against the wood (a veil's light over it): a hand leaves no line at all.
LINE_SNR = 3.0
# Grey level of the picture as taken above which a line's depth is squeezed by the camera's tone
# curve and clipping (GridChecker.both): 85 % of white.
NEAR_WHITE = 217.0
# Wood brighter than this round a crossing is clipped white (the camera kept no line there to judge).
CLIPPED = 245.0
# The wood beside a line it is compared with (GridChecker.check) lies this share of a square across it.
SIDE_PITCH = 0.15
# In a frame with glare, a hidden patch all where the picture as taken is nearly white (NEAR_WHITE: the tone
# curve squeezes the lines' depth into the noise there), however many crossings, makes a hand only where the
# look with the veil taken off hides a patch of this size round it (GridChecker.both). Hard light, seeds
# 91,031,017: two crossings under a streak of a veil (wood 219-222 as taken, hidden in both looks and no
# more) made a hand-free board "hand over board"; fresh seeds 97,000,017: three crossings in a veil's
# elongated core (243-245), hidden as taken alone, did so too. Museum light, development seeds 10,020,029: a
# pale hand under a lamp hid two crossings as taken and seven with the veil taken off, and is still a hand.
SQUEEZED_PATCH = 3
# A crossing and its four neighbours along the lines (GridChecker.check: the clipped rest of a hand).
CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
# A crossing's line samples run along the line each way from it, half of them along the rank's line and half
# along the file's (GridChecker's arms +x, -x, +y, -y): its line is faint only where at least this share of
# each half is (GridChecker.check). 466 held-out arm frames (seeds 110M-119M) are refused or read alike with it.
BOTH_WAYS = 0.4
# A sleeve in over the edge with the veil's estimate taken for it (GridChecker.sleeve_past_band): a patch of this
# many crossings hidden with the veil taken off, from the first crossing inside where the line in is gone.
SLEEVE_PATCH = 3
# Something crossing the frame band has an outline (FrameBandChecker.outlined): along the band the picture steps
# by at least this share of its whole span round the segment within OUTLINE_STEP_PX pixels, and by at least
# OUTLINE_SNR noise sigmas. Light does not: a veil's rim or a shadow's penumbra spreads over centimetres.
# Cached held-out frames (seeds 135M-152M) where the sleeve rule's grid cue and the band's deviation met: 103 of
# 2,058 hand-free ones with a veil, their sharpest steps at most 0.17 of the span; the arms read as boards that it
# catches 0.30-0.58. Of 1,980 cached frames (1,740 hand-free) the rule changes 5 arms alone.
OUTLINE_SHARE = 0.25
OUTLINE_STEP_PX = 4
OUTLINE_SNR = 8.0
# Marked squares' fill is judged for a sleeve's colour (foreign_squares) only with this many of them seen.
FILL_REFERENCE = 3
# A plain square whose red is clipped is off-colour (foreign_squares) where its log(B/G) lies this far from the
# wood's round it. 460 held-out hand-free frames (seeds 110M-119M): such squares lay within 0.17 of it.
HUE_LIMIT = 0.3


@dataclass(frozen=True)
class GridVisibility:
    hidden: np.ndarray          # (n+1, n+1) bool: crossing not visible
    contrast: np.ndarray        # (n+1, n+1) line / wood brightness ratio
    largest_patch: int          # crossings in the largest connected hidden patch that is not glare
    wood: np.ndarray            # (n+1, n+1) the wood's brightness round each crossing
    covered: np.ndarray         # (n+1, n+1) bool: the line as bright as its wood (ratio test)
    faint: np.ndarray           # (n+1, n+1) bool: the line's depth within LINE_SNR noise sigmas
    washed: np.ndarray          # (n+1, n+1) bool (GridChecker.both): covered in both looks, faint only with
                                # the veil off, where the picture as taken is nearly white; not hidden
    edge_hidden: np.ndarray     # (n+1, n+1) bool: a crossing on the playing area's border whose line into the
                                # board is gone (GridChecker._edge_lines); never a corner
    largest_unsqueezed: int     # as largest_patch, but a patch all where the picture as taken is nearly white
                                # never counts, whatever the other look hides (`occluded(trusted=True)`)


class GridChecker:
    """Measures how well each crossing of the grid lines can be seen."""

    def __init__(self, geometry: BoardGeometry, frame: RectifiedFrame, hidden_ratio: float = 0.93,
                 min_patch: int = 2):
        self.n = geometry.size + 1
        self.hidden_ratio = hidden_ratio
        self.min_patch = min_patch
        p = geometry.pitch
        k = np.arange(self.n) * p
        X, Y = np.meshgrid(k, k)                       # row index = line along y (rank), col = along x
        self.crossings = frame.to_px(np.stack([X.ravel(), Y.ravel()], 1))
        s = frame.ppm
        dist = np.arange(0.12 * p, 0.25 * p, 1.0 / s)
        arms = []
        for ux, uy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            arms += [(ux * d * s, uy * d * s) for d in dist]
        arm = np.array(arms)
        # the line is ~2 px wide and the homography is good to about a pixel:
        # take the darkest of three samples across the line
        across = np.abs(arm[:, ::-1]) > 0
        self.arm_bands = [arm + across * k for k in (-1.5, 0.0, 1.5)]
        # the wood on either side of each line sample, SIDE_PITCH of a square across the line
        side = SIDE_PITCH * p * s
        self.arm_sides = [arm + across * side, arm - across * side]
        dd = 0.15 * p
        diag_mm = np.array([(dd, dd), (dd, -dd), (-dd, dd), (-dd, -dd)])
        self.diag = diag_mm * np.array([s, -s])
        # wood references must lie on the playing area (the frame around it may be another colour)
        pts = np.stack([X.ravel(), Y.ravel()], 1)[:, None, :] + diag_mm[None]
        inside = (pts > 0).all(2) & (pts < geometry.width).all(2)
        self.diag_weight = np.where(inside, 1.0, np.nan)
        self.inner = np.zeros((self.n, self.n), bool)                # the crossings off the playing area's border
        self.inner[1:-1, 1:-1] = True
        # on the border (corners left out), the samples of the one line that runs from the crossing into the
        # board: the arms are (+x, -x, +y, -y) in pixels, and the picture's y runs against the board's
        arm_of = np.full((self.n, self.n), -1)
        arm_of[1:-1, 0], arm_of[1:-1, -1], arm_of[-1, 1:-1], arm_of[0, 1:-1] = 0, 1, 2, 3
        self.edge = arm_of >= 0
        self.inward = arm_of[self.edge][:, None] * len(dist) + np.arange(len(dist))[None]   # (edge, samples)
        self.band_beside = _band_beside(geometry.size)          # (tip_past_band)
        self._index: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _samples(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Flat pixel indices in an n x n picture of the line samples (3 bands), the wood beside them
        (2 sides) and the wood off the diagonals, round every crossing: fixed for a board, so worked
        out once (each frame takes a few thousand samples; rounding them anew cost a third of the check)."""
        if n not in self._index:
            def at(offsets: np.ndarray) -> np.ndarray:
                return pixel_index(self.crossings[:, None, :] + offsets[None], n)
            self._index[n] = (np.stack([at(a) for a in self.arm_bands]), np.stack([at(a) for a in self.arm_sides]),
                              at(self.diag))
        return self._index[n]

    def check(self, rect_gray: np.ndarray, noise: float | None = None) -> GridVisibility:
        """Which grid crossings are hidden; `noise` is pixel_noise(rect_gray) when the caller has it already."""
        g: np.ndarray = cv2.blur(rect_gray.astype(np.float32), (3, 3)).ravel()
        bands, beside, diagonals = self._samples(rect_gray.shape[0])
        lines = g.take(bands).min(0)
        sides_each = g.take(beside)
        sides = 0.5 * (sides_each[0] + sides_each[1])
        wood = nanmedian(g.take(diagonals) * self.diag_weight, 1)
        # a line is judged against two references of wood, and is gone when it
        # is gone against either: the wood off the crossing's diagonals, and the
        # wood just beside each line sample, SIDE_PITCH of a square either side.
        # Light that changes across a crossing (a hand's or a sleeve's shading, a
        # veil over part of a hand) makes the dim side of a bare hand pass for a
        # line against the diagonals' median; against its own two sides it does
        # not. The sides lie beyond a blurred line's reach (at 0.1 of a square
        # the blur of a very soft frame made its lines look gone).
        line = row_percentile(lines, 30)
        ratio = np.maximum((line + 1) / (wood + 1), row_percentile((lines + 1) / (sides + 1), 30))
        below_sides = sides - lines                 # each sample's depth below the wood beside it
        depth = np.minimum(wood - line, row_percentile(below_sides, 70))
        wood_grid = wood.reshape(self.n, self.n)
        saturated = wood_grid > CLIPPED
        # the border crossings have the frame on one side, often as dark as the
        # line: they are reported but do not count as covered
        as_bright = (ratio > self.hidden_ratio).reshape(self.n, self.n) & self.inner
        covered = as_bright & ~saturated
        noise = pixel_noise(rect_gray) if noise is None else noise
        faint = (depth <= LINE_SNR * max(noise, 0.5)).reshape(self.n, self.n)
        # a hand hides the lines both ways; blur along one direction wipes out one family of lines and leaves the
        # other (hard light, fresh seeds 119,008,017: a soft, JPEG-blocky frame, the line along rank 2 gone at d2
        # and e2, the files' lines there 13-20 grey levels deep, and a hand-free board was "hand over board").
        # Inner crossings are faint only where, both ways, at least BOTH_WAYS of the samples are within the noise
        # against the wood beside them.
        beside_faint = below_sides <= LINE_SNR * max(noise, 0.5)
        half = beside_faint.shape[1] // 2
        both_ways = ((beside_faint[:, :half].mean(1) >= BOTH_WAYS)
                     & (beside_faint[:, half:].mean(1) >= BOTH_WAYS)).reshape(self.n, self.n)
        faint &= both_ways | ~self.inner
        grid = covered & faint
        # clipped wood is no sure sign of a hand (a veil's core clips and washes the lines out), but
        # a clipped crossing whose line is gone next to one hidden on wood the camera has not
        # squeezed (NEAR_WHITE) is the rest of what hid that one: a pale arm under a bright lamp clips
        # white along its top, while a veil's core fades out over crossings whose lines still show.
        # Next to it along a line, not diagonally: hard light, fresh seeds 103,053,017, a veil's clipped
        # streak (255) diagonally beside one crossing hidden at its rim (196) made a hand-free board "hand
        # over board" (4 exposures of 12); every arm frame of the development sets is a hand either way
        gone = as_bright & saturated & faint
        seen_hidden = grid & (wood_grid <= NEAR_WHITE)
        grid = grid | (gone & cv2.dilate(seen_hidden.astype(np.uint8), CROSS).astype(bool))
        largest, _ = self._largest(grid, wood_grid)       # (one look: nothing is left out as squeezed)
        return GridVisibility(hidden=grid, contrast=ratio.reshape(self.n, self.n),
                              largest_patch=largest, wood=wood_grid,
                              covered=covered, faint=faint, washed=np.zeros_like(grid),
                              edge_hidden=self._edge_lines(lines, sides, noise), largest_unsqueezed=largest)

    def _edge_lines(self, lines: np.ndarray, sides: np.ndarray, noise: float) -> np.ndarray:
        """(n+1, n+1) bool: border crossings whose line into the board is gone, as `check` judges a line
        against the wood beside it (ratio and depth within LINE_SNR noise sigmas), where that wood is not
        nearly white (NEAR_WHITE: a glare spot at the board's edge washes a line out so).

        The border crossings are left out of `hidden`: the frame on one side is often as dark as a line.
        But the line that runs from a border crossing into the board has wood on both sides, and a hand
        reaching in over the edge hides it where it comes in (GridChecker.occluded).
        """
        edge = self.edge.ravel()
        line = np.take_along_axis(lines[edge], self.inward, 1)
        wood = np.take_along_axis(sides[edge], self.inward, 1)
        gone = ((row_percentile((line + 1) / (wood + 1), 30) > self.hidden_ratio)
                & (row_percentile(wood - line, 70) <= LINE_SNR * max(noise, 0.5))
                & (np.median(wood, 1) <= NEAR_WHITE))
        out = np.zeros(self.n * self.n, bool)
        out[edge] = gone
        return out.reshape(self.n, self.n)

    @staticmethod
    def _largest(grid: np.ndarray, wood: np.ndarray, squeezed: np.ndarray | None = None,
                 support: np.ndarray | None = None) -> tuple[int, int]:
        """Crossings in the largest connected hidden patch, leaving out patches lit like glare's core,
        and patches all on `squeezed` crossings unless `support` (the crossings hidden in another look)
        hides a patch of SQUEEZED_PATCH that reaches them and the patch reaches the board's edge through
        squeezed or supported crossings (reaches_border); and the same with every patch all on
        `squeezed` crossings left out, supported or not (GridVisibility.largest_unsqueezed). One pass
        over the patches gives both."""
        count, labels = cv2.connectedComponents(grid.astype(np.uint8), connectivity=8)
        if count <= 1:
            return 0, 0
        if support is not None:
            n_sup, sup_labels = cv2.connectedComponents(support.astype(np.uint8), connectivity=8)
            big = [k for k in range(1, n_sup) if int((sup_labels == k).sum()) >= SQUEEZED_PATCH]
            supported = np.isin(sup_labels, big)
        else:
            supported = np.zeros(grid.shape, bool)
        glare = lit_like_glare(wood)
        # what a squeezed patch may reach the board's edge through: nearly white, or hidden in the other look
        lit = squeezed if squeezed is not None else np.zeros(grid.shape, bool)
        if support is not None:
            lit = lit | support
        largest = unsqueezed = 0
        for k in range(1, count):
            patch = labels == k
            if glare[patch].all():
                continue
            size = int(patch.sum())
            if squeezed is not None and squeezed[patch].all():
                if (supported & patch).any() and reaches_border(patch, lit):
                    largest = max(largest, size)
                continue
            largest, unsqueezed = max(largest, size), max(unsqueezed, size)
        return largest, unsqueezed

    def both(self, a: GridVisibility, b: GridVisibility) -> GridVisibility:
        """The crossings hidden in two looks at one frame: `a` with the glare veil taken off, `b` as taken.

        A crossing is hidden when it is hidden in the picture as taken (the
        line as bright as its wood and its depth within the noise: a veil
        adds light to line and wood alike and leaves the depth), or covered
        in both looks with the depth within the noise in at least one. The
        wood's brightness is the brighter of the two: the picture as taken,
        with the veil's light in it, so a veil's washed-out core is still
        left out as glare (and clipped wood is never covered).

        Hidden in both looks alone is not enough: the veil is estimated from
        what looks like bare wood, and over a pale arm the estimate takes the
        arm's own light for a veil; taken off, it leaves a dim picture whose
        noise passes for lines, and an arm over the board was read as a board.

        Faint in the veil-free look alone does not count where the picture as
        taken is nearly white (NEAR_WHITE): at the rim of a veil's clipped core
        the camera squeezed the line's depth, and the veil's estimate, taken
        off, leaves the line within the noise though the picture as taken shows
        it. Hard light, bench/confirm_latency.py 60M trial 15: two such
        crossings beside a clipped core (wood 240 and 224, 1.7 and 1.6 times the
        board's) made a hand-free board "hand over board" in 7 pictures of 10.
        A crossing right beside a clipped one (the core's rim), however bright
        its own wood, is faint with the veil off alone only as part of a patch
        hidden otherwise: the veil's estimate is steepest at the rim and the
        tone curve squeezes the line before 85 % of white. Hard light,
        development seeds 13,023,017: two rim crossings at wood 207, lines
        plainly seen as taken (depth over three sigmas), faint only with the
        veil off, made a hand-free board "hand over board". A pale sleeve at a
        core's rim (tests/test_vision_hard_light.py, arm 19) hides one crossing
        in both looks, and its rim neighbour joins it.
        """
        covered = a.covered & b.covered
        # where the picture as taken is nearly white, the camera squeezed the line's depth and
        # the veil taken off cannot give it back: there only the picture as taken says faint
        near_white = b.wood > NEAR_WHITE
        rim = beside_clipped(b.wood) & ~near_white
        faint = (a.faint & ~near_white & ~rim) | b.faint
        hidden = (covered & faint) | b.hidden
        # at a clipped core's rim a line faint only with the veil off joins a patch that is hidden otherwise
        joined = cv2.dilate(hidden.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        hidden |= covered & a.faint & rim & joined
        near_white |= rim
        wood = np.fmax(a.wood, b.wood)
        largest, unsqueezed = self._largest(hidden, wood, b.wood > NEAR_WHITE, a.hidden)
        return GridVisibility(hidden=hidden, contrast=np.minimum(a.contrast, b.contrast),
                              largest_patch=largest, wood=wood,
                              covered=covered, faint=faint, washed=covered & a.faint & near_white & ~hidden,
                              edge_hidden=a.edge_hidden & b.edge_hidden, largest_unsqueezed=unsqueezed)

    def arm_crossing(self, vis: GridVisibility, region: np.ndarray) -> bool:
        """A crossing is gone that, with an off-colour region reaching in over the edge (arm_region),
        makes an arm: one hidden, or one washed out at near white with the veil taken off, or a patch of
        hidden ones (min_patch) at the region's own squares' corners however brightly lit.

        The washed ones do not make a hand on their own (GridChecker.both: a veil's clipped rim
        washes lines so too), but a pale hand's tip under a strong veil leaves only such a crossing
        beside its off-colour squares (hard light, development seeds 14,007,029). A hand under a lamp's
        core is lit like glare (_largest leaves such patches out), but a sleeve comes in over the edge
        to it: hard light, seeds 90,019,029, a sleeve over Tablut's left camps and the hand under the
        lamp, all seven crossings it hid lit like glare, was read as a board. A single such crossing
        is not enough: a bluish veil at the board's edge (development seeds 11,046,017) leaves its
        squares off-colour with the veil taken off and one crossing washed out in its core.
        A washed crossing counts only at the region's squares' corners or one crossing beside them, where
        the tip lies: hard light, fresh seeds 147,087,017, a bluish lamp over a Tablut board's bottom camps
        left them and their neighbours off-colour beside the band's lit segments, and one crossing washed
        out in another lamp's core four squares away made the hand-free board "hand over board".
        `region` is arm_region's (size, size) grid.
        """
        if vis.largest_patch >= 1:
            return True
        near = cv2.dilate(_corners(region, vis.hidden.shape).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        if bool((vis.washed & near).any()):
            return True
        return self.patch_at(vis, region)

    def patch_at(self, vis: GridVisibility, region: np.ndarray) -> bool:
        """A patch of hidden crossings (min_patch), however brightly lit, at the corners of `region`'s
        squares (a (size, size) bool grid): the part of an arm the lamp lights like glare's core."""
        return _patch_from(vis.hidden, _corners(region, vis.hidden.shape), self.min_patch)

    def occluded(self, vis: GridVisibility, trusted: bool = False) -> bool:
        """A hand over the board: a patch of hidden crossings (min_patch), or a line gone from the board's
        edge to its first crossing inside: a border crossing whose line into the board is gone
        (GridVisibility.edge_hidden) and that line's next crossing hidden. A fingertip that reaches in over
        the edge by a square hides one crossing inside and the line where it comes in.

        WHY: museum light, fresh seeds 96,016,029: a pink fingertip over a6-b7, in from the left edge and
        no other colour than the lit frame band and the wood, hid one crossing inside and the lines into
        the board at the two border crossings beside it, and was read as a board. Merely next to each
        other, diagonals too, was not enough: hard light, fresh seeds 99,022,017, a dim soft frame whose
        lines were faint everywhere, had five such border crossings and two lone hidden ones inside, one
        of them diagonally beside a border one, and was refused as "hand over board". Nor is a crossing
        inside where the picture is nearly white (NEAR_WHITE), as a border one is not, nor one lit over
        TIP_LIGHT times the board's wood (a veil's streak in from the edge or along it).

        `trusted`: the visitor has said no hand is over this still picture (vision/reader.BoardReader.hands_off).
        A patch all where the picture as taken is nearly white then makes no hand, however large the patch
        the veil-free look hides round it (GridVisibility.largest_unsqueezed): that look is the one a veil's
        estimate can mislead, and such a patch is what a glare streak leaves. Everything else stays as strict.
        """
        patch = vis.largest_unsqueezed if trusted else vis.largest_patch
        if patch >= self.min_patch:
            return True
        next_in = _next_in(vis.edge_hidden)
        # a crossing inside hidden where the picture is nearly white counts no more than in `_largest` (a veil's
        # core squeezes its line away: hard light, fresh seeds 100,053,017, one at 234 grey levels), nor one lit
        # like glare's core, as `_largest` leaves such patches out (hard light, seeds 103M, a game's scene: a
        # narrow veil's streak running in from the edge along a line, its crossings at 209-237 grey levels
        # where the board's wood had 90, refused three plies of the game as "hand over board")
        # Nor one lit over TIP_LIGHT times the board's wood: hard light, fresh seeds 113,010,017, a lamp's streak
        # along the board's top rows washed out the line in from the right edge at rank 10 and hid the crossing
        # next to it (wood 209, 1.56 times the board's), and a hand-free board was "hand over board". The
        # fingertips this rule catches, on the 600 arm frames of seeds 96M-113M that it alone refuses (9), lie
        # at 0.5 to 1.26 times the board's wood: skin in the same light as the wood, under a veil at most.
        seen = (np.nan_to_num(vis.wood, nan=WHITE) <= NEAR_WHITE) & ~lit_like_glare(vis.wood, TIP_LIGHT)
        return bool((vis.hidden & next_in & seen).any())

    def tip_past_band(self, vis: GridVisibility, band: np.ndarray) -> bool:
        """A fingertip in over the edge as `occluded` takes one (a border crossing's line into the board
        gone and the next crossing inside hidden) however brightly lit short of a glare core's
        GLARE_BRIGHTNESS, nearly white too, where the frame band beside that border crossing
        (FrameBandChecker.deviating, `band`) shows something crossing it: the sleeve behind the tip.

        WHY: fresh seeds 140,039,029 of the held-out renderer, a hand under a lamp, its blue sleeve
        across the band at Tablut's top edge. Hard light: it hid the line in from the edge at two
        border crossings and the crossing inside next to one of them, lit 1.45 times the board's wood
        (over TIP_LIGHT, which keeps a lamp's streak along the top rows out: 113,010,017); museum
        light: the line in at one border crossing and two crossings inside, 235-237 grey levels
        (nearly white, which keeps a veil's core at the edge out: 100,053,017). Both were read as a
        board. Neither streak nor core crosses the band beside the line as a sleeve does: on 1,100
        hard and 700 museum hand-free frames (seeds 110M-141M) this rule fires on none.
        """
        next_in = _next_in(vis.edge_hidden & self._beside(band))
        seen = ~lit_like_glare(vis.wood)
        return bool((vis.hidden & next_in & seen).any())

    def sleeve_past_band(self, veil_off: GridVisibility, vis: GridVisibility, band: np.ndarray) -> bool:
        """A pale sleeve that the veil's estimate took for light: with the veil taken off (`veil_off`, the
        look GridChecker.both does not trust alone), a border crossing's line into the board gone, the band
        beside it crossed (`band`: FrameBandChecker.deviating, and `outlined` where that is to be sure), and a
        patch of SLEEVE_PATCH crossings from the next crossing inside, hidden in that look or in `vis` (both
        looks judged together, GridChecker.both: the arm's shaded edge hides crossings as taken that the veil's
        estimate, taken off, leaves a line at; museum light, fresh seeds 149,039,029).

        WHY: museum light, fresh seeds 150,016,029 and 150,020,029, held-out 146,022,029: a cream arm over the
        board under a lamp, in over the edge, clipped near white as taken, so the picture as taken keeps no
        line to judge (`both` leaves such crossings out, as a veil's core leaves them), and with the veil's
        estimate taken off hiding 5-7 crossings in a line from the edge; each was read as a board. A veil's
        core at the edge does that too, and lights the band beside it (103 of 2,058 cached hand-free held-out
        frames with a veil): only its outline tells the sleeve (FrameBandChecker.outlined).
        """
        start = _next_in(veil_off.edge_hidden & self._beside(band))
        return _patch_from(veil_off.hidden | vis.hidden, start, SLEEVE_PATCH)

    def _beside(self, band: np.ndarray) -> np.ndarray:
        """(n+1, n+1) bool: the border crossings with a band segment flagged in `band` on either side."""
        rows, cols, one, other = self.band_beside
        flags = np.asarray(band, bool)
        beside = np.zeros((self.n, self.n), bool)
        beside[rows, cols] = flags[one] | flags[other]
        return beside


def _band_beside(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The border crossings (rows, cols of the (size+1, size+1) grid; corners left out) and, for each,
    the two frame band segments either side of it, as indices in FrameBandChecker.deviating's order:
    bottom left to right, right upwards, top right to left, left downwards. Fixed for a board."""
    out: list[tuple[int, int, int, int]] = []
    for k in range(1, size):
        out += [(0, k, k - 1, k),                                               # bottom
                (k, size, size + k - 1, size + k),                              # right
                (size, k, 3 * size - 1 - k, 3 * size - k),                      # top
                (k, 0, 4 * size - 1 - k, 4 * size - k)]                         # left
    rows, cols, one, other = (np.array(v) for v in zip(*out))
    return rows, cols, one, other


def _next_in(edge: np.ndarray) -> np.ndarray:
    """(n+1, n+1) bool: the first crossing inside from each border crossing set in `edge`, along its line."""
    next_in = np.zeros_like(edge)
    next_in[:, 1] |= edge[:, 0]
    next_in[:, -2] |= edge[:, -1]
    next_in[1, :] |= edge[0, :]
    next_in[-2, :] |= edge[-1, :]
    return next_in


def lit_like_glare(wood: np.ndarray, factor: float = GLARE_BRIGHTNESS) -> np.ndarray:
    """(n+1, n+1) bool: crossings whose wood is brighter than `factor` times the board's median wood
    (inner crossings), a glare patch's core at GLARE_BRIGHTNESS; False where the wood or that median is
    unknown."""
    inner = wood[1:-1, 1:-1]
    board = float(np.nanmedian(inner)) if np.isfinite(inner).any() else 0.0
    if board <= 0:
        return np.zeros(wood.shape, bool)
    return np.nan_to_num(wood, nan=0.0) > factor * board


def reaches_border(patch: np.ndarray, around: np.ndarray) -> bool:
    """Whether `patch`, with the `around` crossings connected to it (diagonals too), reaches the playing area's
    border: a hand comes in over the board's edge.

    WHY: a patch hidden only where the picture is nearly white (GridChecker._largest's squeezed patches) is a
    pale hand under a lamp, its top clipped white, or the rim of a lamp's clipped core. The hand's arm comes in
    over the edge, under the same lamp (nearly white all the way, or hidden with the veil taken off) or out of
    it (hidden on wood the camera has not squeezed: a patch that is no squeezed one). A clipped core in the
    middle of the board, ringed by wood that is not nearly white, is light alone: hard light, fresh seeds
    116,039,017, a lamp's core over Tablut's middle, two crossings at its rim (223 and 236 grey levels) hidden
    as taken and more with the veil off, and a hand-free board was "hand over board".
    """
    count, labels = cv2.connectedComponents((patch | around).astype(np.uint8), connectivity=8)
    region = np.isin(labels, np.unique(labels[patch]))
    border = np.ones(region.shape, bool)
    border[1:-1, 1:-1] = False
    return bool((region & border).any())


def beside_clipped(wood: np.ndarray) -> np.ndarray:
    """(n+1, n+1) bool: crossings that are clipped white (CLIPPED) or next to one, diagonals too."""
    clipped = np.nan_to_num(wood, nan=0.0) > CLIPPED
    return cv2.dilate(clipped.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)


def foreign_squares(wood_chroma: np.ndarray, marked: np.ndarray, size: int, limit: float = 0.2,
                    unseen: np.ndarray | None = None, hue_seen: np.ndarray | None = None) -> np.ndarray:
    """Squares whose bare-wood corners are not the colour of the wood around them.

    A sleeve or a hand may leave the grid visible through gaps but rarely has
    the wood's colour where it lies. Each square is compared with the median
    of the 5x5 squares round it: spotlights and daylight tint the wood too,
    but smoothly, while an arm changes the colour from one square to the next.
    Marked squares' fill is another colour: it is compared once the fill's
    own offset from the wood (the median over the board's seen marked squares
    against the plain ones', with at least FILL_REFERENCE of them) is taken
    off. Light multiplies fill and wood alike and leaves that offset in these
    log ratios, and a sleeve over a camp at the board's edge is no fill's
    colour (hard light, seeds 90,019,029: a sleeve over Tablut's left camps
    made no off-colour square while they were left out). `unseen` squares are
    left out, whose wood is so near clipping that its colour is lost (the core
    of a glare patch reads white, which is no wood's colour: hard light,
    development seeds 10,006,017 and 14,014,017 were "hand over board" so).
    `wood_chroma` is the wood's own colour, the veil of glare taken off
    (vision/features.py): a veil adds white to the wood and no sleeve.
    An unseen plain square whose blue and green are both short of clipping
    (`hue_seen`: only its red is clipped) is still judged by blue against
    green (HUE_LIMIT): clipping red changes neither, and a veil only pulls
    them together. Museum light, fresh seeds 121,027,029: a pink hand over
    Tablut's top edge, its red clipped on four squares, left one off-colour
    square and was read as a board.
    Returns a (size, size) bool grid.
    """
    seen = np.ones(len(wood_chroma), bool) if unseen is None else ~unseen
    plain = ~marked & seen
    if not plain.any():
        return np.zeros((size, size), bool)
    grid = wood_chroma.astype(np.float32).copy()
    wood = np.median(wood_chroma[plain], 0)
    fill = marked & seen
    judged = plain.copy()
    if int(fill.sum()) >= FILL_REFERENCE:
        grid[fill] -= np.median(wood_chroma[fill], 0) - wood
        judged |= fill
    grid[~judged] = wood
    grid = grid.reshape(size, size, 2)
    local = np.stack([cv2.medianBlur(np.ascontiguousarray(grid[..., k]), 5) for k in range(2)], -1)
    out = (np.abs(grid - local) > limit).any(2) & judged.reshape(size, size)
    if unseen is None or hue_seen is None:
        return out
    red_only = (unseen & hue_seen & ~marked).reshape(size, size)
    if red_only.any():
        hue = (wood_chroma[:, 0] - wood_chroma[:, 1]).astype(np.float32)      # log(B/G)
        ref = np.where(plain, hue, np.median(hue[plain])).reshape(size, size)
        out |= red_only & (np.abs(hue.reshape(size, size) - cv2.medianBlur(ref, 5)) > HUE_LIMIT)
    return out


def band_squares(size: int) -> np.ndarray:
    """(4 * size,) the edge square next to each segment of the frame band, in FrameBandChecker's order."""
    out = []
    for side in range(4):
        for seg in range(size):
            f, r = {0: (seg, 0), 1: (size - 1, seg), 2: (size - 1 - seg, size - 1), 3: (0, size - 1 - seg)}[side]
            out.append(r * size + f)
    return np.array(out)


def _patch_from(hidden: np.ndarray, seeds: np.ndarray, size: int) -> bool:
    """A connected patch (8-neighbours) of `hidden` crossings at least `size` large that holds a crossing of `seeds`."""
    if not (hidden & seeds).any():
        return False
    count, labels = cv2.connectedComponents(hidden.astype(np.uint8), connectivity=8)
    touching = set(np.unique(labels[seeds & hidden]).tolist()) - {0}
    return any(int((labels == k).sum()) >= size for k in touching)


def _corners(region: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The grid's crossings (`shape`, one more each way than `region`) at the corners of `region`'s squares."""
    corners = np.zeros(shape, bool)
    for dr in (0, 1):
        for df in (0, 1):
            corners[dr:dr + region.shape[0], df:df + region.shape[1]] |= region
    return corners


def arm_region(foreign: np.ndarray, band: np.ndarray | None, size: int) -> np.ndarray:
    """The largest off-colour region that reaches in over the board's edge: a (size, size) bool grid.

    An arm comes in from outside: its off-colour squares join up with the
    edge of the board where the frame band round it is covered too. Stage
    light of another colour tints squares in the middle of the board, and
    the shadow of someone standing by only darkens (its colour stays the
    wood's), so neither makes such a region. `foreign` is the (size, size)
    grid of foreign_squares, `band` FrameBandChecker.deviating; None takes
    any region with a square on the board's edge (reader.py's lit arm, whose
    band the lamp may hide).
    """
    count, labels = cv2.connectedComponents(foreign.astype(np.uint8), connectivity=4)
    flags = np.ones(4 * size, bool) if band is None else np.asarray(band, bool)
    near = flags | np.roll(flags, 1) | np.roll(flags, -1)      # the band's segment or a neighbour
    flat = labels.reshape(-1)
    touching = {int(flat[sq]) for sq in band_squares(size)[near] if flat[sq] > 0} if count > 1 else set()
    best = max(touching, key=lambda k: int((labels == k).sum()), default=0)
    return labels == best if best else np.zeros((size, size), bool)


#: band segments whose median a segment is compared with (odd: the segment in the middle)
BAND_WINDOW = 7


def _band_points(along: np.ndarray, out: np.ndarray, width: float) -> np.ndarray:
    """(4, rows, cols x len(out), 2) board mm: the band's points round the playing area, side by side going round
    it (bottom left to right, right upwards, top right to left, left downwards); `along` (rows, cols) mm along
    each side, each point at every distance in `out` mm outside the playing area."""
    a = np.repeat(along, len(out), axis=1)
    o = np.tile(out, along.shape[1])[None, :].repeat(along.shape[0], 0)
    sides = [(a, -o), (width + o, a), (width - a, width + o), (-o, width - a)]
    return np.stack([np.stack([np.broadcast_to(x, a.shape), np.broadcast_to(y, a.shape)], -1) for x, y in sides])


class FrameBandChecker:
    """An arm reaching in crosses the frame round the playing area.

    The band 3-8 mm outside the playing area, along each side, is cut into
    one segment per square; each segment's colour and brightness is compared
    with the median of its neighbours along the band (BAND_WINDOW segments,
    itself in the middle). Light changes smoothly along the frame, a sleeve or
    a hand (or its shadow) does not. A median of five let a finger three
    segments wide set the level it was judged by: hard light, seeds
    145,030,029, a lamp-lit finger across the bottom band (its segments 76-142
    grey levels where the band round it was 45-60) deviated 0.32 at most, under
    `lum_limit`, and the hand was read as a board with a square sure and
    wrong. Over seven it stands out; 560 hand-free frames (hard 135M, 141M,
    142M, 145M; museum 141M, 145M) were refused no more often.
    """

    def __init__(self, geometry: BoardGeometry, frame: RectifiedFrame, chroma_limit: float = 0.2,
                 lum_limit: float = 0.35):
        n, p, W = geometry.size, geometry.pitch, geometry.width
        self.chroma_limit, self.lum_limit = chroma_limit, lum_limit
        along = (np.arange(n)[:, None] + np.linspace(0.15, 0.85, 6)[None]) * p      # (n, 6) mm
        mm = _band_points(along, np.linspace(3.0, 8.0, 3), W)            # (4, n, k, 2), going round the board
        self.px = np.round(frame.to_px(mm.reshape(-1, 2))).astype(int)
        self.shape = mm.shape[:3]
        # the band's profile along each side, a sample a pixel (FrameBandChecker.outlined)
        along = np.arange(0.0, n * p, 1.0 / frame.ppm)
        dense = _band_points(along[:, None], np.linspace(3.0, 8.0, 4), W)          # (4, L, 4, 2)
        self.profile_px = np.round(frame.to_px(dense.reshape(-1, 2))).astype(int)
        self.profile_shape = dense.shape[:3]
        per = len(along) / n
        starts = np.arange(n) * per
        self.step_windows = [(int(max(0, a - per / 2)), int(min(len(along), a + 1.5 * per))) for a in starts]
        self.span_windows = [(int(max(0, a - per)), int(min(len(along), a + 2 * per))) for a in starts]

    def deviating(self, rect_bgr: np.ndarray) -> np.ndarray:
        """(4 * n,) bool: band segments, in order round the board, that look unlike their neighbours."""
        m = rect_bgr.shape[0]
        px = np.clip(self.px, 0, m - 1)
        bgr = rect_bgr[px[:, 1], px[:, 0]].astype(np.float32).reshape(*self.shape, 3) + 1.0
        seg = np.median(bgr, 2).reshape(-1, 3)                                   # (4n, 3)
        feats = np.stack([np.log(seg[:, 0] / seg[:, 2]), np.log(seg[:, 1] / seg[:, 2]),
                          np.log(seg @ np.array([0.114, 0.587, 0.299], np.float32))], 1)
        k = BAND_WINDOW
        ring = np.concatenate([feats[-(k // 2):], feats, feats[:k // 2]])          # the band is a loop
        windows = np.stack([ring[i:i + len(feats)] for i in range(k)], 0)
        local = np.median(windows, 0)
        dev = np.abs(feats - local)
        return (dev[:, :2] > self.chroma_limit).any(1) | (dev[:, 2] > self.lum_limit)

    def outlined(self, rect_gray: np.ndarray, noise: float) -> np.ndarray:
        """(4 * n,) bool, in `deviating`'s order: band segments that something with an outline crosses.

        Along the band, within half a segment either side, the picture steps by OUTLINE_SNR noise sigmas
        and OUTLINE_SHARE of its whole span round the segment within OUTLINE_STEP_PX pixels: a sleeve's
        edge. A veil or a shadow changes the band as much, but smoothly (GridChecker.sleeve_past_band).
        """
        m = rect_gray.shape[0]
        px = np.clip(self.profile_px, 0, m - 1)
        soft = cv2.GaussianBlur(rect_gray.astype(np.float32), (0, 0), 1.0)
        profile = np.median(soft[px[:, 1], px[:, 0]].reshape(self.profile_shape), 2)      # (4, L)
        w = OUTLINE_STEP_PX // 2
        step = np.zeros_like(profile)
        step[:, w:-w] = np.abs(profile[:, 2 * w:] - profile[:, :-2 * w])
        out = np.zeros(self.shape[:2], bool)                                             # (4, n)
        for j, ((a, b), (c, d)) in enumerate(zip(self.step_windows, self.span_windows)):
            sharpest = step[:, a:b].max(1)
            span = profile[:, c:d].max(1) - profile[:, c:d].min(1)
            out[:, j] = (sharpest >= OUTLINE_SNR * noise) & (sharpest >= OUTLINE_SHARE * span)
        return out.reshape(-1)
