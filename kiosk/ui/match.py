"""York's match formats (rule text 000, c and d), kept by the screens around single games.

- ``single``: one game.
- ``two_game``: two games, the visitor swaps sides for the second; more wins
  takes the match, a tie is broken by more pieces captured over both games
  (option d names moves or captures; captures are what a visitor can see).
- ``five_point``: the attacker lays the cards A, 2, 3, 4 face down, one by
  each edge (the kiosk deals them at random and keeps them hidden). When the
  king escapes, the defender scores the card by the edge he left by (for a
  corner: the edge he slid along); capturing the king scores the attacker 4.
  Sides swap every game; the first to 5 points wins the match.
  The text leaves the attacker's score and the end open (docs/rules-questions.md,
  York 8); these are the kiosk's choices, shown to the visitor on the start card.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

MATCH_FORMATS = ("single", "five_point", "two_game")
EDGES = ("north", "east", "south", "west")
CARD_VALUES = {"A": 1, "2": 2, "3": 3, "4": 4}
TARGET_POINTS = 5
KING_CAPTURE_POINTS = 4


def _side(value: Any) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


def exit_edge(from_sq: int, to_sq: int, size: int) -> str | None:
    """The edge a king's move to ``to_sq`` leaves by; for a corner, the edge the move slid along."""
    fr, ff = divmod(from_sq, size)
    tr, tf = divmod(to_sq, size)
    edges = []
    if tr == size - 1:
        edges.append(("north", fr == tr))
    if tr == 0:
        edges.append(("south", fr == tr))
    if tf == size - 1:
        edges.append(("east", ff == tf))
    if tf == 0:
        edges.append(("west", ff == tf))
    if not edges:
        return None
    along = [name for name, slid in edges if slid]
    return along[0] if along else edges[0][0]


@dataclass
class Match:
    format: str
    variant: str
    first_side: str                       # the visitor's side in game 1
    cards: dict[str, str] = field(default_factory=dict)
    game: int = 1
    visitor_points: int = 0
    robot_points: int = 0
    visitor_captures: int = 0
    robot_captures: int = 0
    last_card_edge: str | None = None
    recorded_games: int = 0

    @classmethod
    def new(cls, fmt: str, variant: str, visitor_side: Any, rng: random.Random | None = None) -> "Match":
        if fmt not in MATCH_FORMATS:
            raise ValueError(f"unknown match format {fmt!r}; expected one of {', '.join(MATCH_FORMATS)}")
        rng = rng or random.Random()
        cards: dict[str, str] = {}
        if fmt == "five_point":
            values = list(CARD_VALUES)
            rng.shuffle(values)
            cards = dict(zip(EDGES, values))
        return cls(fmt, variant, _side(visitor_side) or "attackers", cards)

    def visitor_side(self) -> str:
        """The visitor's side in the current game: the sides swap every game of a match."""
        if self.format == "single" or self.game % 2 == 1:
            return self.first_side
        return "defenders" if self.first_side == "attackers" else "attackers"

    def record(self, outcome: Any, visitor_side: Any, last_move: Any, size: int, captured: dict[str, int]) -> None:
        """Score one finished game (once per game)."""
        if self.recorded_games >= self.game:
            return
        self.recorded_games = self.game
        you = _side(visitor_side)
        robot = "defenders" if you == "attackers" else "attackers"
        self.visitor_captures += int(captured.get(you, 0)) if you else 0
        self.robot_captures += int(captured.get(robot, 0))
        winner = _side(getattr(outcome, "winner", None))
        if winner is None:
            return
        visitor_won = winner == you
        if self.format == "five_point":
            points = KING_CAPTURE_POINTS
            if winner == "defenders" and last_move is not None:
                edge = exit_edge(last_move.from_sq, last_move.to_sq, size)
                if edge is not None:
                    self.last_card_edge = edge
                    points = CARD_VALUES[self.cards[edge]]
            if visitor_won:
                self.visitor_points += points
            else:
                self.robot_points += points
        else:
            if visitor_won:
                self.visitor_points += 1
            else:
                self.robot_points += 1

    @property
    def finished(self) -> bool:
        if self.format == "single":
            return self.recorded_games >= 1
        if self.format == "two_game":
            return self.recorded_games >= 2
        return max(self.visitor_points, self.robot_points) >= TARGET_POINTS

    def winner(self) -> str | None:
        """'visitor', 'robot' or None (a tie) once finished."""
        if self.visitor_points != self.robot_points:
            return "visitor" if self.visitor_points > self.robot_points else "robot"
        if self.format == "two_game" and self.visitor_captures != self.robot_captures:
            return "visitor" if self.visitor_captures > self.robot_captures else "robot"
        return None

    def next_game(self) -> None:
        self.game += 1
        self.last_card_edge = None
