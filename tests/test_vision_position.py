"""OTN position records as the reader writes them, and the boards' marked squares."""
import pytest

from engine import Board
from engine import pieces_from_position as parse_position
from engine import position_from_pieces as format_position
from vision.position import SquareClass, marked_squares


@pytest.mark.parametrize("variant", ["copenhagen", "tablut", "york", "tawlbwrdd"])
def test_records_match_the_engine(variant):
    board = Board(variant)
    record = board.position_otn()
    pieces = parse_position(record, board.size)
    assert pieces == {sq: p.value for sq, p in board.pieces().items()}
    assert format_position(pieces, board.size) == record


def test_first_rank_comes_first():
    board = Board("copenhagen")
    board.push(board.parse_move("h1-h3"))
    pieces = parse_position(board.position_otn(), 11)
    assert pieces.get(2 * 11 + 7) == "t" and 7 not in pieces


@pytest.mark.parametrize("bad", ["/3ttttt3/", "/12/" + "11/" * 10, "/3ttxtt3/" + "11/" * 10])
def test_bad_records_are_refused(bad):
    with pytest.raises(ValueError):
        parse_position(bad, 11)


def test_marked_squares():
    assert marked_squares(11) == {0, 10, 60, 110, 120}
    nine = marked_squares(9)
    assert len(nine) == 17 and 40 in nine
    assert {3, 4, 5, 13} <= nine          # the bottom camp: d1 e1 f1 and e2


def test_square_class_letters():
    assert [SquareClass.from_letter(x) for x in (None, "t", "T", "K")] == list(SquareClass)
    assert SquareClass.KING.letter == "K"
