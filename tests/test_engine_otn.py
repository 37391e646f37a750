"""OTN positions by square -> piece: position_from_pieces and pieces_from_position."""
import pytest

from engine import Board, Piece, parse_square, pieces_from_position, position_from_pieces


@pytest.mark.parametrize("variant", ["copenhagen", "tablut", "york", "tawlbwrdd"])
def test_round_trip_with_the_board(variant):
    board = Board(variant)
    text = board.position_otn()
    pieces = pieces_from_position(text, board.size)
    assert pieces == board.pieces()
    assert all(isinstance(p, Piece) for p in pieces.values())
    assert position_from_pieces(pieces, board.size) == text


def test_letters_and_pieces_write_the_same_text():
    as_pieces = {0: Piece.ATTACKER, 60: Piece.KING, 120: Piece.DEFENDER}
    as_letters = {0: "t", 60: "K", 120: "T"}
    text = position_from_pieces(as_letters, 11)
    assert text == position_from_pieces(as_pieces, 11)
    assert text.startswith("/t10/") and text.endswith("/10T/")
    assert "/5K5/" in text


def test_first_rank_first():
    pieces = pieces_from_position("/" + "11/" * 10 + "10t/", 11)
    assert pieces == {parse_square("k11", 11): Piece.ATTACKER}


def test_empty_board():
    assert pieces_from_position("/9/9/9/9/9/9/9/9/9/", 9) == {}
    assert position_from_pieces({}, 9) == "/9/9/9/9/9/9/9/9/9/"


@pytest.mark.parametrize("bad", [{0: "x"}, {121: "t"}, {-1: "T"}])
def test_bad_pieces_are_refused(bad):
    with pytest.raises(ValueError):
        position_from_pieces(bad, 11)


@pytest.mark.parametrize("bad", ["/3ttttt3/", "/12/" + "11/" * 10, "/3ttxtt3/" + "11/" * 10,
                                 "/K10/K10/" + "11/" * 9])
def test_bad_text_is_refused(bad):
    with pytest.raises(ValueError):
        pieces_from_position(bad, 11)
