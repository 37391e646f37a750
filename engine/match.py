"""York options c and d: match formats over several games, for the kiosk to drive.

Option c, the five-point card match: "the attacker places four cards A, 2, 3, 4
face down one by each edge of the board. The defender wins the number of points
on the card by the side on which the king exits." Decisions (docs/rules.md):
the players swap sides after every game; only an escaping king scores; a king
leaving on a corner touches two edges and scores the higher card; the first
player to reach 5 points wins the match. The cards stay hidden from the
defender until the game ends, then all four are shown.

Option d, the two-game match: "Play two games, swapping sides. On a tie break,
judge the winner of the contest by the number of moves or by the number of
pieces captured." Decisions: more games won wins; on a tie, `moves` favours the
player whose win took fewer moves (plies of that game), `captures` the player
who captured more pieces over both games; still equal is a drawn match.

No I/O and no randomness of its own: the kiosk passes a `random.Random` when
the robot places its cards.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .types import Outcome, Side, square_name

EDGES = ("south", "north", "west", "east")   # rank 1, last rank, file a, last file
CARDS = ("A", "2", "3", "4")
CARD_POINTS = {"A": 1, "2": 2, "3": 3, "4": 4}


def edges_of(square: int, size: int) -> tuple[str, ...]:
    """The board edges a square touches: none, one, or two for a corner."""
    rank, file = divmod(square, size)
    out = []
    if rank == 0:
        out.append("south")
    if rank == size - 1:
        out.append("north")
    if file == 0:
        out.append("west")
    if file == size - 1:
        out.append("east")
    return tuple(out)


@dataclass(frozen=True)
class CardGameRecord:
    """One finished game of a card match."""

    attacker: str
    defender: str
    cards: dict[str, str]
    outcome: Outcome | None
    exit_square: int | None
    exit_edges: tuple[str, ...]
    points: int


@dataclass
class CardMatch:
    """York option c: first to `target` points; the defender scores the card where the king exits."""

    players: tuple[str, str] = ("player 1", "player 2")
    target: int = 5
    scores: dict[str, int] = field(default_factory=dict)
    games: list[CardGameRecord] = field(default_factory=list)
    attacker: str = ""
    _cards: dict[str, str] | None = None

    def __post_init__(self) -> None:
        if len(self.players) != 2 or self.players[0] == self.players[1]:
            raise ValueError("a card match needs two different players")
        if self.target < 1:
            raise ValueError(f"bad target {self.target} (must be 1 or more)")
        self.scores = {p: self.scores.get(p, 0) for p in self.players}
        if not self.attacker:
            self.attacker = self.players[0]
        if self.attacker not in self.players:
            raise ValueError(f"unknown player {self.attacker!r}")

    @property
    def defender(self) -> str:
        """The player the cards are hidden from in the current game."""
        return self.players[1] if self.attacker == self.players[0] else self.players[0]

    def role_of(self, player: str) -> Side:
        if player not in self.players:
            raise ValueError(f"unknown player {player!r}")
        return Side.ATTACKERS if player == self.attacker else Side.DEFENDERS

    @property
    def cards_placed(self) -> bool:
        return self._cards is not None

    def place_cards(self, placement: dict[str, str]) -> None:
        """The attacker lays A, 2, 3, 4 face down, one by each edge: {edge: card}."""
        if self.over:
            raise ValueError("the match is over")
        if self._cards is not None:
            raise ValueError("the cards of this game are already placed")
        if set(placement) != set(EDGES):
            raise ValueError(f"cards must lie by the four edges {', '.join(EDGES)}")
        if sorted(str(v) for v in placement.values()) != sorted(CARDS):
            raise ValueError("the four cards are A, 2, 3 and 4, one each")
        self._cards = dict(placement)

    @staticmethod
    def random_placement(rng: random.Random) -> dict[str, str]:
        """A placement for a robot attacker (the caller owns the random generator)."""
        cards = list(CARDS)
        rng.shuffle(cards)
        return dict(zip(EDGES, cards))

    def visible_cards(self, player: str) -> dict[str, str | None]:
        """What `player` may see: the attacker his cards, the defender nothing until the end."""
        role = self.role_of(player)
        if self._cards is None:
            return {e: None for e in EDGES}
        if role is Side.ATTACKERS:
            return dict(self._cards)
        return {e: None for e in EDGES}

    def points_for(self, outcome: Outcome | None, king_square: int | None, size: int) -> tuple[int, tuple[str, ...]]:
        """Points the defender scores for this end of game, and the edges the king left by."""
        if self._cards is None:
            raise ValueError("the attacker has not placed the cards yet")
        if outcome is None or outcome.winner is not Side.DEFENDERS or outcome.reason != "king_escaped" \
                or king_square is None:
            return 0, ()
        edges = edges_of(king_square, size)
        if not edges:
            raise ValueError(f"the king on {square_name(king_square, size)} is on no edge")
        return max(CARD_POINTS[self._cards[e]] for e in edges), edges

    def record_game(self, outcome: Outcome | None, king_square: int | None, size: int) -> CardGameRecord:
        """Scores a finished game, shows its cards, and swaps the sides for the next one."""
        if self.over:
            raise ValueError("the match is over")
        points, edges = self.points_for(outcome, king_square, size)
        rec = CardGameRecord(self.attacker, self.defender, dict(self._cards or {}), outcome,
                             king_square if edges else None, edges, points)
        self.scores[self.defender] += points
        self.games.append(rec)
        self._cards = None
        self.attacker = self.defender
        return rec

    def record_board(self, board) -> CardGameRecord:
        """`record_game` from a finished engine Board."""
        return self.record_game(board.outcome(), board.king_square, board.size)

    @property
    def winner(self) -> str | None:
        for p in self.players:
            if self.scores[p] >= self.target:
                return p
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True)
class TwoGameRecord:
    attacker: str
    defender: str
    winner: Side | None
    plies: int
    captured_by: dict[Side, int]


@dataclass(frozen=True)
class MatchResult:
    winner: str | None          # None: a drawn match
    decided_by: str             # "games", "moves", "captures" or "tie"


@dataclass
class TwoGameMatch:
    """York option d: two games with sides swapped; tie-break by `moves` (fewer) or `captures` (more)."""

    players: tuple[str, str] = ("player 1", "player 2")
    tie_break: str = "moves"
    games: list[TwoGameRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.players) != 2 or self.players[0] == self.players[1]:
            raise ValueError("a two-game match needs two different players")
        if self.tie_break not in ("moves", "captures"):
            raise ValueError(f"bad tie_break {self.tie_break!r} (moves or captures)")

    @property
    def attacker(self) -> str:
        """Who attacks in the next game: the first player, then the second."""
        return self.players[len(self.games) % 2]

    @property
    def defender(self) -> str:
        return self.players[(len(self.games) + 1) % 2]

    @property
    def over(self) -> bool:
        return len(self.games) >= 2

    def record_game(self, winner: Side | None, plies: int, captured_by: dict[Side, int]) -> TwoGameRecord:
        if self.over:
            raise ValueError("both games are already played")
        rec = TwoGameRecord(self.attacker, self.defender, winner, plies, dict(captured_by))
        self.games.append(rec)
        return rec

    def record_board(self, board) -> TwoGameRecord:
        end = board.outcome()
        return self.record_game(end.winner if end else None, board.ply, board.captured_counts())

    def _player_of(self, rec: TwoGameRecord, side: Side) -> str:
        return rec.attacker if side is Side.ATTACKERS else rec.defender

    def result(self) -> MatchResult:
        if not self.over:
            raise ValueError("the match needs two games")
        wins = {p: 0 for p in self.players}
        win_plies: dict[str, int] = {}
        captures = {p: 0 for p in self.players}
        for rec in self.games:
            if rec.winner is not None:
                p = self._player_of(rec, rec.winner)
                wins[p] += 1
                win_plies[p] = rec.plies
            for side, n in rec.captured_by.items():
                captures[self._player_of(rec, side)] += n
        a, b = self.players
        if wins[a] != wins[b]:
            return MatchResult(a if wins[a] > wins[b] else b, "games")
        if self.tie_break == "moves":
            if a in win_plies and b in win_plies and win_plies[a] != win_plies[b]:
                return MatchResult(a if win_plies[a] < win_plies[b] else b, "moves")
            return MatchResult(None, "tie")
        if captures[a] != captures[b]:
            return MatchResult(a if captures[a] > captures[b] else b, "captures")
        return MatchResult(None, "tie")


__all__ = ["CardMatch", "TwoGameMatch", "MatchResult", "CardGameRecord", "TwoGameRecord",
           "EDGES", "CARDS", "CARD_POINTS", "edges_of"]
