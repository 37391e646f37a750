"""What pondering buys the robot: the depth its search reaches on the same node budget, cold or after a ponder.

Usage: python bench/ponder_bench.py [--positions 8] [--ponder-nodes 150000] [--nodes 25000]

Positions: Copenhagen games of tests/data/copenhagen-games.csv at plies 12, 24,
36 (the visitor to move). For each, the kiosk's ponder (kiosk/engine_worker.py)
searches the visitor's position for about --ponder-nodes nodes into a
transposition table (a short search guesses the visitor's move, then the
robot's answer to it is searched); then the visitor plays either the move the
ponder expected ("hit") or the move the real game went on with ("game"), and the
robot searches with Hard's settings capped at --nodes nodes, once with that
table and once from cold. Node caps, not seconds, so the figures do not depend
on the machine's load. Prints the depth reached per case and the means.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.levels import get_level
from engine.search import build_board, search_board
from kiosk.engine_worker import ponder

GAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "copenhagen-games.csv"
#: the search asks its clock once every this many nodes (engine/search.py CHECK_EVERY)
NODES_PER_CLOCK_READ = 16


def positions(count: int, plies: tuple[int, ...] = (12, 24, 36)) -> list[tuple[list[str], str]]:
    """(moves so far, the game's next move) pairs: the robot has just moved, the visitor is to move."""
    out: list[tuple[list[str], str]] = []
    for line in GAMES.read_text(encoding="utf-8").splitlines():
        moves = [m.split("x")[0] for m in line.split(",")[0].split()]
        for p in plies:
            if len(moves) > p + 1 and len(out) < count:
                out.append((moves[:p], moves[p]))
        if len(out) >= count:
            break
    return out


def depth_after(moves: list[str], nodes: int, tt: dict | None) -> int:
    level = replace(get_level("hard"), time_s=600.0, max_nodes=nodes)
    return search_board(build_board("copenhagen", {}, moves=moves), level, seed=0, tt=tt).depth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--ponder-nodes", type=int, default=150_000)
    ap.add_argument("--nodes", type=int, default=25_000)
    args = ap.parse_args(argv)
    hard = {"name": "hard", "time_s": 600.0, "max_depth": 64}
    rows: dict[str, list] = {"cold": [], "hit": [], "game": []}
    for moves, game_move in positions(args.positions):
        reads = {"n": 0}

        def budget_spent(reads: dict[str, int] = reads) -> bool:
            reads["n"] += 1
            return reads["n"] * NODES_PER_CLOCK_READ > args.ponder_nodes

        table: dict = {}
        pondered = ponder("copenhagen", {}, moves, hard, 0, table, interrupted=budget_spent, max_s=600.0)
        if pondered is None:
            continue
        pdepth, expected = pondered.depth, pondered.expected.split("x")[0]
        for name, visitor in (("hit", expected), ("game", game_move)):
            after = moves + [visitor]
            cold = depth_after(after, args.nodes, None)
            warm = depth_after(after, args.nodes, dict(table))
            if name == "hit":
                rows["cold"].append(cold)
            rows[name].append(warm)
            print(f"ply {len(moves):>3} visitor {visitor:<8} ({name:<4}) ponder depth {pdepth}: "
                  f"robot depth cold {cold}, after the ponder {warm}", flush=True)
    print(f"mean depth on {args.nodes} nodes: cold {statistics.mean(rows['cold']):.2f}, "
          f"ponder hit {statistics.mean(rows['hit']):.2f}, game's move {statistics.mean(rows['game']):.2f} "
          f"({len(rows['cold'])} positions, ponder {args.ponder_nodes} nodes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
