"""A real game, replayed on rendered frames: every ply is read and the move inferred back exactly.

One fixed camera (as mounted in the kiosk), museum light changing from frame
to frame, the reader learning from every confirmed position as the kiosk
would. Game 24 of copenhagen-games.csv: 30 plies, 6 captures, the defenders
win.
"""
import csv

import pytest

from engine import Board
from vision.inference import Verdict, read_move
from vision.reader import BoardReader
from vision.renderer import render_frame

from tests.helpers.paths import REPO

GAME_INDEX = 24


def _game_moves():
    with open(REPO / "tests" / "data" / "copenhagen-games.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[GAME_INDEX][0].split()


def _pieces(board):
    return {sq: p.value for sq, p in board.pieces().items()}


def test_replayed_game_is_read_back_move_by_move():
    moves = _game_moves()
    assert len(moves) == 30
    board = Board("copenhagen")
    reader = BoardReader(board="board-11")
    first = render_frame(_pieces(board), "board-11", seed=9000, condition="museum")
    camera = first.camera
    start = reader.read(first.image)
    assert start.position == board.position_otn()
    reader.learn(start, board.position_otn())
    captures_seen = 0
    for ply, text in enumerate(moves, 1):
        played = board.copy()
        recorded = played.parse_move(text.split("x")[0])
        caps = played.push(recorded)
        frame = render_frame(_pieces(played), "board-11", seed=9000 + ply, condition="museum", camera=camera)
        reading = reader.read(frame.image)
        res = read_move(board, reading.probabilities)
        assert res.verdict is Verdict.MOVE, (ply, text, res)
        assert res.move == recorded, (ply, text, res.move_otn)
        assert set(res.captures) == set(caps) and res.left_on_board == ()
        captures_seen += len(caps)
        board.push(res.move)
        assert reading.position == board.position_otn(), ply
        reader.learn(reading, board.position_otn())
    assert captures_seen == 6
    assert reader.classifier.samples_learned > 30 * 100


def test_a_frame_showing_a_move_and_a_forgotten_capture():
    board = Board("copenhagen")
    moves = _game_moves()
    for text in moves:
        mv = board.parse_move(text.split("x")[0])
        if board.captures_of(mv):
            break
        board.push(mv)
    else:
        pytest.fail("the game has captures")
    caps = board.captures_of(mv)
    played = board.copy()
    played.push(mv)
    shown = _pieces(played)
    shown.update({sq: board.piece_at(sq).value for sq in caps})     # captured piece still standing
    frame = render_frame(shown, "board-11", seed=777, condition="museum")
    res = read_move(board, BoardReader(board="board-11").read(frame.image).probabilities)
    assert res.verdict is Verdict.MOVE and res.move == mv
    assert set(res.left_on_board) == set(caps)


def test_a_frame_with_a_piece_knocked_off_is_a_mismatch():
    board = Board("copenhagen")
    shown = _pieces(board)
    gone = next(sq for sq, p in shown.items() if p == "T")
    del shown[gone]                       # a defender removed: no legal attacker move does that
    frame = render_frame(shown, "board-11", seed=778, condition="museum")
    res = read_move(board, BoardReader(board="board-11").read(frame.image).probabilities)
    assert res.verdict is Verdict.MISMATCH and not res.accepted
    assert list(res.fix) == [gone]
