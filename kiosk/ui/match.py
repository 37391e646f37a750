"""York's match formats for one visitor, on top of the engine's rules for them (engine/match.py).

- ``single``: one game.
- ``five_point`` (York option c): the sides swap every game; the attacker's
  four cards A, 2, 3, 4 lie face down by the edges. The kiosk lays them at
  random for whichever side attacks (there is no card to hand a visitor); a
  visitor who attacks sees their own cards, a defending visitor sees them
  only when the game ends. Scoring and the end of the match are the
  engine's (docs/rules.md, York question 8).
- ``two_game`` (York option d): two games with sides swapped, decided by
  the engine's `TwoGameMatch` (wins, then the tie-break).

The players are called "visitor" and "robot".
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine import Side
from engine.match import CARD_POINTS, CardMatch, TwoGameMatch

MATCH_FORMATS = ("single", "five_point", "two_game")
PLAYERS = ("visitor", "robot")


def _side(value: Any) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


@dataclass
class Match:
    format: str
    variant: str
    first_side: str                                   # the visitor's side in game 1
    cards: CardMatch | None = None
    two: TwoGameMatch | None = None
    recorded: int = 0                                 # games scored so far
    started: int = 1                                  # games started so far
    last_cards: dict[str, str] = field(default_factory=dict)   # shown after a card game ends
    last_exit_edges: tuple[str, ...] = ()
    rng: random.Random = field(default_factory=random.Random, repr=False)

    @classmethod
    def new(cls, fmt: str, variant: str, visitor_side: Any, rng: random.Random | None = None) -> "Match":
        if fmt not in MATCH_FORMATS:
            raise ValueError(f"unknown match format {fmt!r}; expected one of {', '.join(MATCH_FORMATS)}")
        side = _side(visitor_side) or "attackers"
        match = cls(fmt, variant, side, rng=rng or random.Random())
        attacker_first = "visitor" if side == "attackers" else "robot"
        if fmt == "five_point":
            match.cards = CardMatch(players=PLAYERS, attacker=attacker_first)
            match.cards.place_cards(CardMatch.random_placement(match.rng))
        elif fmt == "two_game":
            order = PLAYERS if attacker_first == "visitor" else PLAYERS[::-1]
            match.two = TwoGameMatch(players=order)
        return match

    def visitor_side(self) -> str:
        """The visitor's side in the game being played (or about to start)."""
        if self.cards is not None:
            return "attackers" if self.cards.attacker == "visitor" else "defenders"
        if self.two is not None:
            return "attackers" if self.two.attacker == "visitor" else "defenders"
        return self.first_side

    def record(self, view: Any) -> None:
        """Score the finished game shown in ``view`` (once per game)."""
        if self.recorded >= self.started or view.outcome is None or view.board is None:
            return
        self.recorded = self.started
        board = view.board
        if self.cards is not None and not self.cards.over:
            self.last_cards = {edge: card for edge, card in self.cards.visible_cards(self.cards.attacker).items()
                               if card is not None}
            king = getattr(board, "king_square", None)
            record = self.cards.record_game(view.outcome, king, board.size)
            self.last_exit_edges = record.exit_edges
        elif self.two is not None and not self.two.over:
            captured = {side: int(n) for side, n in _captured_by_side(view).items()}
            self.two.record_game(view.outcome.winner, len(board.move_stack), captured)

    @property
    def over(self) -> bool:
        if self.format == "single":
            return self.recorded >= 1
        if self.cards is not None:
            return self.cards.over
        return self.two is not None and self.two.over

    def next_game(self) -> None:
        """Start the next game of the match: new cards (dealt for the new attacker)."""
        self.started += 1
        self.last_cards = {}
        self.last_exit_edges = ()
        if self.cards is not None and not self.cards.over and not self.cards.cards_placed:
            self.cards.place_cards(CardMatch.random_placement(self.rng))

    def scores(self) -> tuple[int, int]:
        """(visitor, robot): points in a card match, games won in a two-game match."""
        if self.cards is not None:
            return self.cards.scores["visitor"], self.cards.scores["robot"]
        if self.two is not None:
            wins = {"visitor": 0, "robot": 0}
            for rec in self.two.games:
                if rec.winner is not None:
                    wins[rec.attacker if _side(rec.winner) == "attackers" else rec.defender] += 1
            return wins["visitor"], wins["robot"]
        return 0, 0

    def winner(self) -> str | None:
        """'visitor', 'robot' or None (not over, or a drawn match)."""
        if not self.over:
            return None
        if self.cards is not None:
            return self.cards.winner
        if self.two is not None:
            return self.two.result().winner
        return None

    def card_points(self, edge: str) -> int:
        return CARD_POINTS[self.last_cards[edge]] if edge in self.last_cards else 0


def _captured_by_side(view: Any) -> dict[Any, int]:
    captured = view.captured or {}
    return {Side.ATTACKERS: captured.get("attackers", 0), Side.DEFENDERS: captured.get("defenders", 0)}


__all__ = ["Match", "MATCH_FORMATS"]
