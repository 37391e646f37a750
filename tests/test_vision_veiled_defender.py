"""A visitor's right move under a lamp's veil is confirmed, not met with "fix the board".

Hard light, held-out renderer (bench/confirm_latency.py, seeds 134,000,000, trial 11, scene
134,000,078): after the Copenhagen ply a7-b7 the defenders on f5, g5 and g7 lie under the lamp's
veil, and the fused still reading made f5 a sure attacker (0.95). The move reader took that as a
change no legal move explains, and the kiosk asked the visitor to put right a board that was right.
A standing piece cannot change its kind, so its colour as read is no evidence of a move
(vision.inference._agrees); the synthetic cases are in test_vision_inference.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import Board  # noqa: E402
from vision.inference import Verdict, read_move  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.stability import StabilityTracker  # noqa: E402

SCENE = 134_000_078
BEFORE = "/4tttt3/2t8/3t3T3/t1T7t/t3TTT2t1/tt2TKT2tt/t3TTT3t/t7T1t/3T7/5tt4/3ttt1t3/"
FPS = 30


def test_the_move_is_confirmed_with_a_veiled_defender_misread():
    config = Config()
    board = Board.from_otn("copenhagen", BEFORE)
    move = board.parse_move("a7-b7")
    after = board.copy()
    after.push(move)
    before_scene = foreign_renderer.prepare("board-11", board.position_otn(), "hard", config, SCENE)
    after_scene = foreign_renderer.prepare("board-11", after.position_otn(), "hard", config, SCENE)
    reader = BoardReader(config, "board-11")
    reader.read(foreign_renderer.expose(before_scene, 0, onlooker_seed=SCENE))
    tracker = StabilityTracker(config.camera.stable_s)
    still = None
    for k in range(1, 2 * FPS):
        tracker.update(k / FPS, reader.read(foreign_renderer.expose(after_scene, k, onlooker_seed=SCENE)))
        still = tracker.still()
        if still is not None:
            break
    assert still is not None, "the board never read still"
    result = read_move(board, still.probabilities)
    assert result.verdict is Verdict.MOVE, (result.verdict, result.fix)
    assert result.move == move
