"""The board as the controller took it, through still runs that end with nothing moved.

After the controller takes a still board (the robot's move confirmed, the visitor's move played,
BoardWatch.settle), the visitor's turn reads nothing into doubts about that same picture
(kiosk/turns.py). A still run can end with nothing moved: here a visitor's hand hovers over the
board and is taken back. The picture the camera then sees again is the settled one, square by
square (BoardWatch.as_settled); a piece moved is not. Through the real parts: the renderer's
frames with a sensor's fresh noise on each, the camera thread, vision's reader and BoardWatch.
"""
from __future__ import annotations

from engine import Board, parse_square
from tests.test_kiosk_refusals_that_stay import BOARD, _watch
from vision.renderer import render_frame

SEED = 8


def _frame(board: Board):
    return render_frame({sq: p.value for sq, p in board.pieces().items()}, BOARD, seed=SEED,
                        condition="museum").image


def test_a_hand_taken_back_leaves_the_board_as_settled_and_a_move_does_not():
    board = Board("copenhagen")
    clock, feed, watch, tick = _watch(_frame(board))
    for _ in range(10):
        tick()
    assert watch.camera_ok and watch.still() is not None
    watch.settle()
    settled_run = watch.tracker.run_since
    assert watch.as_settled

    for column in range(600, 760, 40):                 # a hand hovers over the board, moves nothing
        feed.hand_at(column)
        tick()
        assert watch.camera_reason == "hand over board"
    feed.hand_at(None)
    for _ in range(10):
        tick()
    assert watch.camera_ok and watch.still() is not None
    assert watch.tracker.run_since != settled_run      # a new still run ...
    assert watch.as_settled                            # ... of the board as it was taken

    move = next(m for m in board.legal_moves if m.from_sq == parse_square("d1", board.size))
    board.push(move)
    feed.hand_at(650)                                  # the visitor's hand plays a move
    tick()
    assert watch.camera_reason == "hand over board"
    feed.hand_at(None)
    feed.image = _frame(board)
    for _ in range(10):
        tick()
    assert watch.camera_ok and watch.still() is not None
    assert not watch.as_settled                        # the board moved: the move is read as any other
