"""Copenhagen (docs/rule-texts/copenhagen.txt): every paragraph of the text, positive and negative."""
from __future__ import annotations

import pytest

from engine import Board, Outcome, Piece, Side, parse_square

from engine_helpers import legal, play, position_maker

V = "copenhagen"
pos = position_maker(V, 11, "f6")


# ---------------------------------------------------------------- the sides
def test_start_position_counts_and_first_move() -> None:
    b = Board(V)
    pieces = list(b.pieces().values())
    assert pieces.count(Piece.ATTACKER) == 24
    assert pieces.count(Piece.DEFENDER) == 12
    assert b.piece_at(parse_square("f6", 11)) is Piece.KING
    assert b.turn is Side.ATTACKERS
    assert b.position_otn() == ("/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/"
                                "5t5/3ttttt3/")
    assert all(b.piece_at(m.from_sq) is Piece.ATTACKER for m in b.legal_moves)


# ------------------------------------------------------------------- moving
def test_pieces_move_like_rooks_not_diagonally_nor_over_pieces() -> None:
    b = pos(t="c3 c6", T="e3", K="h8")
    assert legal(b, "c3-c5") and legal(b, "c3-a3") and legal(b, "c3-d3")
    assert not legal(b, "c3-d4"), "diagonal"
    assert not legal(b, "c3-c7"), "jumps over c6"
    assert not legal(b, "c3-f3"), "jumps over e3"
    assert not legal(b, "c3-c6"), "lands on a piece"


def test_only_the_king_stops_on_throne_and_corners_others_pass_the_empty_throne() -> None:
    b = pos(t="f2 b1", T="d6", K="h8")
    assert not legal(b, "f2-f6")
    assert legal(b, "f2-f10"), "an attacker passes over the empty throne"
    assert not legal(b, "b1-a1"), "corner"
    b = pos(t="a10", T="d6", K="h8", turn="defenders")
    assert not legal(b, "d6-f6") and legal(b, "d6-j6")
    k = pos(t="a10", T="c3", K="f8", turn="defenders")
    assert legal(k, "f8-f6"), "the king may return to the throne"


# ---------------------------------------------------------------- capturing
def test_custodial_capture_by_the_moving_piece() -> None:
    b = pos(t="a3 c5", T="b3", K="h8")
    assert play(b, "c5-c3") == ["b3"]
    assert b.piece_at(parse_square("b3", 11)) is None


def test_moving_in_between_two_enemies_is_safe() -> None:
    b = pos(t="a3 c3", T="b5", K="h8", turn="defenders")
    assert play(b, "b5-b3") == []
    assert b.piece_at(parse_square("b3", 11)) is Piece.DEFENDER


def test_corner_counts_as_a_capturing_piece_for_both_sides() -> None:
    b = pos(t="c4", T="b1", K="h8")
    assert play(b, "c4-c1") == ["b1"]
    b = pos(t="b1", T="c4", K="h8", turn="defenders")
    assert play(b, "c4-c1") == ["b1"]


def test_empty_throne_counts_as_a_capturing_piece() -> None:
    b = pos(t="d8", T="f7", K="c9")
    assert play(b, "d8-f8") == ["f7"]
    b = pos(t="f7", T="d8", K="c9", turn="defenders")
    assert play(b, "d8-f8") == ["f7"]


def test_occupied_throne_is_not_hostile_to_defenders() -> None:
    b = pos(t="d8", T="f7", K="f6")
    assert play(b, "d8-f8") == []


def test_king_helps_his_defenders_capture_as_partner_and_as_mover() -> None:
    b = pos(t="f7", T="d8", K="f6", turn="defenders")
    assert play(b, "d8-f8") == ["f7"], "the king on the throne is the partner"
    b = pos(t="d4", T="c4", K="e6", turn="defenders")
    assert play(b, "e6-e4") == ["d4"], "the king as the moving piece"


# ---------------------------------------------------------------- shieldwall
def test_shieldwall_captures_the_whole_row_when_an_end_is_closed() -> None:
    b = pos(t="d2 e2 f1 c5", T="d1 e1", K="h8")
    assert play(b, "c5-c1") == ["d1", "e1"]
    assert [a.kind for a in b.announcements()][:2] == ["shieldwall", "capture"]


def test_shieldwall_needs_a_piece_in_front_of_each() -> None:
    b = pos(t="d2 f1 c5", T="d1 e1", K="h8")
    assert play(b, "c5-c1") == []


def test_shieldwall_a_corner_closes_an_end() -> None:
    b = pos(t="b2 c2 d5", T="b1 c1", K="h8")
    assert play(b, "d5-d1") == ["b1", "c1"]


def test_shieldwall_spares_the_king_in_the_row() -> None:
    b = pos(t="d2 e2 f1 c5", T="d1", K="e1")
    assert play(b, "c5-c1") == ["d1"]
    assert b.piece_at(parse_square("e1", 11)) is Piece.KING


def test_shieldwall_only_the_closing_move_captures() -> None:
    b = pos(t="c1 f1 d2 e5", T="d1 e1", K="h8")
    assert play(b, "e5-e2") == [], "completing the front row does not capture"


def test_shieldwall_the_king_may_close_an_end() -> None:
    b = pos(t="d1 e1 a9", T="d2 e2 c1", K="f4", turn="defenders")
    assert play(b, "f4-f1") == ["d1", "e1"]


def test_single_piece_on_the_edge_is_not_a_shieldwall() -> None:
    b = pos(t="d2 c5", T="d1", K="h8")
    assert play(b, "c5-c1") == []


# ------------------------------------------------------------------ the king
def test_king_captured_on_four_sides() -> None:
    b = pos(t="d4 d6 c5 e8", K="d5")
    assert play(b, "e8-e5") == ["d5"]
    assert b.outcome() == Outcome(Side.ATTACKERS, "king_captured")


def test_king_not_captured_by_two() -> None:
    b = pos(t="d4 e8", K="d5", T="a9")
    assert play(b, "e8-e5") == []
    b = pos(t="d4 d8", K="d5", T="a9")
    assert play(b, "d8-d6") == []
    assert b.outcome() is None


def test_king_next_to_the_throne_is_captured_on_three_sides() -> None:
    b = pos(t="e5 e7 d9", K="e6")
    assert play(b, "d9-d6") == ["e6"]


def test_king_on_the_throne_needs_four() -> None:
    b = pos(t="f5 f7 e6 g9", K="f6")
    assert play(b, "g9-g6") == ["f6"]
    b = pos(t="f5 f7 g9", K="f6", T="a9")
    assert play(b, "g9-g6") == []


def test_king_cannot_be_captured_on_the_edge() -> None:
    b = pos(t="a4 a6 b9", K="a5", T="d9")
    assert play(b, "b9-b5") == []
    assert b.outcome() is None


# ----------------------------------------------------------- how games end
def test_king_reaching_a_corner_wins() -> None:
    b = pos(t="c3", K="a4", turn="defenders")
    play(b, "a4-a1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "king_escaped")
    assert b.legal_moves == []


def test_king_on_an_edge_square_is_not_a_win() -> None:
    b = pos(t="h3", K="c5", turn="defenders")
    play(b, "c5-c1")
    assert b.outcome() is None


FORT_WALL = "c1 d2 e2 f2 g4"


def test_edge_fort_wins_for_the_defenders() -> None:
    b = pos(t="b9 j9", T=FORT_WALL, K="e1", turn="defenders")
    play(b, "g4-g1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "edge_fort")
    kinds = [a.kind for a in b.announcements()]
    assert "edge_fort" in kinds and kinds[-1] == "game_end"


def test_edge_fort_needs_walls_that_can_never_be_captured() -> None:
    b = pos(t="b9 j9", T="c1 d2 e3 f2 g4", K="e1", turn="defenders")
    play(b, "g4-g1")
    assert b.outcome() is None, "e3 can be taken from d3 and f3"


# The king on a5 with room on b5 (CSV line 858): the wall piece c5 has no wall on c4 or
# c6, but the defender on c4, just outside the wall, is guarded by the walls b4 and c5.
FORT_858 = dict(t="c6 a7 a3 b2 j9", T="a4 a6 b4 b6 c5", K="b5", turn="defenders")


def test_edge_fort_wall_guarded_by_an_uncapturable_defender_outside_it() -> None:
    b = pos(**{**FORT_858, "T": FORT_858["T"] + " c4"})
    play(b, "b5-a5")
    assert b.outcome() == Outcome(Side.DEFENDERS, "edge_fort")


def test_edge_fort_not_without_the_guard_outside_the_wall() -> None:
    b = pos(**{**FORT_858, "T": FORT_858["T"] + " h4"})
    play(b, "b5-a5")
    assert b.outcome() is None, "c5 can be taken from c4 (c6 is an attacker)"


# A guard outside the wall that can itself be captured protects nothing. Next to a wall
# in play, such a guard is always flanked by two wall pieces; only a hostile square inside
# the fort (the empty throne) leaves it open, which takes more than 12 defenders: a
# set-up position. The corridor f1-f6 runs to the throne; wall f7 stands between the
# throne and its guard f8, and f8 can be taken from e8 and g8 unless e8 guards it.
THRONE_FORT = "e1 e2 e3 e4 e5 e6 g1 g2 g3 g4 g5 g6 f7 e7 g7 d6 d7 h6 h7 j8"


@pytest.mark.parametrize(("extra", "fort"), [("e8", True), ("", False)])
def test_edge_fort_not_when_the_guard_outside_can_be_captured(extra: str, fort: bool) -> None:
    b = pos(t="b10 k9", T=f"{THRONE_FORT} {extra}", K="f1", turn="defenders")
    play(b, "j8-f8")
    assert (b.outcome() == Outcome(Side.DEFENDERS, "edge_fort")) is fort
    assert fort or b.outcome() is None


def test_edge_fort_needs_a_king_that_can_move() -> None:
    b = pos(t="b9 j9", T="d1 e2 f4", K="e1", turn="defenders")
    play(b, "f4-f1")
    assert b.outcome() is None


def test_edge_fort_not_with_an_attacker_inside() -> None:
    b = pos(t="b9 j9 d1", T=FORT_WALL, K="e1", turn="defenders")
    play(b, "g4-g1")
    assert b.outcome() is None


def test_encirclement_wins_for_the_attackers() -> None:
    b = pos(t="f5 e6 g6 e7 g7 f10", T="f7", K="f6")
    play(b, "f10-f8")
    assert b.outcome() == Outcome(Side.ATTACKERS, "encirclement")


def test_no_encirclement_while_one_defender_can_reach_the_edge() -> None:
    b = pos(t="f5 e6 g6 e7 g7 f10", T="f7 c3", K="f6")
    play(b, "f10-f8")
    assert b.outcome() is None


def test_a_player_who_cannot_move_loses() -> None:
    b = pos(t="d1 f1 e5", K="e1")
    play(b, "e5-e2")
    assert b.generate_moves() == []
    assert b.outcome() == Outcome(Side.ATTACKERS, "no_moves")


def test_third_repetition_loses_for_the_defenders() -> None:
    b = pos(t="h8", K="d4")
    cycle = ["h8-h9", "d4-d5", "h9-h8", "d5-d4"]
    for text in cycle:
        play(b, text)
    assert b.repetitions() == 2
    assert "repetition_warning" in [a.kind for a in b.announcements()]
    for text in cycle[:3]:
        play(b, text)
        assert b.outcome() is None
    play(b, cycle[3])
    assert b.outcome() == Outcome(Side.ATTACKERS, "repetition")


def test_repetition_counts_the_side_to_move() -> None:
    b = pos(t="h8", K="d4")
    same_squares_other_side = Board.from_otn(V, b.position_otn(), turn="defenders")
    assert same_squares_other_side.zobrist_hash() != b.zobrist_hash()


@pytest.mark.parametrize("text", ["f2-f6", "a4-a1"])
def test_illegal_moves_are_refused_with_a_reason(text: str) -> None:
    b = Board(V)
    with pytest.raises(ValueError, match="illegal move"):
        b.parse_move(text)


def test_encirclement_found_after_a_remembered_escape_path_is_blocked() -> None:
    # A corridor up the f file: the first check remembers the path to f11.
    walls = "f5 e6 g6 e7 g7 e8 g8 e9 g9 e10 g10 d11 a3"
    b = pos(t=walls, T="f7", K="f6")
    play(b, "a3-a4")
    assert b.outcome() is None
    play(b, "f7-f8")
    play(b, "d11-f11")
    assert b.outcome() == Outcome(Side.ATTACKERS, "encirclement")
