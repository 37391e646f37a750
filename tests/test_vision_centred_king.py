"""With no sure king, the one light piece whose gold is plainly in its top's middle is the king's best guess.

Hard light, held-out renderer (bench/foreign_vision.py), seeds 132,023,017 (Tablut): the king on e7 set off his
square's centre under a warm lamp. The crown feature, measured against the wood and beside his crown, said
nothing gold (-0.02, where the lamp-tinted defenders had 0.40-0.53), so he read a sure defender (0.99) while a
defender on g9 took the king (0.8): a square wrong and sure. His gold is a crown in his top's middle
(vision/features.crown_centred 0.23, every other light piece -0.10 to -0.23), and
vision/classifier.SquareClassifier.centred_king now gives him the king's best guess, held back.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import square_name  # noqa: E402
from vision.classifier import CROWN_PLAIN, SquareClassifier  # noqa: E402
from vision.features import crown_centred  # noqa: E402
from vision.inference import SURE  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BoardReader  # noqa: E402


def test_the_king_off_centre_is_known_by_his_centred_crown_and_nothing_is_wrong_and_sure():
    sample, image = foreign_vision.frame("hard", 132_000_000, 23)
    reader = BoardReader(Config(), sample.board)
    truth = foreign_vision.truth_classes(sample.position, reader.size)
    reading = reader.read(image)
    names = [square_name(sq, reader.size) for sq in range(reader.size ** 2)]
    e7, g9 = names.index("e7"), names.index("g9")
    assert truth[e7] == int(SquareClass.KING) and truth[g9] == int(SquareClass.DEFENDER)
    centred = crown_centred(reading.rectified, reading.features.top_px[[e7, g9]], reader.frame.ppm)
    assert centred[0] >= CROWN_PLAIN and centred[1] < 0.0
    assert reading.classes[e7] == SquareClass.KING, f"e7 read {reading.probabilities[e7].round(2)}"
    assert reading.classes[g9] == SquareClass.DEFENDER, f"g9 read {reading.probabilities[g9].round(2)}"
    wrong = np.asarray([int(c) for c in reading.classes]) != truth
    assert not (wrong & (reading.confidence >= SURE)).any()


def test_two_centred_crowns_or_a_sure_king_leave_the_reading_alone():
    k, d, e = int(SquareClass.KING), int(SquareClass.DEFENDER), int(SquareClass.EMPTY)
    p = np.zeros((4, 4))
    p[0, d], p[1, d], p[2, k], p[3, e] = 0.99, 0.99, 0.8, 1.0
    p[2, d] = 0.2
    one = np.array([0.3, -0.1, -0.2, np.nan])
    moved = SquareClassifier.centred_king(p, one, SURE)
    assert moved[0].argmax() == k and moved[0].max() < SURE and moved[2].argmax() == d
    two = np.array([0.3, 0.2, -0.2, np.nan])
    assert np.array_equal(SquareClassifier.centred_king(p, two, SURE), p)
    crowned = p.copy()
    crowned[2] = [0.0, 0.0, 0.05, 0.95]
    assert np.array_equal(SquareClassifier.centred_king(crowned, one, SURE), crowned)
