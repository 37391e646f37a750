"""Self-play match: level A against level B on any variant, both colours, score with a 95 % interval.

Usage:
    python bench/selfplay.py --variant copenhagen --a hard --b medium --games 40 \
        [--time-a 1.0] [--time-b 1.0] [--nodes-a N] [--nodes-b N] [--jobs 2]
        [--depth-a D] [--depth-b D] [--noise-a X] [--noise-b X] [--max-plies 200] [--random-plies 2]

Games come in pairs: the same opening (``--random-plies`` random moves drawn
from the pair's seed, so pairs differ) is played once with A attacking and
once with B attacking, which cancels most of the side bias of tafl. A game
still going after ``--max-plies`` is scored a draw (adjudication). The score
is A's points (win 1, draw 1/2) over the games played, with a 95 % interval
from the normal approximation of the per-game scores.

Node caps (``--nodes-a/--nodes-b`` with a large ``--time-a/--time-b``) make a
match exactly reproducible whatever the machine's load; ``--depth-*`` and
``--noise-*`` try another definition of a level for one match, before a
default in engine/levels.py is changed.

Without arguments (as bench/run_all.py calls it) it plays a short demo match.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import random
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.levels import Level, get_level
from engine.search import Searcher

sys.path.insert(0, str(Path(__file__).resolve().parent))
import visitor_players


@dataclass
class GameResult:
    index: int
    a_attacks: bool
    winner: str | None          # "attackers" | "defenders" | None (draw / adjudicated)
    reason: str
    plies: int
    a_score: float
    a_time: float
    b_time: float


def play_game(args: tuple) -> GameResult:
    (index, variant, options, level_a, level_b, time_a, time_b, max_plies,
     random_plies, seed, a_attacks) = args[:11]
    nodes_a, nodes_b = (args[11], args[12]) if len(args) > 12 else (None, None)
    over_a, over_b = (args[13], args[14]) if len(args) > 14 else ({}, {})
    board = Board(variant, options=options)
    rng = random.Random(seed)
    for _ in range(random_plies):
        moves = board.generate_moves()
        if not moves or board.outcome() is not None:
            break
        board.push(sorted(moves, key=board.move_to_otn)[rng.randrange(len(moves))])
    la = _player_level(level_a, time_a, nodes_a, over_a)
    lb = _player_level(level_b, time_b, nodes_b, over_b)
    beginner_rng = random.Random(seed + 1)
    spent = {True: 0.0, False: 0.0}
    ply = 0
    while board.outcome() is None and ply < max_plies:
        attackers_to_move = board.turn.value == "attackers"
        a_to_move = attackers_to_move == a_attacks
        level = la if a_to_move else lb
        t0 = time.perf_counter()
        # a fresh table per move, as in the kiosk (one search per process call)
        if level is None:   # the beginner visitor model (bench/visitor_players.py)
            move = visitor_players.beginner_move(board, beginner_rng)
        else:
            move = Searcher(board, level, seed=seed + ply).search().move
        spent[a_to_move] += time.perf_counter() - t0
        board.push(move)
        ply += 1
    out = board.outcome()
    if out is None or out.winner is None:
        winner, reason, score = None, (out.reason if out else "adjudicated"), 0.5
    else:
        winner = out.winner.value
        reason = out.reason
        a_won = (winner == "attackers") == a_attacks
        score = 1.0 if a_won else 0.0
    return GameResult(index, a_attacks, winner, reason, board.ply, score, spent[True], spent[False])


def _player_level(name: str, time_s: float | None, nodes: int | None, over: dict) -> Level | None:
    """The search level a player name stands for; None for the beginner visitor (not a search)."""
    if name == "beginner":
        return None
    level = visitor_players.casual_level() if name == "casual" else get_level(name)
    level = level.with_time(time_s)
    if nodes:
        level = replace(level, max_nodes=nodes)
    return replace(level, **over) if over else level


def _time_of(name: str) -> str:
    level = _player_level(name, None, None, {})
    return "1-ply, " if level is None else f"{level.time_s:g}s"


def interval(scores: list[float]) -> tuple[float, float, float]:
    """Mean and 95 % interval (normal approximation; a 0/1 run uses the Wilson bound)."""
    n = len(scores)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / (n - 1) if n > 1 else 0.25
    if var == 0:
        # all games the same result: Wilson interval for a proportion at 0 or 1
        z = 1.96
        centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return mean, max(0.0, centre - half), min(1.0, centre + half)
    half = 1.96 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="copenhagen")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--a", default="medium",
                   help="level A (default medium), or a visitor model: beginner, casual")
    p.add_argument("--b", default="easy", help="level B (default easy)")
    p.add_argument("--games", type=int, default=4, help="games, rounded up to an even number")
    p.add_argument("--time-a", type=float, default=None, help="seconds per move for A (default: its level)")
    p.add_argument("--time-b", type=float, default=None, help="seconds per move for B (default: its level)")
    p.add_argument("--nodes-a", type=int, default=None,
                   help="node budget per move for A (a load-independent strength; use a large --time-a)")
    p.add_argument("--nodes-b", type=int, default=None, help="node budget per move for B")
    p.add_argument("--depth-a", type=int, default=None,
                   help="override A's max_depth (try a level definition before changing the defaults)")
    p.add_argument("--depth-b", type=int, default=None, help="override B's max_depth")
    p.add_argument("--noise-a", type=float, default=None, help="override A's noise")
    p.add_argument("--noise-b", type=float, default=None, help="override B's noise")
    p.add_argument("--max-plies", type=int, default=200)
    p.add_argument("--random-plies", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    options = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            p.error(f"--option {item!r} is not KEY=VALUE")
        options[key.strip()] = value.strip()
    for name in (args.a, args.b):
        if name not in visitor_players.VISITORS:
            get_level(name)
    over_a = _overrides(args.depth_a, args.noise_a)
    over_b = _overrides(args.depth_b, args.noise_b)
    pairs = (args.games + 1) // 2
    tasks: list[tuple] = []
    for i in range(pairs):
        seed = args.seed * 7919 + i * 104729
        for a_attacks in (True, False):
            tasks.append((len(tasks), args.variant, options, args.a, args.b, args.time_a, args.time_b,
                          args.max_plies, args.random_plies, seed, a_attacks, args.nodes_a, args.nodes_b,
                          over_a, over_b))
    print(f"{args.variant} {options or ''}: {args.a} (A, {f'{args.time_a}s' if args.time_a else _time_of(args.a)}"
          f"{f', {args.nodes_a} nodes' if args.nodes_a else ''}{_describe(over_a)}) vs "
          f"{args.b} (B, {f'{args.time_b}s' if args.time_b else _time_of(args.b)}"
          f"{f', {args.nodes_b} nodes' if args.nodes_b else ''}{_describe(over_b)}), {len(tasks)} games, "
          f"max {args.max_plies} plies, {args.random_plies} random opening plies", flush=True)
    t0 = time.perf_counter()
    results: list[GameResult] = []
    if args.jobs > 1:
        with mp.get_context("spawn").Pool(args.jobs) as pool:
            for r in pool.imap_unordered(play_game, tasks):
                results.append(r)
                _report_game(r)
    else:
        for task in tasks:
            r = play_game(task)
            results.append(r)
            _report_game(r)
    scores = [r.a_score for r in results]
    mean, lo, hi = interval(scores)
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    losses = len(scores) - wins - draws
    for side, flag in (("attacking", True), ("defending", False)):
        sub = [r.a_score for r in results if r.a_attacks == flag]
        if sub:
            print(f"  A {side}: {sum(sub):.1f}/{len(sub)}")
    plies = sorted(r.plies for r in results)
    print(f"A {args.a} vs B {args.b} on {args.variant}: +{wins} ={draws} -{losses}  "
          f"score {mean:.3f}  95% interval [{lo:.3f}, {hi:.3f}]  "
          f"median plies {plies[len(plies) // 2]}  wall {time.perf_counter() - t0:.0f}s")
    return 0


def _overrides(depth: int | None, noise: float | None) -> dict:
    """Level fields replaced for this match only (the defaults stay as they are)."""
    out: dict = {}
    if depth is not None:
        if depth < 1:
            raise SystemExit(f"depth must be >= 1, got {depth}")
        out["max_depth"] = depth
    if noise is not None:
        if noise < 0:
            raise SystemExit(f"noise must be >= 0, got {noise}")
        out["noise"] = noise
    return out


def _describe(over: dict) -> str:
    return "".join(f", {k}={v}" for k, v in over.items())


def _report_game(r: GameResult) -> None:
    print(f"  game {r.index:3d}: A {'attacks' if r.a_attacks else 'defends'}  "
          f"winner {r.winner or 'none'} ({r.reason}) in {r.plies} plies  A score {r.a_score}  "
          f"think A {r.a_time:.0f}s B {r.b_time:.0f}s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
