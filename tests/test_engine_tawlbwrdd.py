"""Throw Board / tawlbwrdd (docs/rule-texts/throw-board.txt): rules 1-6, variations 1-5, layouts."""
from __future__ import annotations

import pytest

from engine import Board, Outcome, Piece, Side, parse_square

from engine_helpers import legal, play, position_maker

V = "tawlbwrdd"
pos = position_maker(V, 11, "f6")


@pytest.mark.parametrize("layout", ["bell", "lewis"])
def test_rule_1_layouts_and_the_kings_side_moves_first(layout: str) -> None:
    b = Board(V, {"layout": layout})
    values = list(b.pieces().values())
    assert values.count(Piece.ATTACKER) == 24 and values.count(Piece.DEFENDER) == 12
    assert b.piece_at(parse_square("f6", 11)) is Piece.KING
    assert b.turn is Side.DEFENDERS
    assert all(b.piece_at(m.from_sq) in (Piece.DEFENDER, Piece.KING) for m in b.legal_moves)


def test_bell_and_lewis_layouts_differ_as_documented() -> None:
    bell = Board(V).pieces()
    lewis = Board(V, {"layout": "lewis"}).pieces()
    assert bell[parse_square("f3", 11)] is Piece.ATTACKER and lewis[parse_square("f3", 11)] is Piece.DEFENDER
    assert bell[parse_square("e5", 11)] is Piece.DEFENDER and parse_square("e5", 11) not in lewis
    assert lewis[parse_square("c6", 11)] is Piece.DEFENDER and bell[parse_square("c6", 11)] is Piece.ATTACKER


def test_rule_2_straight_lines_only_thagonally_means_orthogonally() -> None:
    b = pos(t="a9", T="c3", K="h8", turn="defenders")
    assert legal(b, "c3-c7") and legal(b, "c3-j3")
    assert not legal(b, "c3-d4") and not legal(b, "c3-e5")


def test_rule_3_custodial_capture() -> None:
    b = pos(t="a3 c5", T="b3", K="h8")
    assert play(b, "c5-c3") == ["b3"]


def test_rule_4_passing_between_two_enemies_is_safe() -> None:
    b = pos(t="b4 d4 a9", T="c2", K="h8", turn="defenders")
    assert play(b, "c2-c6") == []
    assert b.piece_at(parse_square("c6", 11)) is Piece.DEFENDER


def test_rule_4_stopping_between_two_enemies_is_fatal() -> None:
    b = pos(t="b4 d4 a9", T="c2", K="h8", turn="defenders")
    assert play(b, "c2-c4") == ["c4"]
    assert b.piece_at(parse_square("c4", 11)) is None
    notes = [a for a in b.announcements() if a.kind == "capture"]
    assert notes and notes[0].side is Side.ATTACKERS
    assert b.captured_counts() == {Side.ATTACKERS: 1, Side.DEFENDERS: 0}
    b.pop()
    assert b.piece_at(parse_square("c2", 11)) is Piece.DEFENDER and b.piece_at(parse_square("c4", 11)) is None


def test_rule_4_an_attacker_dies_the_same_way() -> None:
    b = pos(t="c8", T="b4 d4", K="h8")
    assert play(b, "c8-c4") == ["c4"]


def test_rule_4_own_captures_come_first() -> None:
    b = pos(t="f4 d8", T="c4 e4", K="h8")
    assert play(b, "d8-d4") == ["e4"], "d4 takes e4 (with f4), then no longer stands between two"
    assert b.piece_at(parse_square("d4", 11)) is Piece.ATTACKER


def test_rule_5_the_king_may_rest_between_two_enemies() -> None:
    b = pos(t="b4 d4 a9", T="h8", K="c2", turn="defenders")
    assert play(b, "c2-c4") == []
    assert b.piece_at(parse_square("c4", 11)) is Piece.KING
    assert "resting" in [a.kind for a in b.announcements()]


def test_rule_6_king_wins_on_any_edge_and_loses_when_captured() -> None:
    b = pos(t="h8", K="c5", turn="defenders")
    play(b, "c5-c1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "king_escaped")
    b = pos(t="c4 e8", K="d4", T="h8")
    assert play(b, "e8-e4") == ["d4"], "the king falls to two, like any piece"
    assert b.outcome() == Outcome(Side.ATTACKERS, "king_captured")


def test_variation_1_throne_only_for_the_king() -> None:
    b = pos(t="a9", T="f8", K="h8", turn="defenders", throne_restricted="true")
    assert not legal(b, "f8-f6") and legal(b, "f8-f2")
    b = pos(t="a9", T="f8", K="h8", turn="defenders")
    assert legal(b, "f8-f6"), "without the variation anyone may stop on the throne"


def test_variation_2_corners_only_for_the_king() -> None:
    b = pos(t="a5", T="h8", K="c7", corners_king_only="true")
    assert not legal(b, "a5-a1")
    b = pos(t="a5", T="h8", K="c7")
    assert legal(b, "a5-a1")


def test_variation_3_corner_acts_as_an_enemy_piece() -> None:
    b = pos(t="b1", T="c4", K="h8", turn="defenders", corners_hostile="true")
    assert play(b, "c4-c1") == ["b1"]
    b = pos(t="c4", T="b1", K="h8", corners_hostile="true")
    assert play(b, "c4-c1") == ["b1"]
    b = pos(t="c4", T="b1", K="h8")
    assert play(b, "c4-c1") == []


def test_variation_3_with_rule_4_stopping_next_to_a_corner_and_an_enemy_is_fatal() -> None:
    b = pos(t="b5", T="c1", K="h8", corners_hostile="true")
    assert play(b, "b5-b1") == ["b1"]
    b = pos(t="b5", T="c1", K="h8")
    assert play(b, "b5-b1") == []


def test_variation_4_king_captured_on_four_sides_or_three_and_the_throne() -> None:
    b = pos(t="c4 e8", K="d4", T="h8", king_four_sided="true")
    assert play(b, "e8-e4") == []
    b = pos(t="d3 d5 c4 e8", K="d4", T="h8", king_four_sided="true")
    assert play(b, "e8-e4") == ["d4"]
    b = pos(t="e5 e7 d9", K="e6", T="h8", king_four_sided="true")
    assert play(b, "d9-d6") == ["e6"]


def test_variation_5_only_corners_win() -> None:
    b = pos(t="h8", K="c5", turn="defenders", corner_escape="true")
    play(b, "c5-c1")
    assert b.outcome() is None
    play(b, "h8-h9")
    play(b, "c1-a1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "king_escaped")


def test_variations_4_and_5_king_on_an_edge_cannot_be_captured() -> None:
    b = pos(t="a4 a6 c5", K="a5", T="h8", king_four_sided="true", corner_escape="true")
    assert play(b, "c5-b5") == []
    b = pos(t="a4 c6", K="a5", T="h8", corner_escape="true")
    assert play(b, "c6-a6") == ["a5"], "base rule: two on the edge line take him"


def test_third_repetition_is_a_draw() -> None:
    b = pos(t="h3", T="c8", K="c6", turn="defenders")
    cycle = ["c8-d8", "h3-h4", "d8-c8", "h4-h3"]
    for text in cycle * 2:
        play(b, text)
    assert b.outcome() == Outcome(None, "repetition")
