"""A soft spot of light on a marked square's darker fill is no piece; a king on a marked square is still the king.

Frames of the project's own renderer (vision/renderer.py) with one more
spotlight, small and soft, aimed at an empty camp square of the Tablut board:
its middle comes out brighter than the square's own (stained) corners, which
the colour features take as the square's bare wood, but no brighter than the
plain wood round it. The reader before the plain-wood check read such a
square as a defender (sure in two of these twelve frames), and on a held-out
frame as the king (foreign renderer, museum light, seed 73,023,017).
"""
from __future__ import annotations

import numpy as np
import pytest

import vision.renderer as renderer
from engine import Board, parse_square
from vision.position import SquareClass
from vision.reader import BoardReader

SEEDS = range(12)
CAMP = "e8"                  # a camp square of board-9: darker fill
SPOT_SIGMA_MM = 12.0         # a soft spot about a piece wide
SPOT_STRENGTH = 0.5          # its middle a quarter to a third brighter than the square's corners


@pytest.fixture
def spot_on_camp(monkeypatch):
    """Every frame rendered gets one more spotlight, centred on CAMP."""
    sq = parse_square(CAMP, 9)
    pitch = 48.0
    centre = np.array([(sq % 9 + 0.5) * pitch, (sq // 9 + 0.5) * pitch, 1200.0])
    own_lights = renderer._lights

    def lights(rng, cond, width):
        out = own_lights(rng, cond, width)
        out.append(renderer.Light(centre, SPOT_STRENGTH, out[0].colour.copy(), SPOT_SIGMA_MM))
        return out

    monkeypatch.setattr(renderer, "_lights", lights)
    return sq


def _tablut(king_at: str | None = None) -> dict[int, str]:
    """The Tablut start without the attacker on CAMP (the king moved to `king_at` if given)."""
    pieces = {sq: p.value for sq, p in Board("tablut").pieces().items()}
    pieces.pop(parse_square(CAMP, 9))
    if king_at is not None:
        pieces = {sq: v for sq, v in pieces.items() if v != "K"}
        pieces[parse_square(king_at, 9)] = "K"
    return pieces


def _readings(pieces: dict[int, str]):
    reader = BoardReader(board="board-9")
    for seed in SEEDS:
        reader.classifier.reset()
        yield reader.read(renderer.render_frame(pieces, "board-9", seed=seed, condition="museum").image, track=False)


def test_a_soft_spot_of_light_on_an_empty_camp_square_is_read_empty(spot_on_camp):
    sq = spot_on_camp
    pieces = _tablut()
    wrong = 0
    for reading in _readings(pieces):
        # the spot lifts the square's middle above its own fill (what made it look like ivory) ...
        assert reading.features.values[sq, 0] > 0.1
        # ... and it is never read as a piece for sure, nor most often as one at all
        assert reading.classes[sq] is SquareClass.EMPTY or reading.confidence[sq] < 0.9, reading.probabilities[sq]
        wrong += reading.classes[sq] is not SquareClass.EMPTY
    assert wrong <= 2


def test_a_king_on_the_lit_camp_square_is_still_the_king(spot_on_camp):
    sq = spot_on_camp
    for reading in _readings(_tablut(king_at=CAMP)):
        assert reading.classes[sq] is SquareClass.KING, reading.probabilities[sq]
        assert reading.confidence[sq] >= 0.9


def test_the_king_on_the_throne_and_defenders_on_marked_squares_are_read():
    """Pieces of every kind on the darker fill, without a spot: judged against plain wood, still seen."""
    throne, camps = parse_square("e5", 9), ["a5", "i5", "e1", "e9"]
    pieces = {parse_square(s, 9): "T" for s in camps[:2]} | {parse_square(s, 9): "t" for s in camps[2:]}
    pieces |= {throne: "K", parse_square("c3", 9): "T", parse_square("g7", 9): "T", parse_square("c7", 9): "T",
               parse_square("g3", 9): "t"}
    doubted = []
    for seed, reading in enumerate(_readings(pieces)):
        for sq, letter in pieces.items():
            if reading.classes[sq] is not SquareClass.from_letter(letter):
                assert reading.confidence[sq] < 0.9, (seed, sq, reading.probabilities[sq])
                doubted.append((seed, sq))
    # Seed 5's lens bends the grid 3.5 px from where the markers put it; fitted from the grid (vision/lens_fit.py),
    # as with the true lens, its defender on a5 (the board's edge, lit from the other side) shows a top at the plain
    # wood's level (log -0.02 with the veil off) and is read empty in doubt (0.66), as such a top may be; the 3.5 px
    # misplaced sample read it a defender (0.87).
    assert doubted in ([], [(5, parse_square("a5", 9))])
