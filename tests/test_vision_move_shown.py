"""A move a lamp's core keeps in doubt, with no short list to offer, may be shown on the screen.

Hard light, held-out renderer, `bench/confirm_latency.py` trials replayed as the bench plays them
(`one_trial`: the arm over the board, withdrawn, the still frames fused and looked at again as the
kiosk does): 135,000,000 trial 20 (scene 135,000,141, h5-h7) and 137,000,000 trial 50 (scene
137,000,351, d6-d3). A lamp's core over the deciding squares leaves "nothing moved" the likeliest
and a dozen moves within the margin, so no "which move?" could be asked, and "put it back and play
again" met the same light every time. The move reader now names the moves the camera leaves
(`MoveReading.possible`, vision/inference._possible); the played one is among them, and the kiosk
asks the visitor to show it (kiosk/turns.py, "fix_board.show"). Nothing is accepted on the camera's
word alone.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import confirm_latency  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import Board  # noqa: E402


@pytest.mark.parametrize("scene, position, turn, played", [
    (135_000_141, "/3t2t4/2t5t2/1t9/1t3t3tt/7t3/t1t7T/t7T2/4T5T/T1K3t3t/Ttt6t1/2t5t2/", "attackers", "h5-h7"),
    (137_000_351, "/3tttt4/5t5/11/t4T1t2t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/", "defenders", "d6-d3"),
])
def test_the_played_move_is_among_those_the_visitor_may_show(scene, position, turn, played):
    config = Config()
    board = Board.from_otn("copenhagen", position, turn=turn)
    move = board.parse_move(played)
    res = confirm_latency.LatencyResult()
    confirm_latency.one_trial("hard", scene, board, move, res, config, config.camera.stable_s)
    assert res.wrong == 0 and res.right == 0
    # held back and put to the visitor with the played move offered: shown on the screen among the moves the
    # camera leaves, or (135,000,141 since the washed attackers' guess, vision/shape.washed_dark_top, narrowed
    # them to a short list) asked which of them it was
    assert res.shown + res.asked == 1 and res.shown_offered + res.asked_offered == 1, res.held_why
