"""York / David Brown (docs/rule-texts/york-brown.txt): rules 1-11 and options a and b."""
from __future__ import annotations

import pytest

from engine import Board, Outcome, Piece, Side, parse_square

from engine_helpers import legal, play, position_maker
from engine.rules import HNEFATAFL_START

V = "york"
pos = position_maker(V, 11, "f6")


def test_rules_1_2_5_layout_and_attackers_first() -> None:
    b = Board(V)
    values = list(b.pieces().values())
    assert values.count(Piece.ATTACKER) == 24 and values.count(Piece.DEFENDER) == 12
    assert b.position_otn() == HNEFATAFL_START
    assert b.turn is Side.ATTACKERS


def test_rule_3_king_boxed_in_on_four_sides_loses() -> None:
    b = pos(t="d4 d6 c5 e8", K="d5")
    assert play(b, "e8-e5") == ["d5"]
    assert b.outcome() == Outcome(Side.ATTACKERS, "king_captured")


def test_rule_3_a_defender_on_the_fourth_side_saves_the_king() -> None:
    b = pos(t="d4 d6 h8", T="e5", K="d5")
    assert play(b, "h8-c8") == []
    assert b.outcome() is None
    b = pos(t="d4 c5 a6", T="e5", K="d5")
    assert play(b, "a6-d6") == []


def test_rule_3_king_stepping_into_a_box_is_not_captured_by_his_own_move() -> None:
    b = pos(t="c4 c6 b5 h8", K="e5", turn="defenders")
    play(b, "e5-c5")
    assert b.outcome() is None
    assert play(b, "h8-h5") == []
    b2 = pos(t="c4 c6 b5 d8", K="c5", turn="attackers")
    assert play(b2, "d8-d5") == ["c5"]


def test_rule_3_two_attackers_do_not_capture_the_king() -> None:
    b = pos(t="d4 d8", K="d5", T="a9")
    assert play(b, "d8-d6") == []


def test_rule_4_king_wins_on_any_edge_square() -> None:
    b = pos(t="h8", K="c5", turn="defenders")
    play(b, "c5-c1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "king_escaped")


def test_rule_6_moves_along_ranks_and_files_without_jumping() -> None:
    b = pos(t="c3 c6", T="e3", K="h8")
    assert legal(b, "c3-c5") and not legal(b, "c3-d4") and not legal(b, "c3-c7")


def test_rule_7_only_the_king_lands_on_the_central_square() -> None:
    b = pos(t="f9", T="d6", K="h8")
    assert not legal(b, "f9-f6")
    assert legal(b, "f9-f2"), "passing over the empty centre is allowed"
    b = pos(t="a9", T="d6", K="f8", turn="defenders")
    assert not legal(b, "d6-f6")
    assert legal(b, "f8-f6")


def test_rule_8_custodial_capture_and_safe_entry() -> None:
    b = pos(t="a3 c5", T="b3", K="h8")
    assert play(b, "c5-c3") == ["b3"]
    b = pos(t="a3 c3", T="b5", K="h8", turn="defenders")
    assert play(b, "b5-b3") == []


def test_rule_8_no_hostile_squares_in_the_basic_game() -> None:
    b = pos(t="c4", T="b1", K="h8")
    assert play(b, "c4-c1") == [], "a corner is an ordinary square without option b"
    b = pos(t="d8", T="f7", K="c9")
    assert play(b, "d8-f8") == [], "the empty centre does not capture"


def test_rule_9_surrounding_the_king_and_all_defenders_wins() -> None:
    b = pos(t="f5 e6 g6 e7 g7 f10", T="f7", K="f6")
    play(b, "f10-f8")
    assert b.outcome() == Outcome(Side.ATTACKERS, "encirclement")
    b = pos(t="f5 e6 g6 e7 g7 f10", T="f7 b3", K="f6")
    play(b, "f10-f8")
    assert b.outcome() is None


def test_rule_10_defender_sandwiched_against_a_boxed_king() -> None:
    b = pos(t="d4 d6 c5 h5", T="e5", K="d5")
    assert play(b, "h5-f5") == ["e5"]
    assert b.piece_at(parse_square("d5", 11)) is Piece.KING, "the king is not yet taken"


def test_rule_10_needs_three_attackers_around_the_king() -> None:
    b = pos(t="d4 d6 h5", T="e5", K="d5")
    assert play(b, "h5-f5") == []


def test_rule_11_central_square_is_the_fourth_side() -> None:
    b = pos(t="e5 e7 d9", K="e6")
    assert play(b, "d9-d6") == ["e6"]


def test_option_a_unarmed_king_by_default() -> None:
    b = pos(t="d4", T="c4", K="e6", turn="defenders")
    assert play(b, "e6-e4") == []
    b = pos(t="d4", T="c6", K="e4", turn="defenders")
    assert play(b, "c6-c4") == []


def test_option_a_armed_king_captures_as_mover_and_partner() -> None:
    b = pos(t="d4", T="c4", K="e6", turn="defenders", king_armed="yes")
    assert play(b, "e6-e4") == ["d4"]
    b = pos(t="d4", T="c6", K="e4", turn="defenders", king_armed="yes")
    assert play(b, "c6-c4") == ["d4"]


def test_option_a_hammer_king_captures_only_as_the_moving_piece() -> None:
    b = pos(t="d4", T="c4", K="e6", turn="defenders", king_armed="hammer")
    assert play(b, "e6-e4") == ["d4"]
    b = pos(t="d4", T="c6", K="e4", turn="defenders", king_armed="hammer")
    assert play(b, "c6-c4") == []


def test_option_b_only_corners_win() -> None:
    b = pos(t="h8", K="c5", turn="defenders", corner_escape="true")
    play(b, "c5-c1")
    assert b.outcome() is None
    play(b, "h8-h9")
    play(b, "c1-a1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "king_escaped")


def test_option_b_corners_closed_to_other_pieces() -> None:
    b = pos(t="a5", T="d1", K="h8", corner_escape="true")
    assert not legal(b, "a5-a1")
    b = pos(t="a5", T="d1", K="h8", turn="defenders", corner_escape="true")
    assert not legal(b, "d1-a1")
    b = pos(t="a5", T="d1", K="h8", corner_escape="false")
    assert legal(b, "a5-a1")


def test_option_b_corner_captures_an_attacker_with_a_single_defender() -> None:
    b = pos(t="b1", T="c4", K="h8", turn="defenders", corner_escape="true")
    assert play(b, "c4-c1") == ["b1"]


def test_option_b_corner_is_not_hostile_to_defenders() -> None:
    b = pos(t="c4", T="b1", K="h8", corner_escape="true")
    assert play(b, "c4-c1") == []


def test_option_b_king_on_an_edge_cannot_be_captured() -> None:
    b = pos(t="a4 a6 c5", K="a5", T="h8", corner_escape="true")
    assert play(b, "c5-b5") == []
    assert b.outcome() is None


def test_options_a_and_b_king_is_the_single_defender_of_a_corner_capture() -> None:
    b = pos(t="b1", T="h8", K="c4", turn="defenders", corner_escape="true", king_armed="hammer")
    assert play(b, "c4-c1") == ["b1"]
    b = pos(t="b1", T="h8", K="c4", turn="defenders", corner_escape="true", king_armed="no")
    assert play(b, "c4-c1") == []


@pytest.mark.parametrize("options, message", [
    ({"king_armed": "maybe"}, "bad value"),
    ({"corner_escape": "sometimes"}, "bad value"),
    ({"throne_restricted": "true"}, "unknown option"),
])
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Board(V, options)
