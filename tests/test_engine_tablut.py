"""Tablut (docs/rule-texts/tablut.txt): rules 1-13, castle, camps, raichi/tuichu, eternity."""
from __future__ import annotations

from engine import Board, Move, Outcome, Piece, Side, parse_square, square_name

from engine_helpers import legal, play, position_maker, why

V = "tablut"
pos = position_maker(V, 9, "e5")


def test_rules_1_to_4_pieces_board_layout_and_swedes_first() -> None:
    b = Board(V)
    assert b.size == 9
    values = list(b.pieces().values())
    assert values.count(Piece.ATTACKER) == 16
    assert values.count(Piece.DEFENDER) == 8 and values.count(Piece.KING) == 1
    assert b.piece_at(parse_square("e5", 9)) is Piece.KING
    camps = {square_name(s, 9) for camp in b.rules.camps for s in camp}
    assert camps == {n for n, p in ((square_name(s, 9), p) for s, p in b.pieces().items())
                     if p is Piece.ATTACKER}, "the muscovites start on the 16 camp squares"
    for guard in ("e3", "e4", "e6", "e7", "c5", "d5", "f5", "g5"):
        assert b.piece_at(parse_square(guard, 9)) is Piece.DEFENDER
    assert b.turn is Side.DEFENDERS


def test_rule_5_rook_moves_only() -> None:
    b = pos(t="a1", T="c3", K="g7", turn="defenders")
    assert legal(b, "c3-c2") and not legal(b, "c3-d4")


def test_rules_6_7_custodial_capture_and_safe_entry() -> None:
    b = pos(t="b3 d7", T="c3", K="g7")
    assert play(b, "d7-d3") == ["c3"]
    b = pos(t="b3 d3", T="c7", K="g7", turn="defenders")
    assert play(b, "c7-c3") == []


def test_rule_8_king_needs_four_sides() -> None:
    b = pos(t="c2 c4 b3 d7", K="c3")
    assert play(b, "d7-d3") == ["c3"]
    assert b.outcome() == Outcome(Side.ATTACKERS, "king_captured")
    b = pos(t="c2 g4", K="c3", T="h8")
    assert play(b, "g4-c4") == []


def test_rule_9_king_on_the_edge_wins_and_raichi_is_announced() -> None:
    b = pos(t="a8 h7", T="c6 b3 d3", K="c5", turn="defenders")
    play(b, "c5-c3")
    kinds = [a.kind for a in b.announcements()]
    assert "raichi" in kinds
    raichi = next(a for a in b.announcements() if a.kind == "raichi")
    assert [square_name(s, 9) for s in raichi.squares] == ["c1"]
    play(b, "h7-h8")
    play(b, "c3-c1")
    assert b.outcome() == Outcome(Side.DEFENDERS, "king_escaped")


def test_rule_10_two_paths_is_tuichu() -> None:
    b = pos(t="a8 h8", K="c7", turn="defenders")
    play(b, "c7-c3")
    tuichu = [a for a in b.announcements() if a.kind == "tuichu"]
    assert tuichu and sorted(square_name(s, 9) for s in tuichu[0].squares) == ["a3", "c1", "c9", "i3"]


def test_rule_11_only_the_king_in_the_castle_and_nobody_passes_it() -> None:
    b = pos(t="a8", T="e3", K="g7", turn="defenders")
    assert not legal(b, "e3-e5")
    assert not legal(b, "e3-e7"), "passes the castle"
    b = pos(t="a8", T="h8", K="e4", turn="defenders")
    assert "castle" in (why(b, "e4-e5") or ""), "the king may not return"
    b = pos(t="a8 c5", T="h8", K="e3")
    assert not legal(b, "c5-g5")


def test_rule_11_camps_are_off_limits_and_the_king_cannot_escape_through_them() -> None:
    b = pos(t="a8", T="c1", K="e3", turn="defenders")
    assert "camp" in (why(b, "c1-d1") or "")
    assert not legal(b, "e3-e1"), "e2 is a camp square"
    b = pos(t="a8", T="h8", K="d3", turn="defenders")
    assert not legal(b, "d3-d1")


def test_rule_11_muscovite_in_his_camp_attacks_a_guard() -> None:
    b = pos(t="d1 h1", T="g1", K="c7")
    assert play(b, "d1-f1") == ["g1"], "moving within the camp"
    b = pos(t="f1 h4", T="g1", K="c7")
    assert play(b, "h4-h1") == ["g1"], "as the stationary partner"


def test_rule_11_muscovite_on_the_protruding_camp_square_can_be_defeated() -> None:
    b = pos(t="e2 a8", T="d2 f4", K="c7", turn="defenders")
    assert play(b, "f4-f2") == ["e2"]


def test_rule_11_castle_and_camps_are_hostile_to_the_king_only() -> None:
    b = pos(t="d4 f4 g3", K="e4")
    assert play(b, "g3-e3") == ["e4"], "three muscovites and the castle"
    b = pos(t="c2 c7", K="d2", T="h8")
    assert play(b, "c7-d7") == [] and b.outcome() is None
    b = pos(t="c2 a3", K="d2", T="h8")
    assert play(b, "a3-d3") == ["d2"], "two muscovites and two camp squares"
    b = pos(t="g3", T="e4", K="c7")
    assert play(b, "g3-e3") == [], "the castle is not hostile to a guard"
    b = pos(t="b4", T="c1", K="c7")
    assert play(b, "b4-b1") == [], "an empty camp square is not hostile to a guard"


def test_rule_12_muscovite_moves_within_and_out_of_his_camp_but_never_back() -> None:
    b = pos(t="d1", T="h8", K="c7")
    assert legal(b, "d1-e1") and legal(b, "d1-f1"), "within the camp"
    assert legal(b, "d1-g1"), "passing his own camp squares while leaving"
    assert legal(b, "d1-d8")
    assert not legal(b, "d1-d9"), "into another camp"
    b = pos(t="d3", T="h8", K="c7")
    assert not legal(b, "d3-d1"), "no return once he has left"
    b = pos(t="e3", T="h8", K="c7")
    assert not legal(b, "e3-e1"), "nor pass through a camp square"


def test_rule_12_king_is_armed() -> None:
    b = pos(t="c4", T="c5", K="e3", turn="defenders")
    assert play(b, "e3-c3") == ["c4"]


def _eternity_board() -> Board:
    # The text's example: the king threatens an exit on the c file (from c7)
    # or the g file (from g7); one muscovite blocks on c3 or g3.
    return pos(t="c3", T="c8 b7 g8 h7", K="c7", turn="defenders")


CYCLE = ["c7-g7", "c3-g3", "g7-c7", "g3-c3"]


def test_rule_13_offensive_swede_must_vary_after_repeats() -> None:
    b = _eternity_board()
    for text in CYCLE + CYCLE:
        play(b, text)
    assert b.outcome() is None
    assert "eternity" in (why(b, "c7-g7") or "")
    assert Move(parse_square("c7", 9), parse_square("g7", 9)) not in b.legal_moves
    assert legal(b, "c7-d7")


def test_rule_13_the_blocking_muscovite_is_not_the_offensive_player() -> None:
    b = _eternity_board()
    for text in CYCLE + CYCLE[:3]:
        play(b, text)
    assert legal(b, "g3-c3"), "blocking a third time is allowed"


def test_rule_13_repetition_without_a_threat_stays_legal() -> None:
    b = pos(t="a2", T="g8 h7 h9 i8 b8", K="h8", turn="defenders")
    for text in ["b8-b9", "a2-a3", "b9-b8", "a3-a2"] * 2:
        play(b, text)
    assert legal(b, "b8-b9")


def test_rule_7_moved_in_pawn_is_taken_by_moving_a_flanker_away_and_back() -> None:
    b = pos(t="b3 d3 h8", T="c7", K="g7", turn="defenders")
    assert play(b, "c7-c3") == []
    assert play(b, "d3-d4") == []
    play(b, "g7-g6")
    assert play(b, "d4-d3") == ["c3"]


def test_question_6_king_stepping_between_muscovites_is_not_captured() -> None:
    b = pos(t="c2 c4 b3 h8", K="g3", T="d7", turn="defenders")
    play(b, "g3-c3")
    assert b.outcome() is None and b.king_square == parse_square("c3", 9)
    assert [m.otn(9) for m in b.king_capture_threats()] == []
