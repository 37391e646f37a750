"""The rule options a host's record can ask for (OpenTafl's tfr, sw, swf), played by the Board itself.

The kiosk plays the user's texts (the first value of each option); these
options exist so that `tafl-engine otep` plays what OpenTafl referees, and
the Board's own outcome() agrees with the host (docs/rules.md, "Rule options
for hosts"). Positions are built square by square, as in test_engine_copenhagen.
"""
from __future__ import annotations

import pytest

from engine import Board, Outcome, Side
from engine.rules import VARIANTS, rules_for
from tests.helpers.rules import play, position_maker

pos = position_maker("copenhagen", 11, "f6")

#: attackers shuffle a piece, defenders shuffle one: the position after the attackers'
#: first move comes up a third time on ply 9, made by the attackers.
SHUFFLE = ("a4-b4",) + ("e5-e4", "b4-b3", "e4-e5", "b3-b4") * 2
#: the same shuffle from the start: the start position comes up a third time on ply 8,
#: made by the defenders.
SHUFFLE_FROM_START = ("a4-b4", "e5-e4", "b4-a4", "e4-e5") * 2


def _shuffled(**options: str) -> Board:
    board = Board("copenhagen", options)
    for mv in SHUFFLE[:-1]:
        board.push(board.parse_move(mv))
        assert board.outcome() is None
    board.push(board.parse_move(SHUFFLE[-1]))
    assert board.repetitions() == 3
    return board


@pytest.mark.parametrize("rule, outcome", [
    ("defenders_lose", Outcome(Side.ATTACKERS, "repetition")),     # the user's text: whoever repeats
    ("mover_loses", Outcome(Side.DEFENDERS, "repetition")),        # tfr:w: the side to move now wins
    ("mover_wins", Outcome(Side.ATTACKERS, "repetition")),         # tfr:l
    ("draw", Outcome(None, "repetition")),                         # tfr:d
    ("ignored", None),                                             # tfr:i: play on
])
def test_third_repetition_made_by_the_attackers(rule: str, outcome: Outcome | None) -> None:
    board = _shuffled(repetition=rule)
    assert board.outcome() == outcome
    assert board.game_end == outcome        # the search reads this one
    if outcome is None:
        assert board.legal_moves
        kinds = [a.kind for a in board.announcements()]
        assert "repetition_warning" not in kinds


def test_mover_loses_when_the_defenders_repeat() -> None:
    board = Board("copenhagen", {"repetition": "mover_loses"})
    for mv in SHUFFLE_FROM_START:
        board.push(board.parse_move(mv))
    assert board.repetitions() == 3
    assert board.outcome() == Outcome(Side.ATTACKERS, "repetition")


def test_the_kiosk_default_is_the_users_text() -> None:
    rules = rules_for("copenhagen")
    assert (rules.repetition, rules.shieldwall, rules.shieldwall_corners, rules.shieldwall_flank_only) \
        == ("defenders_lose", True, True, True)
    assert rules_for("tablut").repetition == "forbidden"
    assert rules_for("york").repetition == "draw"
    for spec in VARIANTS.values():
        assert spec.option("repetition") is not None
    with pytest.raises(ValueError, match="repetition"):
        rules_for("york", {"repetition": "defenders_lose"})


def test_weak_shieldwall_needs_a_piece_at_both_ends() -> None:
    strong = pos(t="b2 c2 d5", T="b1 c1", K="h8")
    assert play(strong, "d5-d1") == ["b1", "c1"]
    weak = pos(t="b2 c2 d5", T="b1 c1", K="h8", shieldwall="weak")
    assert play(weak, "d5-d1") == []
    pieces = pos(t="d2 e2 f1 c5", T="d1 e1", K="h8", shieldwall="weak")   # pieces at both ends
    assert play(pieces, "c5-c1") == ["d1", "e1"]


def test_no_shieldwall() -> None:
    b = pos(t="d2 e2 f1 c5", T="d1 e1", K="h8", shieldwall="none")
    assert play(b, "c5-c1") == []


def test_without_flanking_any_move_that_leaves_the_row_closed_captures() -> None:
    # completing the front row: no capture under the text (test_engine_copenhagen), a capture here
    b = pos(t="c1 f1 d2 e5", T="d1 e1", K="h8", shieldwall_flank="false")
    assert play(b, "e5-e2") == ["d1", "e1"]
    assert [a.kind for a in b.announcements()][:1] == ["shieldwall"]
    # a move elsewhere captures nothing while the row is open (no piece in front of e1)
    b = pos(t="c1 f1 d2 k7", T="d1 e1", K="h8", shieldwall_flank="false")
    assert play(b, "k7-k8") == []
    # the king in front completes the defenders' wall: the attackers' row is taken, the king stays
    b = pos(t="d1 e1 a9", T="c1 f1 d2 h2", K="e3", turn="defenders", shieldwall_flank="false")
    assert play(b, "e3-e2") == ["d1", "e1"]


def test_options_reach_a_board_made_from_a_position() -> None:
    b = Board.from_otn("copenhagen", Board("copenhagen").position_otn(),
                       options={"repetition": "draw", "shieldwall": "weak", "shieldwall_flank": "false"})
    assert b.options == {"repetition": "draw", "shieldwall": "weak", "shieldwall_flank": "false"}
