"""York match formats as the screens keep them (scoring itself is the engine's, engine/match.py)."""
import random
from dataclasses import replace

import pytest

from engine import Board, Outcome, Side
from kiosk.ui.match import Match
from kiosk.ui.screenshots import game_view


def finished(board, winner, reason, captured=None):
    return replace(game_view(0), variant="york", board=board, state="game_over",
                   outcome=Outcome(winner, reason), captured=captured or {"attackers": 0, "defenders": 0})


def played(plies):
    board = Board("york")
    for _ in range(plies):
        board.push(board.legal_moves[0])
    return board


def test_two_game_match_swaps_sides_and_breaks_a_tie_by_the_quicker_win():
    match = Match.new("two_game", "york", Side.ATTACKERS)
    assert match.visitor_side() == "attackers"
    match.record(finished(played(6), Side.ATTACKERS, "king_captured"))            # visitor wins in 6 plies
    match.record(finished(played(6), Side.ATTACKERS, "king_captured"))            # recorded once only
    assert match.scores() == (1, 0) and not match.over
    match.next_game()
    assert match.visitor_side() == "defenders"
    match.record(finished(played(10), Side.ATTACKERS, "king_captured"))           # robot wins in 10
    assert match.over and match.scores() == (1, 1)
    assert match.winner() == "visitor"


def test_card_match_scores_the_higher_card_at_a_corner():
    match = Match.new("five_point", "york", Side.DEFENDERS, random.Random(3))
    cards = dict(match.cards.visible_cards("robot"))                             # the robot attacks: its cards
    assert sorted(cards.values()) == ["2", "3", "4", "A"]
    assert set(match.cards.visible_cards("visitor").values()) == {None}         # hidden from the defender
    corner = Board.from_otn("york", "/" + "/".join(["11"] * 9 + ["1t9", "K10"]) + "/", turn=Side.ATTACKERS)
    match.record(finished(corner, Side.DEFENDERS, "king_escaped"))
    best = max({"A": 1, "2": 2, "3": 3, "4": 4}[cards[e]] for e in ("north", "west"))
    assert match.scores() == (best, 0)
    assert set(match.last_exit_edges) == {"north", "west"}
    match.next_game()
    assert match.visitor_side() == "attackers"
    assert match.cards.cards_placed


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown match format 'three'"):
        Match.new("three", "york", Side.ATTACKERS)
