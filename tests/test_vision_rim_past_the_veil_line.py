"""A light piece's plain rim keeps a square from a sure "empty" just past the veil's threshold too.

WHY: a sharp, round rim under a light piece's colour, sent to "empty" only by the rim's strength against the
frame's other light pieces (vision/shape.outline_match, made for a veil's soft core), is held back where
there is no veil (vision/reader.py `overruled`). The veil's own doubt grows from nothing at VEIL_SHARE, so a
check that stopped there left a hole: hard light, seeds 142,004,017 c6, a defender under a veil of 0.36,
was read a sure empty (0.98) with a doubt of 0.03. The check now fades out over the veil doubt's span.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from engine.types import parse_square  # noqa: E402
from vision.inference import SURE  # noqa: E402
from vision.position import SquareClass  # noqa: E402


def test_the_defender_just_under_a_veil_is_no_sure_empty():
    size, truth, probs = foreign_vision.frame_reading("hard", 142_000_000, 4)
    c6 = parse_square("c6", size)
    assert int(truth[c6]) == int(SquareClass.DEFENDER)
    assert int(probs[c6].argmax()) == int(SquareClass.DEFENDER) or probs[c6].max() < SURE, \
        f"c6 read {np.round(probs[c6], 2)}"
