"""A picture in doubt is not a picture against: the still board's sure squares stay sure.

The reader doubts a square when one of its tests lands near its threshold, and
sensor noise moves it across from one picture to the next. Here, a real game's
ply on the held-out renderer's museum scene (bench/confirm_latency.py, seeds
60,000,000, trial 11): the defender moved f4-a4 reads 0.95 in most pictures and
0.6 in about one in four, with b4 beside it under a veil (unknown). Fused by the
plain mean, a4 came out 0.85 and the move stayed unsure for 3.4 s of a still
board; fused from its sure pictures it is confirmed at once.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.inference import Verdict, read_move  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.stability import SURE_SHARE, StabilityTracker, fuse  # noqa: E402

FPS = 30.0


def _square(p: list[float]) -> np.ndarray:
    probs = np.full((121, 4), [1.0, 0.0, 0.0, 0.0])
    probs[5] = p
    return probs


def test_pictures_in_doubt_do_not_lower_a_square_the_others_read_surely():
    sure, doubt = [0.03, 0.02, 0.95, 0.0], [0.16, 0.11, 0.6, 0.13]
    fused = fuse([_square(sure), _square(sure), _square(doubt), _square(sure)])
    assert fused[5].argmax() == 2 and fused[5].max() >= 0.9          # the mean would be 0.86
    assert fused[0].max() == 1.0


def test_a_picture_sure_of_another_class_keeps_the_square_unsure():
    other = [0.95, 0.02, 0.03, 0.0]
    fused = fuse([_square([0.03, 0.02, 0.95, 0.0])] * 5 + [_square(other)])
    assert fused[5].max() < 0.9


def test_a_square_sure_in_too_few_pictures_stays_unsure():
    n = 9
    k = int(np.ceil(SURE_SHARE * n)) - 1
    frames = [_square([0.03, 0.02, 0.95, 0.0])] * k + [_square([0.3, 0.1, 0.5, 0.1])] * (n - k)
    assert fuse(frames)[5].max() < 0.9


@pytest.mark.slow
def test_a_defender_read_in_doubt_now_and_then_is_confirmed_within_the_still_time():
    games = foreign_vision.load_games()
    board = foreign_vision.replay(games[1666], 49)
    move = board.parse_move("f4-a4")
    after = board.copy()
    after.push(move)
    config = Config()
    scene = foreign_renderer.prepare("board-11", after.position_otn(), "museum", config, 60_000_078)
    reader = BoardReader(config, "board-11")
    tracker = StabilityTracker(config.camera.stable_s)
    verdicts = []
    for k in range(28, 28 + int(FPS * 1.0)):            # one second of the still board
        tracker.update(k / FPS, reader.read(foreign_renderer.expose(scene, k, onlooker_seed=60_000_078)))
        still = tracker.still()
        if still is not None:
            verdicts.append(read_move(board, still.probabilities))
            if verdicts[-1].verdict is Verdict.MOVE:
                break
    assert verdicts and verdicts[-1].verdict is Verdict.MOVE and verdicts[-1].move == move, \
        [v.verdict.value for v in verdicts]
