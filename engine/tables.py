"""Per-rules lookup tables, computed once: rays, neighbours, masks, Zobrist keys, cached moves.

The search calls move generation and push/pop millions of times; everything
that depends only on the rules (which squares a piece kind may stop on or pass,
which are hostile, where the edges are) is precomputed here as flat lists and
bitmasks, so the hot loops in board.py only index.
"""
from __future__ import annotations

import random
from functools import lru_cache
from typing import cast

from .rules import Rules
from .types import ATT, DEF, KING, Move, square_name

MAX_SQUARES = 19 * 19

_rng = random.Random(0x7AF1_2026)
# ZOBRIST[code][sq]: code 1 attacker, 2 defender, 3 king (0 unused).
ZOBRIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rng.getrandbits(64) for _ in range(MAX_SQUARES)) for _ in range(4))
ZOBRIST_SIDE = _rng.getrandbits(64)   # xored in when the defenders are to move


class Tables:
    """Everything board.py needs about one Rules record, in index-friendly form."""

    def __init__(self, rules: Rules) -> None:
        n = rules.size
        n2 = n * n
        self.n = n
        self.n2 = n2
        self.rules = rules

        def on(r: int, c: int) -> bool:
            return 0 <= r < n and 0 <= c < n

        dirs = ((0, 1), (0, -1), (1, 0), (-1, 0))
        rays: list[tuple[tuple[int, ...], ...]] = []
        nbrs: list[tuple[tuple[int, int], ...]] = []
        axis_pairs: list[tuple[tuple[int, int], ...]] = []
        for sq in range(n2):
            r0, c0 = divmod(sq, n)
            sq_rays = []
            sq_nbrs = []
            for dr, dc in dirs:
                line: list[int] = []
                r, c = r0 + dr, c0 + dc
                while on(r, c):
                    line.append(r * n + c)
                    r, c = r + dr, c + dc
                if line:
                    sq_rays.append(tuple(line))
                    beyond = line[1] if len(line) > 1 else -1
                    sq_nbrs.append((line[0], beyond))
            rays.append(tuple(sq_rays))
            nbrs.append(tuple(sq_nbrs))
            pairs = []
            for (dr, dc) in ((0, 1), (1, 0)):
                a, b = (r0 - dr, c0 - dc), (r0 + dr, c0 + dc)
                if on(*a) and on(*b):
                    pairs.append((a[0] * n + a[1], b[0] * n + b[1]))
            axis_pairs.append(tuple(pairs))
        self.rays = rays
        self.nbrs = nbrs
        self.axis_pairs = axis_pairs
        self.neighbours = [tuple(p for p, _ in nb) for nb in nbrs]

        def flags(squares) -> list[bool]:
            out = [False] * n2
            for s in squares:
                out[s] = True
            return out

        # Camps (Tablut): camp id per square, 0 = none.
        camp_of = [0] * n2
        for i, camp in enumerate(rules.camps, start=1):
            for s in camp:
                camp_of[s] = i
        self.camp_of = camp_of
        ncamps = len(rules.camps)
        # blocked[kind][origin camp id] -> may neither stop on nor pass the square.
        self.blocked: list[list[list[bool]]] = [[], [], [], []]    # [EMPTY] unused
        for kind in (ATT, DEF, KING):
            base = rules.king_blocked if kind == KING else rules.nonking_blocked
            per_camp = []
            for origin in range(ncamps + 1):
                sqs = set(base)
                for i, camp in enumerate(rules.camps, start=1):
                    if i != origin or kind != ATT:
                        sqs |= camp
                per_camp.append(flags(sqs))
            self.blocked[kind] = per_camp
        self.nostop: list[list[bool]] = [
            [], flags(rules.nonking_no_stop), flags(rules.nonking_no_stop), flags(())]
        self.escape = flags(rules.escape_squares)
        self.hostile: list[list[bool]] = [
            [], flags(rules.hostile_to_attackers), flags(rules.hostile_to_defenders)]
        self.hostile_king = flags(rules.hostile_to_king)
        self.corner = flags(rules.corners)

        edge = [sq // n in (0, n - 1) or sq % n in (0, n - 1) for sq in range(n2)]
        self.is_edge = edge
        self.bit = [1 << s for s in range(n2)]
        self.nbmask = [sum(1 << p for p in self.neighbours[s]) for s in range(n2)]
        self.full = (1 << n2) - 1
        self.edge_mask = sum(1 << s for s in range(n2) if edge[s])
        self.not_file_a = sum(1 << s for s in range(n2) if s % n != 0)
        self.not_file_last = sum(1 << s for s in range(n2) if s % n != n - 1)
        # Shieldwall geometry: for an edge square, the along-edge steps and the inward step.
        along: list[tuple[int, ...]] = []
        inward: list[int] = []
        for sq in range(n2):
            r, c = divmod(sq, n)
            if not edge[sq] or rules.corners and sq in rules.corners:
                along.append(())
                inward.append(0)
                continue
            if r in (0, n - 1):
                along.append((1, -1))
                inward.append(n if r == 0 else -n)
            else:
                along.append((n, -n))
                inward.append(1 if c == 0 else -1)
        self.along = along
        self.inward = inward

        # Move objects are cached: the generator hands out the same objects, no churn.
        moves: list[Move | None] = [None] * (n2 * n2)
        otn: dict[Move, str] = {}
        for f in range(n2):
            for ray in rays[f]:
                for t in ray:
                    m = Move(f, t)
                    moves[f * n2 + t] = m
                    otn[m] = f"{square_name(f, n)}-{square_name(t, n)}"
        # every (from, to) a ray reaches is filled; the None gaps are never read
        self.moves = cast("list[Move]", moves)
        self.otn = otn


@lru_cache(maxsize=64)
def tables_for(rules: Rules) -> Tables:
    return Tables(rules)
