"""York's match formats for one visitor, kept by the controller and journalled (engine/match.py scores).

- ``single``: one game.
- ``five_point`` (York option c): the sides swap every game; the attacker's
  four cards A, 2, 3, 4 lie face down by the edges. The kiosk lays them at
  random for whichever side attacks (there is no card to hand a visitor); a
  visitor who attacks sees their own cards, a defending visitor sees them
  only when the game ends. Scoring and the end of the match are the
  engine's (docs/rules.md, York question 8).
- ``two_game`` (York option d): two games with sides swapped, decided by
  the engine's `TwoGameMatch` (wins, then the tie-break).

WHY in the controller, not the screens: a match lasts several games, and a
power cut in the middle of one must not lose the cards laid or the score.
The controller scores each game when it ends and journals the whole match
(`to_json`) with every `game_started` and `game_over` record (kiosk/session.py
reads it back); the screens only show `ControllerView.match`.

The players are called "visitor" and "robot".
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine import Board, Outcome, Side
from engine.match import CARD_POINTS, CARDS, EDGES, CardGameRecord, CardMatch, TwoGameMatch, TwoGameRecord

MATCH_FORMATS = ("single", "five_point", "two_game")
PLAYERS = ("visitor", "robot")


class MatchError(ValueError):
    """A journalled match that cannot be read back."""


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
    rng: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    @classmethod
    def new(cls, fmt: str, variant: str, visitor_side: Side | str, rng: random.Random | None = None) -> "Match":
        if fmt not in MATCH_FORMATS:
            raise ValueError(f"unknown match format {fmt!r}; expected one of {', '.join(MATCH_FORMATS)}")
        side = Side(visitor_side).value
        match = cls(fmt, variant, side, rng=rng or random.Random())
        attacker_first = "visitor" if side == "attackers" else "robot"
        if fmt == "five_point":
            match.cards = CardMatch(players=PLAYERS, attacker=attacker_first)
            match.cards.place_cards(CardMatch.random_placement(match.rng))
        elif fmt == "two_game":
            order = PLAYERS if attacker_first == "visitor" else PLAYERS[::-1]
            match.two = TwoGameMatch(players=order)
        return match

    def visitor_side(self) -> Side:
        """The visitor's side in the game being played (or about to start)."""
        if self.cards is not None:
            return Side.ATTACKERS if self.cards.attacker == "visitor" else Side.DEFENDERS
        if self.two is not None:
            return Side.ATTACKERS if self.two.attacker == "visitor" else Side.DEFENDERS
        return Side(self.first_side)

    def record(self, board: Board, outcome: Outcome | None) -> bool:
        """Score the finished game on `board` (once per game); False when it was scored already."""
        if self.recorded >= self.started or outcome is None:
            return False
        self.recorded = self.started
        if self.cards is not None and not self.cards.over:
            self.last_cards = {e: c for e, c in self.cards.visible_cards(self.cards.attacker).items() if c}
            record = self.cards.record_game(outcome, board.king_square, board.size)
            self.last_exit_edges = record.exit_edges
        elif self.two is not None and not self.two.over:
            self.two.record_game(outcome.winner, len(board.move_stack), board.captured_counts())
        return True

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
                    wins[rec.attacker if rec.winner == Side.ATTACKERS else rec.defender] += 1
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

    # -- the journal -----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Everything needed to go on after a power cut (the random generator is not: new cards
        are dealt from a fresh one)."""
        out: dict[str, Any] = {"format": self.format, "variant": self.variant, "first_side": self.first_side,
                               "recorded": self.recorded, "started": self.started,
                               "last_cards": dict(self.last_cards), "last_exit_edges": list(self.last_exit_edges)}
        if self.cards is not None:
            c = self.cards
            out["cards"] = {"attacker": c.attacker, "scores": dict(c.scores),
                            "placed": c.visible_cards(c.attacker) if c.cards_placed else None,
                            "games": [{"attacker": g.attacker, "defender": g.defender, "cards": dict(g.cards),
                                       "winner": _side(g.outcome.winner if g.outcome else None),
                                       "reason": g.outcome.reason if g.outcome else None,
                                       "exit_square": g.exit_square, "exit_edges": list(g.exit_edges),
                                       "points": g.points} for g in c.games]}
        if self.two is not None:
            out["two"] = {"players": list(self.two.players), "tie_break": self.two.tie_break,
                          "games": [{"attacker": g.attacker, "defender": g.defender, "winner": _side(g.winner),
                                     "plies": g.plies,
                                     "captured_by": {s.value: n for s, n in g.captured_by.items()}}
                                    for g in self.two.games]}
        return out

    @classmethod
    def from_json(cls, data: object) -> "Match":
        """The match as journalled; MatchError naming what is wrong."""
        try:
            return cls._from_json(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MatchError(f"a match that cannot be read back ({type(exc).__name__}: {exc})"[:160]) from None

    @classmethod
    def _from_json(cls, data: Any) -> "Match":
        fmt = data["format"]
        if fmt not in MATCH_FORMATS:
            raise ValueError(f"unknown match format {fmt!r}")
        recorded, started = int(data["recorded"]), int(data["started"])
        if not 0 <= recorded <= started or started < 1:
            raise ValueError(f"{recorded} games scored of {started} started")
        edges = tuple(str(e) for e in data.get("last_exit_edges", ()))
        last_cards = {str(e): str(c) for e, c in dict(data.get("last_cards", {})).items()}
        if not set(edges) <= set(EDGES) or not set(last_cards) <= set(EDGES) \
                or not set(last_cards.values()) <= set(CARDS):
            raise ValueError("cards or edges that do not exist")
        match = cls(fmt, str(data["variant"]), Side(data["first_side"]).value, recorded=recorded, started=started,
                    last_cards=last_cards, last_exit_edges=edges)
        if fmt == "five_point":
            c = data["cards"]
            cards = CardMatch(players=PLAYERS, attacker=str(c["attacker"]),
                              scores={p: int(c["scores"][p]) for p in PLAYERS})
            for g in c["games"]:
                outcome = Outcome(_to_side(g["winner"]), str(g["reason"])) if g["reason"] is not None else None
                cards.games.append(CardGameRecord(str(g["attacker"]), str(g["defender"]),
                                                  {str(e): str(v) for e, v in dict(g["cards"]).items()}, outcome,
                                                  None if g["exit_square"] is None else int(g["exit_square"]),
                                                  tuple(str(e) for e in g["exit_edges"]), int(g["points"])))
            if c["placed"] is not None:
                cards.place_cards({str(e): str(v) for e, v in dict(c["placed"]).items()})
            match.cards = cards
        elif fmt == "two_game":
            t = data["two"]
            first, second = (str(p) for p in t["players"])
            two = TwoGameMatch(players=(first, second), tie_break=str(t["tie_break"]))
            if set(two.players) != set(PLAYERS):
                raise ValueError(f"players {two.players!r}")
            for g in t["games"][:2]:
                two.games.append(TwoGameRecord(str(g["attacker"]), str(g["defender"]), _to_side(g["winner"]),
                                               int(g["plies"]),
                                               {Side(s): int(n) for s, n in dict(g["captured_by"]).items()}))
            match.two = two
        return match


def match_for_game(current: Match | None, fmt: str, variant: str, visitor_side: Side) -> Match | None:
    """The match a new game belongs to: none ("single"), a new one, or the next game of `current`
    ("next"); ValueError for an unknown format or no match to go on with."""
    if fmt == "next":
        if current is None or current.over:
            raise ValueError("there is no match under way to play the next game of")
        current.next_game()
        return current
    if fmt == "single":
        return None
    return Match.new(fmt, variant, visitor_side)


def _side(side: Side | None) -> str | None:
    return None if side is None else side.value


def _to_side(value: object) -> Side | None:
    return None if value is None else Side(value)


__all__ = ["Match", "MatchError", "MATCH_FORMATS", "match_for_game"]
