"""Move inference against engine positions: exact moves, captures, ambiguity and desync.

The synthetic observations here are built from positions directly (each
square certain of one class, with some doubt where a test wants it), so the
scoring logic is tested independently of the camera; the replayed games in
test_vision_game.py test it on rendered frames.
"""
import numpy as np
import pytest

from engine import Board, parse_square
from vision.inference import MoveInferrer, Verdict, board_classes


def observe(board: Board, sure: float = 0.98, changes: dict[int, int] | None = None) -> np.ndarray:
    classes = board_classes(board)
    for sq, c in (changes or {}).items():
        classes[sq] = c
    p = np.full((len(classes), 4), (1 - sure) / 3)
    p[np.arange(len(classes)), classes] = sure
    return p


def after(board: Board, move_text: str) -> Board:
    b = board.copy()
    b.push(b.parse_move(move_text))
    return b


def test_the_played_move_is_found():
    board = Board("copenhagen")
    seen = observe(after(board, "h1-h3"))
    res = MoveInferrer().infer(board, seen)
    assert res.verdict is Verdict.MOVE and res.accepted
    assert res.move == board.parse_move("h1-h3")
    assert res.margin > 6


def test_no_move_yet():
    board = Board("copenhagen")
    res = MoveInferrer().infer(board, observe(board))
    assert res.verdict is Verdict.UNCHANGED and res.move is None


def _capture_position():
    # attackers: d1-d3? build a position where an attacker move captures a defender
    board = Board.from_otn("copenhagen", "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/")
    for text in ("d1-d3", "e5-e2"):
        board.push(board.parse_move(text))
    return board


def test_capture_with_piece_removed_and_still_standing():
    board = _capture_position()
    capture = next(m for m in board.legal_moves if board.captures_of(m))
    caps = board.captures_of(capture)
    played = board.copy()
    played.push(capture)
    res = MoveInferrer().infer(board, observe(played))
    assert res.verdict is Verdict.MOVE and res.move == capture
    assert res.captures == tuple(caps) and res.captures_pending == ()
    # the visitor has not lifted the captured piece yet
    still = observe(played, changes={sq: board_classes(board)[sq] for sq in caps})
    res = MoveInferrer().infer(board, still)
    assert res.verdict is Verdict.MOVE and res.move == capture
    assert res.captures_pending == tuple(caps)


def test_two_equally_likely_destinations_are_ambiguous():
    board = Board("copenhagen")
    seen = observe(after(board, "h1-h3"))
    h2, h3 = parse_square("h2", 11), parse_square("h3", 11)
    seen[h3] = [0.5, 0.5, 0, 0]
    seen[h2] = [0.5, 0.5, 0, 0]
    res = MoveInferrer().infer(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.move is None
    assert res.margin < 1.0 and res.runner_up is not None


def test_an_extra_piece_is_a_mismatch_with_the_squares_named():
    board = Board("copenhagen")
    c3 = parse_square("c3", 11)
    assert board.piece_at(c3) is None
    seen = observe(board, changes={c3: 1})          # an attacker appears from nowhere on c3
    res = MoveInferrer().infer(board, seen)
    assert res.verdict is Verdict.MISMATCH and not res.accepted
    assert res.differing == [c3] and res.unexplained == [c3]


def test_an_illegal_move_is_not_accepted():
    board = Board("copenhagen")
    f1, f3 = parse_square("f1", 11), parse_square("f3", 11)
    with pytest.raises(ValueError, match="f2"):           # the engine refuses the jump, naming the blocker
        board.parse_move("f1-f3")
    seen = observe(board, changes={f1: 0, f3: 1})   # the attacker on f1 jumps f2
    res = MoveInferrer().infer(board, seen)
    assert res.verdict is Verdict.MISMATCH and res.move is None
    assert set(res.differing) == {f1, f3}


def test_the_wrong_side_moving_is_a_mismatch():
    board = Board("copenhagen")          # attackers to move
    seen = observe(after(Board.from_otn("copenhagen", board.position_otn(), turn=board.turn), "h1-h3"))
    assert MoveInferrer().infer(board, seen).accepted
    # a defender moves instead
    d = Board("copenhagen")
    seen = observe(d, changes={parse_square("f4", 11): 0, parse_square("c4", 11): 2})
    res = MoveInferrer().infer(board, seen)
    assert not res.accepted and res.verdict is Verdict.MISMATCH


def test_shape_is_checked():
    with pytest.raises(ValueError, match="shape"):
        MoveInferrer().infer(Board("copenhagen"), np.zeros((81, 4)))
