"""The one move reader against engine positions: moves, captures, leftovers, doubt and illegal changes.

The synthetic observations here are built from positions directly (each
square certain of one class, with some doubt where a test wants it), so the
reading logic is tested independently of the camera; the replayed games in
test_vision_game.py test it on rendered frames. The tests from the kiosk's
former square-comparing reader (kiosk/move_reading.py) live here too.
"""
import numpy as np
import pytest

from engine import Board, Piece, Side, parse_square
from vision.inference import (IllegalReason, Verdict, board_classes, observation_of, pieces_of,
                              read_move)
from vision.position import SquareClass


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
    res = read_move(board, observe(after(board, "h1-h3")))
    assert res.verdict is Verdict.MOVE and res.accepted
    assert res.move == board.parse_move("h1-h3")
    assert res.margin > 6


def test_no_move_yet():
    board = Board("copenhagen")
    res = read_move(board, observe(board))
    assert res.verdict is Verdict.UNCHANGED and res.move is None


def _capture_position():
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
    res = read_move(board, observe(played))
    assert res.verdict is Verdict.MOVE and res.move == capture
    assert res.captures == tuple(caps) and res.left_on_board == ()
    # the visitor has not lifted the captured piece yet
    still = observe(played, changes={sq: board_classes(board)[sq] for sq in caps})
    res = read_move(board, still)
    assert res.verdict is Verdict.MOVE and res.move == capture
    assert res.left_on_board == tuple(caps)


def test_a_capture_left_standing_from_squares_alone():
    # b2 t, c2 T, e2 t: the attacker from e2 to d2 captures the defender on c2
    board = Board.from_otn("copenhagen", "/11/1tT1t6/11/11/11/5K5/11/11/11/11/11/", turn=Side.ATTACKERS)
    cap = next(m for m in board.legal_moves if board.captures_of(m))
    observed = dict(board.pieces())
    observed[cap.to_sq] = observed.pop(cap.from_sq)              # the capture is NOT taken off
    got = read_move(board, observation_of(observed, 11))
    assert got.verdict is Verdict.MOVE and got.move == cap and got.left_on_board == tuple(sorted(board.captures_of(cap)))


def test_a_piece_captured_earlier_may_stand_or_be_gone():
    """Leftovers (captured in the last move, not yet parked by the robot) explain nothing and
    contradict nothing, whether they still stand or the visitor lifted them meanwhile."""
    board = Board.from_otn("copenhagen", "/11/1t2t6/11/11/11/5K5/11/11/11/11/11/", turn=Side.DEFENDERS)
    c2 = parse_square("c2", 11)
    leftovers = {c2: Piece.DEFENDER}
    standing = {**board.pieces(), c2: Piece.DEFENDER}
    for seen in (standing, board.pieces()):
        assert read_move(board, observation_of(seen, 11), leftovers).verdict is Verdict.UNCHANGED
        moved = dict(seen)
        moved[parse_square("f8", 11)] = moved.pop(parse_square("f6", 11))      # the king f6-f8
        res = read_move(board, observation_of(moved, 11), leftovers)
        assert res.verdict is Verdict.MOVE and res.move == board.parse_move("f6-f8")
    # without being told, a standing leftover is a change nothing legal explains
    assert read_move(board, observation_of(standing, 11)).verdict is Verdict.MISMATCH


def test_two_equally_likely_destinations_are_ambiguous_and_name_the_unsure_squares():
    board = Board("copenhagen")
    seen = observe(after(board, "h1-h3"))
    h2, h3 = parse_square("h2", 11), parse_square("h3", 11)
    seen[h3] = [0.5, 0.5, 0, 0]
    seen[h2] = [0.5, 0.5, 0, 0]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.move is None and not res.accepted
    assert res.margin < 1.0 and res.runner_up is not None
    assert set(res.unsure) >= {h2, h3}


def test_a_doubtful_reading_that_looks_like_a_legal_move_is_not_accepted():
    """Where the two former readers disagreed: the square comparison took the likeliest classes,
    and h1-h3 read at 60 % on both squares was accepted; the one reader holds back and says why."""
    board = Board("copenhagen")
    h1, h3 = parse_square("h1", 11), parse_square("h3", 11)
    seen = observe(board)
    seen[h1] = [0.6, 0.4, 0, 0]          # probably empty now
    seen[h3] = [0.4, 0.6, 0, 0]          # probably an attacker now
    assert pieces_of(seen) == after(board, "h1-h3").pieces()      # the likeliest classes form the move
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.move is None
    assert set(res.unsure) == {h1, h3} and res.fix == {h1: Piece.ATTACKER, h3: None}
    seen[h1], seen[h3] = [0.97, 0.03, 0, 0], [0.03, 0.97, 0, 0]     # a few more frames fused: sure
    assert read_move(board, seen).move == board.parse_move("h1-h3")


def test_glare_over_an_empty_square_is_not_a_move_and_hides_none():
    board = Board("copenhagen")
    c3 = parse_square("c3", 11)
    seen = observe(board)
    seen[c3] = [0.45, 0.0, 0.55, 0.0]    # a veil of light: "maybe a defender", unsure
    assert read_move(board, seen).verdict is Verdict.UNCHANGED
    seen = observe(after(board, "h1-h3"))
    seen[c3] = [0.45, 0.0, 0.55, 0.0]
    assert read_move(board, seen).move == board.parse_move("h1-h3")


@pytest.mark.parametrize("glared,read", [("h3", [0.35, 0.45, 0.1, 0.1]), ("h1", [0.5, 0.3, 0.1, 0.1])])
def test_glare_over_one_deciding_square_the_sure_squares_leave_one_move(glared, read):
    """h1-h3 with glare over one of its squares, the other read surely: no likelihood margin, but
    only h1-h3 fits the sure squares. h3 under glare (leaning attacker): h1 is sure empty and every
    other square h1's attacker could reach is sure empty. h1 under glare (leaning empty, blown
    white: the camera cannot tell): h3 surely holds an attacker, which only h1's could have become."""
    board = Board("copenhagen")
    seen = observe(after(board, "h1-h3"))
    seen[parse_square(glared, 11)] = read
    res = read_move(board, seen)
    assert res.verdict is Verdict.MOVE and res.move == board.parse_move("h1-h3")
    assert res.margin < 6.0


def test_a_sure_piece_where_the_square_it_came_from_still_leans_to_its_own_is_no_move():
    """h3 surely an attacker, but h1 under glare still leans to its attacker: a piece from nowhere
    as likely as h1-h3, so not taken."""
    board = Board("copenhagen")
    seen = observe(after(board, "h1-h3"))
    seen[parse_square("h1", 11)] = [0.3, 0.5, 0.1, 0.1]
    assert not read_move(board, seen).accepted


def test_a_piece_lifted_off_with_glare_where_it_could_have_gone_is_not_a_move():
    """The same sure squares, but the glared square leans empty (the piece is in the visitor's
    hand): held back, never guessed."""
    board = Board("copenhagen")
    h1, h3 = parse_square("h1", 11), parse_square("h3", 11)
    seen = observe(board, changes={h1: 0})
    seen[h3] = [0.5, 0.3, 0.1, 0.1]
    res = read_move(board, seen)
    assert not res.accepted and res.move is None


def test_glare_over_two_squares_the_piece_could_reach_is_still_ambiguous():
    board = Board("copenhagen")
    h2, h3 = parse_square("h2", 11), parse_square("h3", 11)
    seen = observe(after(board, "h1-h3"))
    seen[h3] = [0.35, 0.45, 0.1, 0.1]
    seen[h2] = [0.45, 0.35, 0.1, 0.1]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.move is None
    assert set(res.unsure) >= {h2, h3}
    # the visitor may say which: the two moves the sure squares leave, the likelier first
    assert [c.move for c in res.candidates] == [board.parse_move("h1-h3"), board.parse_move("h1-h2")]
    assert all(c.verdict is Verdict.MOVE for c in res.candidates)


def test_a_move_whose_capture_may_stand_or_be_gone_is_offered_once():
    """h4-j4 captures j5; glare over j4, j5 and i4: the capture lifted or still standing are two
    explanations but one move for the visitor to touch."""
    board = Board("copenhagen")
    for text in ("d1-c1", "f8-h8", "f2-b2", "d6-d8", "c1-c6", "h8-h10", "h1-h4", "f7-f8", "a5-d5", "g5-j5"):
        board.push(board.parse_move(text))
    seen = observe(after(board, "h4-j4xj5"))
    for name in ("j4", "j5", "i4"):
        seen[parse_square(name, 11)] = [0.45, 0.25, 0.25, 0.05]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS
    moves = [c.move for c in res.candidates]
    assert board.parse_move("h4-j4") in moves and board.parse_move("h4-i4") in moves
    assert len(moves) == len(set(moves))


@pytest.mark.parametrize("h1_read,h3_read,offered", [
    ([0.6, 0.4, 0, 0], [0.4, 0.6, 0, 0], ("h1-h3", "h1-h2")),     # a move the likelier: asked which
    ([0.45, 0.55, 0, 0], [0.55, 0.45, 0, 0], ())])                 # nothing moved the likelier: not asked
def test_the_likelier_moves_are_offered_while_the_piece_may_not_have_left(h1_read, h3_read, offered):
    """The square left is itself in doubt, so "nothing moved" is still an explanation. Where a move is
    the likelier, the visitor is asked which move they made: asked to put the board back and play again,
    they would meet the same glare and the same doubt for as long as it stays."""
    board = Board("copenhagen")
    h1, h2, h3 = (parse_square(n, 11) for n in ("h1", "h2", "h3"))
    seen = observe(board)
    seen[h1], seen[h3], seen[h2] = h1_read, h3_read, [0.5, 0.5, 0, 0]
    res = read_move(board, seen)
    assert res.verdict is not Verdict.MOVE
    assert [c.move for c in res.candidates] == [board.parse_move(m) for m in offered]


def test_no_move_from_a_square_that_still_shows_its_piece_is_offered():
    """e1 and f2 could both have gone to e2; glare over all three, e1 reading empty and f2 still its
    attacker: f2-e2 stays a close explanation, but only e1's move is offered."""
    board = Board("copenhagen")
    e1, e2, f2 = (parse_square(n, 11) for n in ("e1", "e2", "f2"))
    seen = observe(after(board, "e1-e2"))
    seen[e1], seen[e2], seen[f2] = [0.6, 0.4, 0, 0], [0.4, 0.6, 0, 0], [0.4, 0.6, 0, 0]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.runner_up is not None
    offered = [c.move for c in res.candidates]
    assert offered[0] == board.parse_move("e1-e2") and all(m.from_sq == e1 for m in offered)


def test_no_choice_is_offered_among_many_moves():
    """Glare over seven squares the piece could reach: seven rings would be a guessing game."""
    board = after(Board("copenhagen"), "h1-h3")
    board.push(board.parse_move("f4-g4"))
    h3 = parse_square("h3", 11)
    seen = observe(after(board, "h3-f3"))
    for name in ("i3", "j3", "k3", "g3", "f3", "e3", "d3"):
        seen[parse_square(name, 11)] = [0.45, 0.4, 0.1, 0.05]
    seen[h3] = [0.98, 0.01, 0.005, 0.005]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.candidates == ()
    # but the visitor may show theirs on the screen: any of the seven, and only those
    reach = {parse_square(n, 11) for n in ("i3", "j3", "k3", "g3", "f3", "e3", "d3")}
    assert {c.move.to_sq for c in res.possible} == reach and all(c.move.from_sq == h3 for c in res.possible)


def test_a_move_half_seen_while_nothing_moved_is_likelier_may_be_shown_never_one_unseen():
    """A lamp's core over h1 and h3: h1 still leans to its attacker, h3 leans to one too. "Nothing
    moved" is the likelier reading, so no move is offered to touch, but h1-h3 may be shown on the
    screen, being the one legal move that puts a piece on h3; a move the camera sees no part of
    (d1-d3) may not."""
    board = Board("copenhagen")
    h1, h3 = parse_square("h1", 11), parse_square("h3", 11)
    seen = observe(board)
    seen[h1], seen[h3] = [0.3, 0.7, 0, 0], [0.45, 0.55, 0, 0]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS and res.candidates == () and res.move_otn is None
    assert [c.move for c in res.possible] == [board.parse_move("h1-h3")]


def test_among_many_moves_the_one_whose_destination_shows_the_mover_is_offered():
    """Glare along the piece's whole line, but one of those squares leans to the piece: only that
    move is offered."""
    board = after(Board("copenhagen"), "h1-h3")
    board.push(board.parse_move("f4-g4"))
    h3 = parse_square("h3", 11)
    seen = observe(after(board, "h3-f3"))
    for name in ("i3", "j3", "k3", "g3", "e3", "d3"):
        seen[parse_square(name, 11)] = [0.45, 0.4, 0.1, 0.05]
    seen[parse_square("f3", 11)] = [0.4, 0.45, 0.1, 0.05]
    seen[h3] = [0.98, 0.01, 0.005, 0.005]
    res = read_move(board, seen)
    assert res.verdict is Verdict.AMBIGUOUS
    assert [c.move for c in res.candidates] == [board.parse_move("h3-f3")]


def test_an_extra_piece_is_a_mismatch_with_the_squares_named():
    board = Board("copenhagen")
    c3 = parse_square("c3", 11)
    assert board.piece_at(c3) is None
    res = read_move(board, observe(board, changes={c3: 1}))   # an attacker appears from nowhere on c3
    assert res.verdict is Verdict.MISMATCH and not res.accepted
    assert res.fix == {c3: None} and res.tried is None


def test_an_illegal_slide_is_named_with_its_reason():
    board = Board("copenhagen")
    f1, f3 = parse_square("f1", 11), parse_square("f3", 11)
    with pytest.raises(ValueError, match="f2"):           # the engine refuses the jump, naming the blocker
        board.parse_move("f1-f3")
    res = read_move(board, observe(board, changes={f1: 0, f3: 1}))   # the attacker on f1 jumps f2
    assert res.verdict is Verdict.MISMATCH and res.move is None
    assert res.fix == {f1: Piece.ATTACKER, f3: None}
    assert res.tried is not None and (res.tried.from_sq, res.tried.to_sq) == (f1, f3)
    assert res.reason is IllegalReason.BLOCKED


def test_the_wrong_side_moving_is_not_your_piece():
    board = Board("copenhagen")          # attackers to move
    start = board.pieces()
    theirs = Board.from_otn("copenhagen", board.position_otn(), turn=Side.DEFENDERS)
    move = next(m for m in theirs.legal_moves if start[m.from_sq] == Piece.DEFENDER)
    wrong = dict(start)
    wrong[move.to_sq] = wrong.pop(move.from_sq)
    res = read_move(board, observation_of(wrong, 11))
    assert res.verdict is Verdict.MISMATCH and res.reason is IllegalReason.NOT_YOUR_PIECE
    assert res.fix == {move.from_sq: Piece.DEFENDER, move.to_sq: None}
    two_gone = dict(start)
    for sq in list(two_gone)[:2]:
        del two_gone[sq]
    res = read_move(board, observation_of(two_gone, 11))
    assert res.verdict is Verdict.MISMATCH and res.tried is None and len(res.fix) == 2


def test_observation_of_squares_keeps_their_confidence():
    board = Board("copenhagen")
    conf = [1.0] * 121
    conf[5] = 0.4
    probs = observation_of(board.pieces(), 11, conf)
    assert probs.shape == (121, 4) and np.allclose(probs.sum(1), 1.0)
    assert probs[5].max() == pytest.approx(0.4) and pieces_of(probs) == board.pieces()


def test_shape_is_checked():
    with pytest.raises(ValueError, match="shape"):
        read_move(Board("copenhagen"), np.zeros((81, 4)))


def test_two_moves_that_make_the_same_position_are_one_explanation():
    """Where the two former readers disagreed: in Tawlbwrdd a piece that stops between two
    enemies dies, so f10-f9 and f10-f6 (both into a sandwich) leave the same board. The square
    comparison took whichever it tried first; probabilities alone called it a tie. No camera can
    tell them apart and the position is the same: the move is read, and the game goes on."""
    board = Board.from_otn("tawlbwrdd", "/5tt2t1/1t3Tt1tt1/1t9/3K6t/7tt2/t1tTT1T3t/1t8t/1T9/t3T1T4/5tt4/4tt1t3/",
                           turn=Side.ATTACKERS)
    f10 = parse_square("f10", 11)
    dying = [m for m in board.legal_moves if m.from_sq == f10 and m.to_sq in board.captures_of(m)]
    assert len(dying) >= 2                                  # the tie the test is about
    seen = dict(board.pieces())
    del seen[f10]                                           # the visitor took the dead piece off
    res = read_move(board, observation_of(seen, 11))
    assert res.verdict is Verdict.MOVE and res.move in dying
    played = board.copy()
    played.push(res.move)
    assert played.pieces() == seen


def test_a_standing_piece_read_as_another_kind_is_no_change():
    """No legal move turns a standing piece into another kind, so a sure misread of its colour (a
    defender's top under a lamp's veil read as an attacker, the king read as a defender) neither
    blocks the move played nor makes one: before, each was a mismatch ("fix the board") although
    the board was right."""
    board = Board("copenhagen")
    f4, f6, h1, h3 = (parse_square(n, 11) for n in ("f4", "f6", "h1", "h3"))
    misread = {f4: int(SquareClass.ATTACKER), f6: int(SquareClass.DEFENDER)}
    res = read_move(board, observe(after(board, "h1-h3"), changes={**misread, h1: 0, h3: 1}))
    assert res.verdict is Verdict.MOVE and res.move == board.parse_move("h1-h3")
    res = read_move(board, observe(board, changes=misread))
    assert res.verdict is Verdict.UNCHANGED
    # a captured piece left standing may be read as another kind too
    board = Board.from_otn("copenhagen", "/11/1tT1t6/11/11/11/5K5/11/11/11/11/11/", turn=Side.ATTACKERS)
    cap = next(m for m in board.legal_moves if board.captures_of(m))
    observed = dict(board.pieces())
    observed[cap.to_sq] = observed.pop(cap.from_sq)
    for sq in board.captures_of(cap):
        observed[sq] = Piece.ATTACKER
    got = read_move(board, observation_of(observed, 11))
    assert got.verdict is Verdict.MOVE and got.move == cap and got.left_on_board == tuple(sorted(board.captures_of(cap)))


def test_a_piece_taken_chess_style_is_still_a_mismatch():
    """The attacker set down on the defender it meant to take: the square it left shows the
    change, and both squares are named to put right."""
    board = Board("copenhagen")
    f2, f4 = parse_square("f2", 11), parse_square("f4", 11)
    assert board.piece_at(f2) is Piece.ATTACKER and board.piece_at(f4) is Piece.DEFENDER
    res = read_move(board, observe(board, changes={f2: 0, f4: int(SquareClass.ATTACKER)}))
    assert res.verdict is Verdict.MISMATCH and not res.accepted
    assert res.fix == {f2: Piece.ATTACKER, f4: Piece.DEFENDER}


def test_a_square_surely_holding_a_piece_of_unsure_kind_rules_out_slides_past_it():
    """The king f6-f8: f8 is surely a piece (0.98) though the crown is unsure (king 0.55, defender
    0.43), f9 and f10 lie under glare. Sliding on past f8 would leave it empty: no rival."""
    board = Board.from_otn("copenhagen", "/11/1t2t6/11/11/11/5K5/11/11/11/11/11/", turn=Side.DEFENDERS)
    f8, f9, f10 = (parse_square(n, 11) for n in ("f8", "f9", "f10"))
    seen = observe(after(board, "f6-f8"))
    seen[f8] = [0.02, 0.0, 0.43, 0.55]
    seen[f9] = seen[f10] = [0.6, 0.1, 0.2, 0.1]
    res = read_move(board, seen)
    assert res.verdict is Verdict.MOVE and res.move == board.parse_move("f6-f8")
    assert res.margin < 6.0
    # unsure that a piece stands there at all, it stays a question
    seen[f8] = [0.2, 0.0, 0.35, 0.45]
    assert not read_move(board, seen).accepted
