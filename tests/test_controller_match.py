"""York match formats (options c and d), kept by the controller and journalled: a power cut in the
middle of a match keeps the cards laid and the score (scoring itself is the engine's)."""
import random

import pytest

from engine import Board, Outcome, Side
from kiosk.match import Match, MatchError
from tests.helpers.fakes import WorldGantry
from tests.helpers.rig import Rig


def played(plies):
    board = Board("york")
    for _ in range(plies):
        board.push(board.legal_moves[0])
    return board


def test_two_game_match_swaps_sides_and_breaks_a_tie_by_the_quicker_win():
    match = Match.new("two_game", "york", Side.ATTACKERS)
    assert match.visitor_side() == Side.ATTACKERS
    assert match.record(played(6), Outcome(Side.ATTACKERS, "king_captured"))       # visitor wins in 6 plies
    assert not match.record(played(6), Outcome(Side.ATTACKERS, "king_captured"))   # recorded once only
    assert match.scores() == (1, 0) and not match.over
    match.next_game()
    assert match.visitor_side() == Side.DEFENDERS
    match.record(played(10), Outcome(Side.ATTACKERS, "king_captured"))             # robot wins in 10
    assert match.over and match.scores() == (1, 1)
    assert match.winner() == "visitor"
    again = Match.from_json(match.to_json())
    assert again.over and again.scores() == (1, 1) and again.winner() == "visitor"


def test_card_match_scores_the_higher_card_at_a_corner_and_reads_back():
    match = Match.new("five_point", "york", Side.DEFENDERS, random.Random(3))
    cards = dict(match.cards.visible_cards("robot"))                             # the robot attacks: its cards
    assert sorted(cards.values()) == ["2", "3", "4", "A"]
    assert set(match.cards.visible_cards("visitor").values()) == {None}         # hidden from the defender
    assert Match.from_json(match.to_json()).cards.visible_cards("robot") == cards
    corner = Board.from_otn("york", "/" + "/".join(["11"] * 9 + ["1t9", "K10"]) + "/", turn=Side.ATTACKERS)
    match.record(corner, Outcome(Side.DEFENDERS, "king_escaped"))
    best = max({"A": 1, "2": 2, "3": 3, "4": 4}[cards[e]] for e in ("north", "west"))
    assert match.scores() == (best, 0)
    assert set(match.last_exit_edges) == {"north", "west"}
    again = Match.from_json(match.to_json())
    assert again.scores() == (best, 0) and again.last_cards == match.last_cards
    assert again.visitor_side() == Side.ATTACKERS and not again.cards.cards_placed
    match.next_game()
    assert match.visitor_side() == Side.ATTACKERS
    assert match.cards.cards_placed


def test_unknown_format_is_refused_and_a_bad_journalled_match_is_named():
    with pytest.raises(ValueError, match="unknown match format 'three'"):
        Match.new("three", "york", Side.ATTACKERS)
    data = Match.new("five_point", "york", Side.ATTACKERS).to_json()
    data["cards"]["placed"] = {"north": "A", "south": "A", "east": "3", "west": "4"}
    with pytest.raises(MatchError, match="cannot be read back"):
        Match.from_json(data)


def power_cut(rig: Rig):
    """The controller and the gantry's queue vanish; the table and the state directory stay."""
    rig.gantry = WorldGantry(rig.world)
    rig.ctrl = rig.make()
    return rig.ctrl


def test_a_card_match_survives_power_cuts_in_a_game_after_a_game_and_in_the_next_game(tmp_path):
    rig = Rig(tmp_path, variant="york", seed=3)
    rig.ctrl.start_game("york", {}, Side.DEFENDERS, "easy", "five_point")
    rig.run_until({"visitor_turn"})
    cards = rig.ctrl.match.cards.visible_cards("robot")
    rig.visitor_random_move()
    ctrl = power_cut(rig)                                        # killed in the middle of game 1
    assert ctrl.view().resumed and ctrl.view().match is ctrl.match
    assert ctrl.match.format == "five_point" and ctrl.match.cards.visible_cards("robot") == cards
    rig.run_until({"visitor_turn"})
    ctrl.resign()                                                # the robot wins game 1: no card scores
    assert ctrl.match.recorded == 1 and ctrl.match.cards.attacker == "visitor"
    ctrl = power_cut(rig)                                        # killed while the result shows
    assert ctrl.view().state == "game_over"
    assert ctrl.match.recorded == 1 and ctrl.match.scores() == (0, 0) and ctrl.match.last_cards == cards
    assert ctrl.match.visitor_side() == Side.ATTACKERS and not ctrl.match.over
    ctrl.start_game("york", {}, Side.DEFENDERS, "easy", "next")   # the match decides the side
    assert ctrl.session.visitor_side == Side.ATTACKERS
    second = ctrl.match.cards.visible_cards("visitor")
    assert sorted(second.values()) == ["2", "3", "4", "A"]
    rig.run_until({"visitor_turn"})
    ctrl = power_cut(rig)                                        # killed in the middle of game 2
    assert ctrl.match.started == 2 and ctrl.match.recorded == 1
    assert ctrl.match.cards.visible_cards("visitor") == second and ctrl.session.visitor_side == Side.ATTACKERS


def test_a_two_game_match_is_decided_after_a_power_cut_between_its_games(tmp_path):
    rig = Rig(tmp_path, variant="york", seed=4)
    rig.ctrl.start_game("york", {}, Side.DEFENDERS, "easy", "two_game")
    rig.run_until({"visitor_turn"})
    rig.ctrl.resign()
    ctrl = power_cut(rig)
    assert ctrl.match.scores() == (0, 1) and not ctrl.match.over
    ctrl.start_game("york", {}, Side.DEFENDERS, "easy", "next")
    assert ctrl.session.visitor_side == Side.ATTACKERS
    rig.run_until({"visitor_turn"})
    ctrl.resign()
    ctrl = power_cut(rig)
    assert ctrl.match.over and ctrl.match.scores() == (0, 2) and ctrl.match.winner() == "robot"
    with pytest.raises(ValueError, match="no match under way"):
        ctrl.start_game("york", {}, Side.DEFENDERS, "easy", "next")
    ctrl.start_game("york", {}, Side.DEFENDERS, "easy")           # a new visitor: a single game
    assert ctrl.match is None and ctrl.view().match is None
