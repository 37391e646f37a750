"""York options c (five-point card match) and d (two games, sides swapped, tie-break)."""
from __future__ import annotations

import random

import pytest

from engine import Board, Outcome, Side, parse_square
from engine.match import CARDS, EDGES, CardMatch, TwoGameMatch, edges_of
from engine.otn import build_position

WIN_D = Outcome(Side.DEFENDERS, "king_escaped")
WIN_A = Outcome(Side.ATTACKERS, "king_captured")
CARDS_1 = {"south": "A", "north": "2", "west": "3", "east": "4"}


def test_edges_of_squares_and_corners() -> None:
    assert edges_of(parse_square("f1", 11), 11) == ("south",)
    assert edges_of(parse_square("a6", 11), 11) == ("west",)
    assert edges_of(parse_square("k11", 11), 11) == ("north", "east")
    assert edges_of(parse_square("f6", 11), 11) == ()


def test_cards_are_hidden_from_the_defender_until_the_game_ends() -> None:
    m = CardMatch(("visitor", "robot"))
    assert m.attacker == "visitor" and m.defender == "robot"
    m.place_cards(CARDS_1)
    assert m.visible_cards("visitor") == CARDS_1
    assert set(m.visible_cards("robot").values()) == {None}
    rec = m.record_game(WIN_A, parse_square("f6", 11), 11)
    assert rec.cards == CARDS_1 and rec.points == 0


def test_defender_scores_the_card_of_the_exit_edge_and_sides_swap() -> None:
    m = CardMatch(("visitor", "robot"))
    m.place_cards(CARDS_1)
    rec = m.record_game(WIN_D, parse_square("k5", 11), 11)
    assert rec.points == 4 and rec.exit_edges == ("east",)
    assert m.scores == {"visitor": 0, "robot": 4}
    assert m.attacker == "robot" and m.defender == "visitor"
    assert not m.cards_placed


def test_corner_exit_scores_the_higher_card() -> None:
    m = CardMatch(("a", "b"))
    m.place_cards(CARDS_1)
    rec = m.record_game(WIN_D, parse_square("a1", 11), 11)   # south (A) and west (3)
    assert rec.points == 3 and set(rec.exit_edges) == {"south", "west"}


def test_attackers_win_scores_nothing_and_match_ends_at_five() -> None:
    m = CardMatch(("a", "b"))
    results = [(WIN_D, "k5"), (WIN_A, "f6"), (WIN_A, "f6"), (WIN_D, "a5"), (WIN_D, "f1")]
    for outcome, sq in results:
        assert not m.over
        m.place_cards(CARDS_1)
        m.record_game(outcome, parse_square(sq, 11), 11)
    # b defends games 1, 3, 5: 4 + 0 + 1 = 5; a defends games 2 and 4: 0 + 3.
    assert m.scores == {"a": 3, "b": 5}
    assert m.over and m.winner == "b"
    with pytest.raises(ValueError, match="over"):
        m.place_cards(CARDS_1)


def test_bad_card_placements_are_refused() -> None:
    m = CardMatch()
    with pytest.raises(ValueError, match="edges"):
        m.place_cards({"south": "A", "north": "2", "west": "3"})
    with pytest.raises(ValueError, match="one each"):
        m.place_cards({"south": "A", "north": "A", "west": "3", "east": "4"})
    m.place_cards(CardMatch.random_placement(random.Random(3)))
    with pytest.raises(ValueError, match="already placed"):
        m.place_cards(CARDS_1)
    with pytest.raises(ValueError, match="placed"):
        CardMatch().record_game(WIN_D, 0, 11)


def test_random_placement_uses_each_card_once() -> None:
    p = CardMatch.random_placement(random.Random(1))
    assert set(p) == set(EDGES) and sorted(p.values()) == sorted(CARDS)


def test_record_board_reads_a_finished_york_game() -> None:
    b = Board.from_otn("york", build_position(11, "h8", "", "c5"), turn="defenders")
    b.push(b.parse_move("c5-c1"))
    m = CardMatch(("a", "b"))
    m.place_cards(CARDS_1)
    assert m.record_board(b).points == 1


def test_two_game_match_more_wins_wins() -> None:
    m = TwoGameMatch(("visitor", "robot"))
    assert m.attacker == "visitor"
    m.record_game(Side.ATTACKERS, 40, {Side.ATTACKERS: 3, Side.DEFENDERS: 1})
    assert m.attacker == "robot" and m.defender == "visitor"
    m.record_game(Side.DEFENDERS, 60, {Side.ATTACKERS: 0, Side.DEFENDERS: 0})
    r = m.result()
    assert r.winner == "visitor" and r.decided_by == "games"


def test_two_game_match_tie_break_by_moves_fewer_is_better() -> None:
    m = TwoGameMatch(("a", "b"), tie_break="moves")
    m.record_game(Side.ATTACKERS, 50, {Side.ATTACKERS: 2, Side.DEFENDERS: 0})   # a wins in 50
    m.record_game(Side.ATTACKERS, 30, {Side.ATTACKERS: 1, Side.DEFENDERS: 5})   # b wins in 30
    r = m.result()
    assert r.winner == "b" and r.decided_by == "moves"


def test_two_game_match_tie_break_by_captures_more_is_better() -> None:
    m = TwoGameMatch(("a", "b"), tie_break="captures")
    m.record_game(Side.ATTACKERS, 50, {Side.ATTACKERS: 2, Side.DEFENDERS: 0})   # a 2, b 0
    m.record_game(Side.ATTACKERS, 30, {Side.ATTACKERS: 1, Side.DEFENDERS: 5})   # b 1, a 5
    r = m.result()
    assert r.winner == "a" and r.decided_by == "captures"


def test_two_game_match_all_equal_is_a_tie_and_needs_two_games() -> None:
    m = TwoGameMatch(("a", "b"))
    with pytest.raises(ValueError, match="two games"):
        m.result()
    m.record_game(None, 100, {Side.ATTACKERS: 0, Side.DEFENDERS: 0})
    m.record_game(None, 100, {Side.ATTACKERS: 0, Side.DEFENDERS: 0})
    assert m.result().winner is None
    with pytest.raises(ValueError, match="already played"):
        m.record_game(None, 1, {})
    with pytest.raises(ValueError, match="tie_break"):
        TwoGameMatch(tie_break="coin")


def test_two_game_match_record_board_counts_captures() -> None:
    b = Board.from_otn("york", build_position(11, "a3 c9", "b3", "h8"))
    b.push(b.parse_move("c9-c3"))
    m = TwoGameMatch(("a", "b"))
    rec = m.record_board(b)
    assert rec.captured_by == {Side.ATTACKERS: 1, Side.DEFENDERS: 0} and rec.plies == 1
