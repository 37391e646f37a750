"""Reference players that model museum visitors, and how they fare against the robot's levels.

    python bench/visitor_players.py [--games 40] [--visitors beginner,casual]
        [--levels easy,medium,hard] [--time-hard 4] [--nodes-hard N] [--minutes M] [--seed 1]
        [--first-round K]

Two models (issue 19), so that a level is judged by how a visitor fares, not
only by self-play between levels:

- ``beginner``: looks one ply ahead. It plays a move that wins at once (king
  escape, king capture) when it sees one, else a capture (a safe one when
  there is one), else a random safe move: one after which the opponent cannot
  win at once nor capture the piece that just moved. A visitor who knows the
  rules and grabs what is offered, with no plan.
- ``casual``: the engine's own search at 2 plies with noise (``CASUAL_NOISE``
  evaluation units at the root, about 3/4 of a soldier), so it sees its move
  and the best answer to it but often prefers a merely good-looking move. A
  visitor who has played a few games.

Goal (issue 19): the beginner wins about half its games against Easy, the
casual player about half against Medium, neither more than 1 in 20 against
Hard, over at least 40 games per level and side. ``main`` plays every visitor
against every level, ``--games`` per level and side (openings of 2 random
plies, each pair of games with sides swapped), through bench/selfplay.py, and
prints the visitor's score per level and side: wins, draws (the 200-ply cap
counts as a draw) and losses, as attackers, as defenders and overall. Games
are played in rounds (opening i for every visitor, level and side), so a run
cut short by ``--minutes`` (Hard thinks 4 s a move: 40 games per side take
hours) still reports balanced figures for the rounds it played.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.levels import Level
from engine.types import Move, Side

VISITORS: tuple[str, ...] = ("beginner", "casual")
#: the casual player's root noise (evaluation units, ~100 = one attacker)
CASUAL_NOISE = 75.0
#: the casual player's think time; it stops at depth 2 long before that
CASUAL_TIME_S = 2.0


def casual_level() -> Level:
    """The casual visitor as a search level: 2 plies with noise."""
    return Level("casual", time_s=CASUAL_TIME_S, max_depth=2, noise=CASUAL_NOISE, blunder_guard=True)


def _wins(board: Board, move: Move, me: Side) -> bool:
    board.push_unchecked(move)
    end = board.outcome()
    board.pop()
    return end is not None and end.winner == me


def is_safe(board: Board, move: Move) -> bool:
    """After ``move`` the opponent cannot win at once nor capture the piece that moved.

    Only opponent moves that land next to the moved piece can capture it, and
    only a king run or a king capture can win at once, so this stays cheap.
    """
    board.push_unchecked(move)
    try:
        end = board.outcome()
        if end is not None:
            return True
        if board.turn == Side.DEFENDERS:
            if board.escape_routes():
                return False
        elif board.king_capture_threats():
            return False
        to = move.to_sq
        size = board.size
        near = {to + d for d in (-1, 1, -size, size)}
        for reply in board.generate_moves():
            if reply.to_sq not in near:
                continue
            board.push_unchecked(reply)
            lost = board.piece_at(to) is None
            board.pop()
            if lost:
                return False
        return True
    finally:
        board.pop()


def beginner_move(board: Board, rng: random.Random) -> Move:
    """The beginner's move: a win, else a capture (safe if it can), else a random safe move."""
    me = board.turn
    moves = sorted(board.generate_moves(), key=lambda m: (m.from_sq, m.to_sq))
    wins = [m for m in moves if _wins(board, m, me)]
    if wins:
        return rng.choice(wins)
    captures = [m for m in moves if board.captures_of(m)]
    if captures:
        safe_caps = [m for m in captures if is_safe(board, m)]
        return rng.choice(safe_caps or captures)
    safe = [m for m in moves if is_safe(board, m)]
    return rng.choice(safe or moves)


@dataclass
class Tally:
    """One visitor's results against one level on one side (win 1, draw 1/2)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    def add(self, visitor_score: float) -> None:
        if visitor_score == 1.0:
            self.wins += 1
        elif visitor_score == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def text(self) -> str:
        if not self.games:
            return "no games"
        return (f"{self.score:4.1f}/{self.games:<3d} (+{self.wins} ={self.draws} -{self.losses}, "
                f"{self.score / self.games:.2f})")


def table_lines(tallies: dict[tuple[str, str, bool], Tally], visitors: list[str], levels: list[str]) -> list[str]:
    """One line per visitor and level: the score as attackers, as defenders, and overall."""
    lines = []
    for visitor in visitors:
        for level in levels:
            att, dfn = tallies[(visitor, level, True)], tallies[(visitor, level, False)]
            both = Tally(att.wins + dfn.wins, att.draws + dfn.draws, att.losses + dfn.losses)
            lines.append(f"{visitor:8s} vs {level:6s}  as attackers {att.text()}  "
                         f"as defenders {dfn.text()}  overall {both.text()}")
    return lines


def main(argv: list[str] | None = None) -> int:
    import selfplay   # bench/selfplay.py: plays the games and keeps the statistics

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1,
                   help="games per level and side (default 1: a demo, as bench/run_all.py runs it)")
    p.add_argument("--visitors", default=",".join(VISITORS))
    p.add_argument("--levels", default="easy,medium,hard")
    p.add_argument("--time-hard", type=float, default=None, help="Hard's seconds per move (default 4)")
    p.add_argument("--nodes-hard", type=int, default=None, help="a node cap for Hard")
    p.add_argument("--max-plies", type=int, default=200)
    p.add_argument("--minutes", type=float, default=None,
                   help="stop starting new rounds after this many minutes and print what was played")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first-round", type=int, default=0,
                   help="start at this round (its openings and game numbers as in a whole run), so that one "
                        "long run can be split over processes: --first-round K plays rounds K to --games - 1")
    args = p.parse_args(argv)
    visitors = [v.strip() for v in args.visitors.split(",") if v.strip()]
    levels = [v.strip() for v in args.levels.split(",") if v.strip()]
    for v in visitors:
        if v not in VISITORS:
            p.error(f"unknown visitor {v!r}; known: {', '.join(VISITORS)}")
    tallies = {(v, lv, side): Tally() for v in visitors for lv in levels for side in (True, False)}
    t0 = time.perf_counter()
    index = args.first_round * len(visitors) * len(levels) * 2
    # Rounds, not blocks: round i plays opening i once per visitor, level and
    # side, so a run stopped by --minutes still has balanced figures.
    for i in range(args.first_round, args.games):
        if args.minutes is not None and time.perf_counter() - t0 > args.minutes * 60:
            print(f"time budget of {args.minutes:g} min spent after {i - args.first_round} rounds", flush=True)
            break
        seed = args.seed * 7919 + i * 104729
        for visitor in visitors:
            for level in levels:
                time_b = args.time_hard if level == "hard" else None
                nodes_b = args.nodes_hard if level == "hard" else None
                for v_attacks in (True, False):
                    task: tuple = (index, "copenhagen", {}, visitor, level, None, time_b,
                                   args.max_plies, 2, seed, v_attacks, None, nodes_b)
                    index += 1
                    r = selfplay.play_game(task)
                    tallies[(visitor, level, v_attacks)].add(r.a_score)
                    print(f"  {visitor} vs {level}:", end="")
                    selfplay._report_game(r)
    print(f"visitor scores (win 1, draw 1/2; +wins =draws -losses, share), up to {args.games} games "
          f"per level and side, {time.perf_counter() - t0:.0f}s"
          + (f", Hard at {args.time_hard}s" if args.time_hard else "")
          + (f", Hard capped at {args.nodes_hard} nodes" if args.nodes_hard else ""))
    for line in table_lines(tallies, visitors, levels):
        print("  " + line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
