"""One frame in, the board's squares out (or the reason it cannot be read).

markers -> homography -> rectified board -> glare veil found and taken off
(vision/glare.py) -> hand check -> square features -> class probabilities. The reader holds the classifier, so what it learns from
confirmed positions carries over to the next frames of the game.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np

from calibration.config import Config
from calibration.geometry import BoardGeometry
from engine import pieces_from_position, position_from_pieces
from vision.classifier import CROWN_CENTRED, SquareClassifier, no_surer_than
from vision.features import FEATURE_NAMES, FeatureExtractor, SquareFeatures, crown_centred
from vision.glare import GlareEstimator, GlareField
from vision.inference import SURE
from vision.shape import (DARKER_THAN_WOOD, NEAR_CLIPPING, NOT_LIGHTER, DiscEvidence, Outline, OutlineMeter, clipped_top,
                          blob_without_wall, crown_alone, dark_without_edge, king_keep, piece_shown, without_dark,
                          light_keep, light_on_fill_short, light_step_short, lighter_than_plain, lit_dark_top, outline_match, wall_under_veil,
                          washed_dark_top,
                          pieces_need_a_rim, rim_without_top, outlined_light_top, fine_detail, noise_of, shape_agreement, shape_conflict,
                          moved_dark_top, moved_light_top, lit_moved_found, shape_fallback, with_outline, with_wall)
from vision.localise import BoardLocaliser, BoardView, NotReadable
from vision.occlusion import FrameBandChecker, GridChecker, GridVisibility, arm_region, foreign_squares
from vision.position import SquareClass, camp_squares, marked_squares, pieces_from_classes, throne_square
from vision.rectify import rectified_frame, rectify
from vision.robust import row_percentile
from vision.white_point import full_scale
from vision.stability import patches_moved, square_means

PLAIN_LUM, RING, EDGE = FEATURE_NAMES.index("plain_lum"), FEATURE_NAMES.index("ring"), FEATURE_NAMES.index("edge")
# A frame whose brightest parts are this dim shows nothing (grey levels, 8 bit).
DARK_FRAME_LEVEL = 40.0
# Bare wood dimmer than this cannot separate ivory from wood reliably.
DARK_WOOD_LEVEL = 28.0
# Bare wood brighter than this (grey level) is near the sensor's clipping
# point: confidence there falls by a factor 1 + (level - this) / GLARE_SCALE.
GLARE_WOOD_LEVEL = 235.0
GLARE_SCALE = 4.0
# Bare wood brighter than this reads at most half sure (see BoardReader.read).
DAZZLED_WOOD_LEVEL = 246.0
# Where the veil of glare is more than this share of the wood's light, the
# camera saw the square through it: confidence falls by a factor
# 1 + (share - this) * VEIL_SCALE.
VEIL_SHARE = 0.35
VEIL_SCALE = 4.0
# ... and beyond it the reading is mixed with "anything" (which keeps its
# order of classes but not its certainty), up to VEIL_DOUBT_MAX of the mix at
# a share VEIL_DOUBT_SPAN above VEIL_SHARE: glare that bright makes wood look
# like ivory and a glint like a piece's top, in a way no frame fusion undoes.
VEIL_DOUBT_SPAN = 0.35
VEIL_DOUBT_MAX = 0.6
# Where the colour reads a piece and its disc's step is lost in the noise
# although a piece there would plainly show (vision/shape.shape_conflict), at
# most this much doubt: the square is held back, its best guess the prior's.
SHAPE_CONFLICT_DOUBT = 0.6
# A square blown pure white is read as its shape fallback at most this sure.
BLOWN_SURE = 0.5
# A dark piece's top against the lighter wood makes a step on the disc's circle: an "attacker" whose circle
# has less edge than this (the "edge" feature, mean gradient on the circle over the wood's light) is a
# shadow's soft patch as likely, and is read at most SOFT_ATTACKER_SURE sure (the best guess kept).
SOFT_EDGE = 0.2
SOFT_ATTACKER_SURE = 0.8
# A square read empty whose rim falls as a piece's does round a top no lighter than the wood
# (vision/shape.rim_without_top) is read a light piece, at most RIM_ONLY_SURE sure; the frame's
# plainly seen empty squares, the reference, are those read at least PLAIN_EMPTY_SURE sure.
RIM_ONLY_SURE = 0.5
PLAIN_EMPTY_SURE = 0.9
# ... and a top a little lighter than the wood is taken as such while its disc is seen less than this plainly.
TOP_UNSEEN = 0.5
# A defender read on the throne, where only the king may stop in three of the four rule sets, is at most this sure.
THRONE_DEFENDER_SURE = 0.5
# A light piece read on a Tablut camp, where only an attacker may stand, no surer than CAMP_LIGHT_DOUBT (a guess
# the camera could not make) is an attacker at most CAMP_ATTACKER_SURE sure; a surer reading stands.
CAMP_LIGHT_DOUBT = 0.6
CAMP_ATTACKER_SURE = 0.6
# A king read sure whose top's middle is not goldener than its ring by CROWN_CENTRED (vision/classifier)
# shows no crown: he is held back at UNCROWNED_KING_SURE, still the best guess
UNCROWNED_KING_SURE = 0.8
# Off-colour squares joined to the board's edge that make an arm (vision/occlusion.arm_region),
# with at least one crossing hidden too: stage light of another colour hides none.
#
# Where the frame band round the board shows nothing, such a region still makes an arm with a patch of
# hidden crossings (GridChecker.patch_at) at its squares' corners, however brightly lit. A hand under a lamp
# is lit like glare's core, so the grid alone leaves it out (GridChecker._largest), and the lamp can hide the
# sleeve on the band too: hard light, held-out seeds 117,018,029, a lilac hand in from the right under the
# lamp, the band there as pale as the lit frame beside it; 117,001,029, a sleeve four band segments wide, so
# that it made the band's own five-segment reference. Both hid 4 and 8 crossings lit 174-243 grey levels (the
# board's wood 85-92) and were read as a board. A veil's core is white: with the veil taken off its squares
# keep the wood's colour, or are left out where clipped (foreign_squares' `unseen`), while a hand keeps its
# own. On 270 hand-free held-out frames (seeds 110M-117M, museum and hard) no such region met such a patch.
ARM_SQUARES = 4
# ... and where the band does show a sleeve beside it, a hand of this many squares with a patch of hidden
# crossings at their corners (GridChecker.patch_at) is one too: museum light, fresh seeds 121,027,029, a pink
# hand over three squares of Tablut's top edge, its sleeve across the band there, was read as a board. On 460
# hand-free held-out frames (seeds 110M-119M) no banded region of three met such a patch.
BANDED_HAND_SQUARES = 3


class Trust(Enum):
    """How far the visitor's word that no hand is over the board waives the hand checks (BoardReader.hands_off)."""

    NONE = "none"       # not vouched for (or the picture changed since)
    GLARE = "glare"     # refused for glare alone: the near-white rule relaxed
    ALL = "all"         # refused surely, and still for long: no hand check


@dataclass
class Reading:
    """What one frame shows."""

    probabilities: np.ndarray        # (squares, 4): empty, attacker, defender, king
    features: SquareFeatures
    view: BoardView
    rectified: np.ndarray
    size: int
    glare: GlareField | None = None
    outline: Outline | None = None

    @property
    def classes(self) -> list[SquareClass]:
        return [SquareClass(int(c)) for c in self.probabilities.argmax(1)]

    @property
    def confidence(self) -> np.ndarray:
        return self.probabilities.max(1)

    @property
    def pieces(self) -> dict[int, str]:
        return pieces_from_classes(self.classes)

    @property
    def position(self) -> str:
        return position_from_pieces(self.pieces, self.size)


def board_in_picture(config: Config, image: np.ndarray) -> str:
    """Which of the configured boards a picture shows, for a picture that comes without the name.

    The boards' markers lie nearly alike (11 x 40 mm and 9 x 48 mm are within
    2 % of each other), so the markers alone cannot tell them apart; the grid
    lines can: through the pose the markers give, a board's own crossings fall
    on its lines (their line-to-wood ratio well below 1), another board's
    mostly on bare wood. Read as the wrong board, a 9 x 9 board's picture had
    its "crossings" all on wood and was called "hand over board". The board
    whose crossings are darkest against their wood wins; where no board's
    markers are found, the configured board (whose reading then says why).
    """
    best, best_contrast = config.board, np.inf
    for name in config.boards:
        reader = BoardReader(config, name)
        try:
            _, rect = reader.locate(image, track=False)
        except NotReadable:
            continue
        contrast = reader.grid.check(cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)).contrast[1:-1, 1:-1]
        median = float(np.median(contrast))
        if median < best_contrast:
            best, best_contrast = name, median
    return best


class BoardReader:
    """Reads a board from frames of the overhead camera."""

    def __init__(self, config: Config | None = None, board: str | None = None,
                 classifier: SquareClassifier | None = None):
        self.config = config or Config()
        self.board = board or self.config.board
        if self.board not in self.config.boards:
            raise ValueError(f"unknown board {self.board!r}; known: {', '.join(self.config.boards)}")
        self.geometry = BoardGeometry.from_config(self.config, self.board)
        self.localiser = BoardLocaliser(self.geometry, self.config.markers, self.config.camera)
        self.frame = rectified_frame(self.geometry)
        self.extractor = FeatureExtractor(self.geometry, self.config.pieces, self.frame)
        self.grid = GridChecker(self.geometry, self.frame)
        self.band = FrameBandChecker(self.geometry, self.frame)
        self.marked = np.zeros(self.size * self.size, bool)
        self.marked[list(marked_squares(self.size))] = True
        self.throne = throne_square(self.size)
        self.marked_off_throne = self.marked.copy()
        self.marked_off_throne[self.throne] = False
        self.camps = np.zeros(self.size * self.size, bool)
        self.camps[list(camp_squares(self.size))] = True
        pc = self.config.pieces
        self.outline = OutlineMeter(self.extractor.radius_mm * self.frame.ppm,
                                    (self.geometry.pitch - self.geometry.spec.line_width_mm) / 2 * self.frame.ppm)
        self.wood_px = self.extractor.wood_pixels()
        self.glare = GlareEstimator(self.geometry, self.frame, self.marked,
                                    max(pc.attacker_diameter_mm, pc.defender_diameter_mm, pc.king_diameter_mm) / 2,
                                    pc.height_mm)
        self.classifier = classifier or SquareClassifier.load()
        # the last picture (grey) refused as "hand over board", and whether for glare alone (NotReadable.glare_only)
        self._doubted: tuple[np.ndarray, bool] | None = None
        # square means of the one the visitor said no hand is over, and how far the hand checks are waived there
        self._trusted: tuple[np.ndarray, Trust] | None = None

    @property
    def size(self) -> int:
        return self.geometry.size

    def locate(self, image: np.ndarray, track: bool = True) -> tuple[BoardView, np.ndarray]:
        """The board's pose and its rectified picture; raises NotReadable.

        `track` looks for the markers near their last places first (a live
        camera); pass False for unrelated images.
        """
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        small = gray[::8, ::8]
        if float(row_percentile(small.reshape(1, -1), 95)[0]) < DARK_FRAME_LEVEL:
            raise NotReadable("too dark", scene=gray)
        try:
            view = self.localiser.locate(gray, track=track)
        except NotReadable as exc:
            exc.scene = gray            # (no board, so no picture of it: the whole frame, NotReadable.scene)
            raise
        # a camera that clips below white (a gain after the sensor) has its clipped glare put back at white
        rect = full_scale(rectify(image, view.H, self.frame, view.K, view.dist))
        return view, rect

    def read(self, image: np.ndarray, track: bool = True) -> Reading:
        """Read one BGR frame; raises NotReadable with the reason."""
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("expected a BGR colour image")
        view, rect = self.locate(image, track=track)
        glare = self.glare.estimate(rect, view.camera_center)
        clear = self.glare.remove(rect, glare)
        # the picture as taken in grey and its pixel noise, once: the hand check and the outline both use them
        # (the veil-free look too: the veil is smooth, so taking it off leaves the fine detail as it was, but for
        # a level's rounding; all 1,860 cached development frames were refused or read as with its own noise)
        rect_gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
        rect_fine = fine_detail(rect_gray)          # one blur for the frame's noise and each square's wood's
        rect_noise = noise_of(rect_fine)
        grid = self.grid.check(cv2.cvtColor(clear, cv2.COLOR_BGR2GRAY), rect_noise) if glare.any \
            else self.grid.check(rect_gray, rect_noise)
        veil_off = grid if glare.any else None      # (kept for a pale sleeve's one cue: GridChecker.sleeve_past_band)
        if glare.any:
            # judged with the veil taken off and as taken (GridChecker.both): the veil's estimate
            # takes a pale hand's own light for a veil, and taken off it leaves the hand's shading,
            # which passes for lines, so a hand the picture as taken shows must not wait for the
            # veil-free look to find it first (museum light, development seeds 15,035,029: a pale
            # hand over two crossings, lines gone as taken, was read as a board)
            grid = self.grid.both(grid, self.grid.check(rect_gray, rect_noise))
        trust = self._still_trusted(rect_gray)              # (a changed picture ends the visitor's word)
        if self.grid.occluded(grid):
            glare_only = not self.grid.occluded(grid, trusted=True)
            if not (trust is Trust.ALL or (glare_only and trust is Trust.GLARE)):
                self._doubted = (rect_gray, glare_only)
                raise NotReadable("hand over board", rect_gray, glare_only=glare_only)
        feats = self.extractor.extract(rect, view.camera_center, glare.image if glare.any else None, rect_gray)
        # hidden grid crossings suffice; off-colour squares only as a region that
        # comes in over the board's edge (an arm), never stage light or a shadow alone
        foreign = foreign_squares(feats.wood_chroma, self.marked, self.size, unseen=feats.colour_unseen,
                                  hue_seen=feats.hue_seen)
        if self._arm_over(grid, foreign, rect, veil_off, rect_gray, rect_noise) and trust is not Trust.ALL:
            self._doubted = (rect_gray, False)
            raise NotReadable("hand over board", rect_gray)
        if float(np.median(feats.wood_lum)) < DARK_WOOD_LEVEL:
            raise NotReadable("too dark", rect_gray)
        # near-white wood: glare has clipped the picture there, and a light
        # piece may differ from it only by a faint outline
        temper = 1.0 + np.maximum(0.0, feats.wood_lum - GLARE_WOOD_LEVEL) / GLARE_SCALE
        temper *= 1.0 + np.maximum(0.0, glare.share - VEIL_SHARE) * VEIL_SCALE
        # under glare a piece set down off its square's centre may be known only by its wall: look for it
        # round tops off the expected one too (vision/shape.OutlineMeter.measure); clean frames skip that
        near_white = feats.wood_lum > NEAR_CLIPPING[0]
        search = near_white | (glare.share > VEIL_SHARE)
        outline = self.outline.measure(rect_gray, feats.top_px, self.wood_px, self.extractor.centres_px,
                                       noise=rect_noise, fine=rect_fine, search=search, colour=rect,
                                       near_white=near_white)
        # a dark piece set down off centre: its top looked for round moved tops too, on plain wood out of veils
        outline = moved_dark_top(outline, ~search)
        # ... and a light one whose expected top fell on its shaded far rim, where the colour says a light piece
        if lit_moved_found(outline).any():
            light = self.classifier.probabilities(feats.values, self.marked, temper=temper)
            outline = moved_light_top(outline, light[:, int(SquareClass.DEFENDER)] + light[:, int(SquareClass.KING)]
                                      >= 0.5)
        evidence = DiscEvidence.of(outline, feats.wood_lum, glare.share)
        # a light disc's outline must be as strong as the frame's plain light pieces' (vision/shape.outline_match)
        depth = feats.wood_lum - feats.line_lum         # the grid lines' depth below each square's wood
        matched = outline_match(evidence, outline, depth, glare.share, feats.wood_lum, self.marked)
        rimmed_disc = evidence.light_seen * evidence.light_rim
        evidence = with_outline(evidence, matched)
        # a light piece needs its disc (on a marked square lighter than the plain
        # wood as well), the king his crown or that disc; the king is picked by
        # his crown only among squares that pass
        plain_ok = lighter_than_plain(feats.values[:, PLAIN_LUM] if feats.plain_clear is None else feats.plain_clear,
                                      self.marked)
        # ... with the veil taken off, or as taken where its disc plainly has a light piece's rim, as sharp
        # as the frame's plain light pieces' (with_outline): the veil's estimate is carried over a marked
        # square from the plain wood round it and may be off by as much as the piece stands out there,
        # while a soft spot of light on bare fill stays below the plain wood as taken too
        # ... and on the throne, where no dark piece stops in three of the four rule sets (docs/rules.md) and
        # the king's gold crown may sit no lighter than the plain wood round it, however light the plain wood is
        disc_light = evidence.light_seen * evidence.light_rim          # the disc alone, before its wall
        rim_enough = np.zeros(len(plain_ok))                           # where such a disc is enough
        rim_enough[self.throne] = 1.0
        if feats.plain_clear is not None:
            rim_enough = np.maximum(rim_enough, lighter_than_plain(feats.values[:, PLAIN_LUM], self.marked))
        plain_ok = np.maximum(plain_ok, rim_enough * disc_light)
        # what is left of a piece on wood clipped white: its shaded wall or shadow round the top
        evidence = with_wall(evidence, outline, feats.wood_lum, glare.share, plain_ok, feats.saturated)
        keep_d = light_keep(evidence, outline.lift) * plain_ok
        keep_k = king_keep(keep_d, feats.crown, plain_ok)
        probs = self.classifier.probabilities(feats.values, self.marked, temper=temper, crown=feats.crown,
                                              light_keep=keep_k)
        colour = probs.copy()                              # the colour's reading, before the disc checks
        colour_light = probs[:, int(SquareClass.DEFENDER)] + probs[:, int(SquareClass.KING)]
        # a "light piece" on a marked square that is no lighter than plain wood is
        # no light piece; but with no disc seen either it may be a dark one under glare
        unlit = colour_light * (1.0 - plain_ok)
        unlit *= 1.0 - np.maximum(evidence.light_seen, evidence.dark_seen)
        # under a veil, a light piece known by its wall alone round a top neither lighter nor darker than its
        # wood (within NOT_LIGHTER) may be an attacker the veil or a lamp's gloss lifted to the wood's grey: the
        # wall says a piece, and neither the top nor the veiled colour which (hard light, fresh seeds 148,063,017
        # f6: an attacker under a veil of 0.85, his top 2.8 grey levels under the wood, read a sure defender,
        # 0.91; museum 149,057,017 a7, an attacker at the board's edge, his top glossed to the wood's grey, 0.95;
        # cached frames, such squares: tops under the wood 15 attackers and 13 defenders, tops up to NOT_LIGHTER
        # above it 3 attackers and 66 defenders, 3 of them read sure)
        # (the king is left to his crown, which may sit darker than the wood: dim 141,030,017 c3)
        dim_walled = ((evidence.light_seen * evidence.light_rim - disc_light) * (glare.share >= VEIL_SHARE)
                      * (np.abs(outline.lift) <= NOT_LIGHTER) * (colour[:, int(SquareClass.KING)] < 0.5))
        # colour says a light piece, the disc a dark one: a dark piece under glare,
        # or a light one sampled on its own shaded side wall; not a sure attacker
        turned = probs[:, int(SquareClass.DEFENDER)] * (outline.lift < -DARKER_THAN_WOOD)
        # colour says a light piece with no veil to explain it, but where its top should be the
        # disc is no lighter than the wood (a piece set off the square's centre, a smaller piece
        # than the configured one): the disc was looked for in the wrong place, not a sure empty.
        # A veil explains the colour but not a sharp rim round that top: under a veil too, a disc
        # with a piece's rim (DiscEvidence.dark_rim) is not a sure empty (hard light, development
        # seeds 15,010,017 e3: a tinted defender no lighter than its wood under a veil of 0.67 read
        # a sure empty, 0.93; 12,012,017 b4: an attacker under a veil of 0.85, 0.96)
        # The king is left out of that: his gold crown may sit as dark as the wood, and a king known
        # by his crown would go to the dark disc's fallback (fresh seeds 85,014,017 a8: king -> attacker)
        explained = (glare.share >= VEIL_SHARE) * (1.0 - evidence.dark_rim)
        missed = (probs[:, int(SquareClass.DEFENDER)] * (1.0 - explained)
                  + probs[:, int(SquareClass.KING)] * (glare.share < VEIL_SHARE)) * (outline.lift < -NOT_LIGHTER)
        # a dark piece on a marked square's darker fill, its top lit by a lamp's gloss: known by its outline
        lit_top = lit_dark_top(outline, feats.wood_lum, glare.share, self.marked)
        probs = pieces_need_a_rim(probs, evidence, outline.lift, plain_ok, keep_k, lit_top)
        # under a bright veil, or on wood this close to white (a piece's rim may
        # be lost in the glare), neither "a piece" nor "no piece" is sure from
        # the colour; the veil's doubt goes where the disc's shape plainly agrees
        dazzled = feats.wood_lum > DAZZLED_WOOD_LEVEL
        veiled = np.clip((glare.share - VEIL_SHARE) / VEIL_DOUBT_SPAN, 0.0, 1.0)     # how far into the veil's span
        doubt = np.minimum(veiled, VEIL_DOUBT_MAX)
        doubt *= 1.0 - shape_agreement(probs, evidence, feats.wood_lum, feats.line_lum, outline.noise,
                                       feats.values[:, RING])
        # a "light disc" standing far less above its wood than the frame's light pieces is none (a veil's core)
        short = light_step_short(probs, evidence, outline, depth, feats.wood_lum, glare.share, self.marked)
        # ... and on a marked square's darker fill, one standing less above it than the grid lines sink below
        # it (the throne, where the king's gold crown may sit as dark as the fill, is left to the king's checks)
        short = np.maximum(short, light_on_fill_short(probs, outline, depth, self.marked_off_throne))
        # the grid line beside a square no darker than the square's own wood: the light changes across the
        # square (a veil's edge runs through it), so its colour against that wood is no sure reading
        uneven = depth <= 0.0
        # the colour says a light piece and its disc plainly has a light piece's rim, and only the rim's strength
        # against the frame's other light pieces (outline_match, made for a veil's soft core) sent the square to
        # "empty": with no veil there, a grey or tinted piece is as likely, so not a sure empty (hard light,
        # development seeds 16,018,017 j7: a grey defender, its rim as sharp as a piece's (0.68) but falling half
        # as far as the white pieces', read a sure empty, 1.0)
        # The veil's own doubt grows from nothing at VEIL_SHARE, so this check fades out over the same span rather
        # than stopping there (hard light, seeds 142,004,017 c6: a defender under a veil of 0.36, its rim 0.6
        # sharp, 15 of 24 rays round, read a sure empty, 0.98, the veil's doubt 0.03)
        overruled = colour_light * rimmed_disc * (1.0 - matched) * (1.0 - veiled) \
            * (probs.argmax(1) == int(SquareClass.EMPTY))
        # a king by his crown's colour alone, with nothing of a piece round it
        crowned = crown_alone(probs, evidence, outline, glare.share < VEIL_SHARE)
        # ... and an attacker by the colour alone, or by a shadow's patch: no edge on its circle, no sharp rim
        edgeless = dark_without_edge(probs, evidence, outline, feats.values[:, EDGE])
        conflict = np.maximum.reduce([shape_conflict(probs, outline, feats.wood_lum, glare.share, lit_top), unlit, turned,
                                      missed, short, uneven, overruled, crowned, edgeless, dim_walled])
        doubt = np.maximum(doubt, SHAPE_CONFLICT_DOUBT * conflict)
        doubt = np.maximum(doubt, np.where(dazzled, 0.5, 0.0))[:, None]
        # the doubt goes to what is known before looking and the disc's shape
        # (the best guess), never making a square surer than plain doubt would
        uniform = 1.0 / probs.shape[1]
        blown = feats.saturated
        # (on a square whose top is clipped white, what shows of a piece is a light piece's)
        fallback = shape_fallback(self.classifier.priors / self.classifier.priors.sum(),
                                  clipped_top(without_dark(with_outline(evidence, 1.0 - short), edgeless), blown))
        cap = ((1.0 - doubt) * probs + doubt * uniform).max(1)
        probs = no_surer_than((1.0 - doubt) * probs + doubt * fallback, cap)
        probs[blown] = no_surer_than(fallback[blown], BLOWN_SURE)    # glare: the camera saw pure white, nothing to judge by
        # a dark top with no step round it: a soft shadow as likely as a piece (hard light, development
        # seeds 16,020,017 b3, 12,016,017 c7, 15,000,017 i4: empty squares under a shadow's edge read sure
        # attackers, 0.94-1.0, their circles' edge 0.15-0.17 where the frames' attackers had 0.5-0.7)
        soft = (probs.argmax(1) == int(SquareClass.ATTACKER)) & (feats.values[:, EDGE] < SOFT_EDGE)
        probs[soft] = no_surer_than(probs[soft], SOFT_ATTACKER_SURE)
        # a rim round a top no lighter than the wood: a light piece the colour took for wood, not a sure empty
        # (hard light, development seeds 14,021,017 a10, 14,033,017 e6: tinted defenders read empty)
        plain_empty = ((probs.argmax(1) == int(SquareClass.EMPTY)) & (probs.max(1) >= PLAIN_EMPTY_SURE)
                       & (glare.share < VEIL_SHARE))      # (a blown square is at most BLOWN_SURE sure already)
        # ... or a little lighter but not standing out of the noise, out of veils (a defender under a blue lamp)
        unseen_top = (evidence.light_seen < TOP_UNSEEN) & (glare.share < VEIL_SHARE)
        # ... or whose whole outline is a light piece's, its rim's fall however short (vision/shape.outlined_light_top)
        rimmed = (rim_without_top(probs, outline, plain_empty, unseen_top, glare.share < VEIL_SHARE)
                  | outlined_light_top(probs, outline)) & ~blown
        light_first = [int(SquareClass.DEFENDER), int(SquareClass.ATTACKER), int(SquareClass.EMPTY),
                       int(SquareClass.KING)]               # the empty square's share goes to the defender
        probs[rimmed] = no_surer_than(probs[rimmed][:, light_first], RIM_ONLY_SURE)
        # ... and under a veil, a piece's shaded wall round the rim (vision/shape.wall_under_veil): the piece its
        # top says, darker than the wood an attacker, held back as the rim alone is
        walled = wall_under_veil(probs, outline, plain_empty, glare.share >= VEIL_SHARE, blown)
        dark_first = [int(SquareClass.ATTACKER), int(SquareClass.EMPTY), int(SquareClass.DEFENDER),
                      int(SquareClass.KING)]                # the empty square's share goes to the attacker
        dark_top = walled & (outline.lift < -NOT_LIGHTER)
        probs[dark_top] = no_surer_than(probs[dark_top][:, dark_first], RIM_ONLY_SURE)
        light_top = walled & ~dark_top
        probs[light_top] = no_surer_than(probs[light_top][:, light_first], RIM_ONLY_SURE)
        # ... or, on wood all but clipped white, a faint dark top with a dark rim (vision/shape.washed_dark_top)
        washed = washed_dark_top(probs, outline, feats.wood_lum, glare.share >= VEIL_SHARE, blown)
        probs[washed] = no_surer_than(probs[washed][:, dark_first], RIM_ONLY_SURE)
        # a light piece read in doubt whose disc has neither a piece's round edge nor its wall is a veil's soft
        # spot: the defender's share goes to the empty square, held back as the rim alone is
        blob = blob_without_wall(probs, outline, SURE)
        probs[blob] = no_surer_than(probs[blob][:, light_first], RIM_ONLY_SURE)
        # the square the colour gave the king may have lost him to the doubt: then he is unseen
        probs = SquareClassifier.hidden_king(probs)
        # ... and then the light piece with the yellowest top, or else the one on the throne, is the best
        # guess for him (never a sure one)
        probs = SquareClassifier.likeliest_king(probs, feats.crown, self.throne)
        # ... but a crown plainly the goldest of the frame's light pieces marks the king whatever the disc said,
        # where the camera saw a piece there (a disc or an outline) that is no dark one
        probs = SquareClassifier.gold_king(probs, feats.crown, colour,
                                           piece_shown(evidence, outline) & (outline.lift >= -DARKER_THAN_WOOD))
        # a light piece on the throne is the king in three of the four rule sets (docs/rules.md), so read as a
        # defender there it is never a sure one (hard light, fresh seeds 86,017,017: the king on f6, his crown
        # unseen and a defender elsewhere taken for him, read a sure defender, 0.91)
        t = self.throne
        if int(probs[t].argmax()) == int(SquareClass.DEFENDER):
            probs[t] = no_surer_than(probs[t:t + 1], THRONE_DEFENDER_SURE)[0]
        # ... and with no sure king anywhere, he is likelier there than a crown guessed elsewhere in doubt
        probs = SquareClassifier.throne_king(probs, t, SURE)
        # ... and the king is one piece: a second square read him is what else it shows
        probs = SquareClassifier.second_kings(probs)
        # a light piece read in doubt on a Tablut camp, where no light piece ever stands (vision/position.
        # camp_squares), is an attacker with a lamp's gloss on his top: his light share is the attacker's, held
        # back (museum light, development seeds 11,015,017 a5 and 93,023,017 f1, fresh 96,059,017 i4: grey-lit
        # attackers on the camps' darker fill read defenders, 0.5). On the development frames every camp square
        # read a light piece was an attacker (museum 2, hard 2, 96M 1); giving the light share of *every* camp
        # square to the attacker made 36 empty squares attackers, so only those the light piece's guess. What
        # the camera is sure of stands: a visitor may put a defender on a camp (an illegal move the kiosk must
        # name), and what the rules allow is only the guess where the camera cannot tell.
        # a king read sure shows his crown: gold in his top's middle, not only a gold light all over a top
        # (vision/features.crown_centred); without it he is the best guess, held back
        king = int(SquareClass.KING)
        centred = np.full(len(probs), np.nan)          # measured only where asked, each top once
        sure_kings = np.nonzero((probs.argmax(1) == king) & (probs[:, king] >= SURE))[0]
        if len(sure_kings):
            centred[sure_kings] = crown_centred(rect, feats.top_px[sure_kings], self.frame.ppm)
            flat = sure_kings[~(centred[sure_kings] >= CROWN_CENTRED)]
            probs[flat] = no_surer_than(probs[flat], UNCROWNED_KING_SURE)
        # ... and with no sure king, a crown plainly in the middle of one light piece's top marks him
        if float(probs[:, king].max()) < SURE:
            light = np.nonzero(np.isin(probs.argmax(1), (int(SquareClass.DEFENDER), king)))[0]
            todo = np.setdiff1d(light, sure_kings)     # (a king turned down above is measured already)
            centred[todo] = crown_centred(rect, feats.top_px[todo], self.frame.ppm)
            probs = SquareClassifier.centred_king(probs, centred, SURE)
        light_camp = (self.camps & np.isin(probs.argmax(1), (int(SquareClass.DEFENDER), int(SquareClass.KING)))
                      & (probs.max(1) <= CAMP_LIGHT_DOUBT))
        if light_camp.any():
            a, d, k = int(SquareClass.ATTACKER), int(SquareClass.DEFENDER), int(SquareClass.KING)
            probs[light_camp, a] += probs[light_camp, d] + probs[light_camp, k]
            probs[light_camp, d] = probs[light_camp, k] = 0.0
            probs[light_camp] = no_surer_than(probs[light_camp], CAMP_ATTACKER_SURE)
        return Reading(probabilities=probs, features=feats, view=view, rectified=rect, size=self.size, glare=glare,
                       outline=outline)

    def hands_off(self) -> bool:
        """The visitor says no hand is over the board: read the picture last refused as "hand over board",
        and the pictures after it for as long as they have not changed. Refused for glare alone
        (NotReadable.glare_only), it is read with the hand check's `trusted` rule (vision/occlusion.
        GridChecker.occluded); refused surely, with no hand check at all (Trust.ALL). False when no
        picture was refused as a hand.

        WHY: a glare streak or a lamp's clipped core can hide crossings much as a pale hand does, and
        in a picture that stays so the camera would say "hand over board" for as long as the light
        stays: the kiosk would wait for a hand that is not there. The visitor can see what the camera
        cannot; the trust ends with the first picture that differs (a hand coming back changes the
        squares it covers by far more than MOTION_LEVEL). For glare alone only the near-white rule is
        relaxed, so a hand the camera sees as a hand is refused all the same: every cached development
        frame of an arm (160) is, and none of the 144 refused as a hand is refused for glare alone. A pale
        hand held still under a lamp (museum, seeds 10,020,029, further exposures) may be: read so, it
        showed 7 squares other than the board's, no move the kiosk would take (a move changes one
        piece's two squares and its captures), and the hand taken away ends the trust.
        A sure refusal is asked about only after much longer (kiosk/board_watch.py SURE_HAND_ASK_S): a hand
        does not stay still to the grey level for that long, and a hard-light museum day (seed 15) stood in
        the robot's verify for ten minutes, then lost three visitors' games, on a hand-free picture the
        reader was sure of. A visitor who says so while a hand or a bag lies still there gets a reading of it,
        which the kiosk checks as any other: squares unlike the game are to be put right, never a move made.
        """
        if self._doubted is None:
            self._trusted = None
            return False
        gray, glare_only = self._doubted
        self._trusted = (square_means(gray, self.size), Trust.GLARE if glare_only else Trust.ALL)
        return True

    def _arm_over(self, grid: GridVisibility, foreign: np.ndarray, rect: np.ndarray, veil_off: GridVisibility | None,
                  rect_gray: np.ndarray, noise: float) -> bool:
        """An arm over the board by its off-colour squares (`foreign`, vision/occlusion.foreign_squares) joined
        to the board's edge, with crossings hidden: ARM_SQUARES of them where the frame band shows a sleeve
        beside them and any crossing is hidden (GridChecker.arm_crossing), or BANDED_HAND_SQUARES with a patch
        of hidden crossings at their corners (GridChecker.patch_at); ARM_SQUARES with such a patch however the
        band looks (a hand under a lamp, which may wash the band out). Or a lamp-lit fingertip in over the
        edge with the band crossed beside it (GridChecker.tip_past_band). Or, in a frame with a veil
        (`veil_off`: the grid with the veil's estimate taken off), a pale sleeve the estimate took for light,
        with the band beside it crossed by an outline (GridChecker.sleeve_past_band)."""
        band = self.band.deviating(rect)
        if self.grid.tip_past_band(grid, band):
            return True
        # (the band's outline is looked for only where the rest of the sleeve's cue is there)
        if veil_off is not None and self.grid.sleeve_past_band(veil_off, grid, band) \
                and self.grid.sleeve_past_band(veil_off, grid, band & self.band.outlined(rect_gray, noise)):
            return True
        banded = arm_region(foreign, band, self.size)
        count = int(banded.sum())
        if count >= ARM_SQUARES and self.grid.arm_crossing(grid, banded):
            return True
        if count >= BANDED_HAND_SQUARES and self.grid.patch_at(grid, banded):
            return True
        lit = arm_region(foreign, None, self.size)
        return int(lit.sum()) >= ARM_SQUARES and self.grid.patch_at(grid, lit)

    def _still_trusted(self, rect_gray: np.ndarray) -> Trust:
        """How far the visitor vouched for this picture (`hands_off`): no square's mean moved since."""
        if self._trusted is None:
            return Trust.NONE
        means, trust = self._trusted
        if patches_moved(means, square_means(rect_gray, self.size)):
            self._trusted = None
            return Trust.NONE
        return trust

    def learn(self, reading: Reading, pieces: Mapping[int, str] | str) -> None:
        """Teach the classifier that this frame showed `pieces` (a confirmed position)."""
        if isinstance(pieces, str):
            pieces = pieces_from_position(pieces, self.size)
        labels = np.array([int(SquareClass.from_letter(pieces.get(sq))) for sq in range(self.size ** 2)])
        self.classifier.learn(reading.features.values, labels, self.marked)
