"""The robot's move choice: iterative-deepening principal-variation search.

Pure Python, so the design spends nodes carefully:

- iterative deepening with a transposition table keyed by the board's Zobrist
  hash (move ordering from the previous iteration is most of the gain);
- principal-variation search (null windows after the first move) with late
  move reductions for quiet moves far down the ordered list;
- ordering: TT move, immediate king escapes, likely captures (a cheap
  neighbour pattern, not the board's full capture code), blocks of the king's
  free lines, moves next to the king, two killers per ply, history counts;
- leaves: the static evaluation (engine/evaluate.py) already knows "defenders
  to move with a free line have won" and "two free lines cannot both be
  blocked"; when the attackers are to move and the king is one side short of
  capture, the few moves onto that side are tried (a one-move king-capture
  extension) so the horizon does not hide a capture in one;
- repetition: the board keeps the game's position history (the search starts
  from a board on which the game so far was played), so its ``outcome()`` sees
  Copenhagen's third repetition (defenders lose) inside the search; in
  variants where repetition is a draw, a position repeated on the search path
  scores as a draw at once;
- time: the clock is read every few nodes and the search unwinds with the
  best move of the deepest finished iteration (or of the unfinished one when
  its first move was already fully searched);
- levels (engine/levels.py): depth cap, seeded evaluation noise at the root,
  and the blunder guard (always take a win in one; never allow the opponent a
  win in one when a move exists that does not).

Entry point for other processes: ``best_move_text(...)`` takes only plain
values (strings, numbers, lists) and returns the move in OTN, so the kiosk can
call it through ``multiprocessing`` without pickling a Board.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .evaluate import (
    ATT, DEF, EMPTY, KING, FAMILY_WEIGHTS, WIN, WIN_BOUND, EvalWeights, Geometry,
    evaluate_cells, king_route_squares, make_geometry,
)
from .levels import Level, get_level
from .timecontrol import Deadline, SearchTimeout
from .types import Move

from .types import Side

NULL_R = 2

INF = 10 * WIN
EXACT, LOWER, UPPER = 0, 1, 2
#: nodes between two clock reads (a read is ~100 ns, a node ~100 us)
CHECK_EVERY = 16
#: transposition table entries before it is cleared (memory stays < ~200 MB)
TT_LIMIT = 1_500_000


# --------------------------------------------------------------------------- board access

def board_cells(board: Any) -> Sequence[int]:
    """The board's square codes (0 empty, 1 attacker, 2 defender, 3 king), index = square.

    The rules engine's ``Board.cells`` is a live read-only view (updated in
    place by push/pop), which the search reads without copying; any other
    board falls back to the public ``pieces()``.
    """
    cells = getattr(board, "cells", None)
    if cells is not None:
        return cells
    n = board.size
    out = [EMPTY] * (n * n)
    code = {"t": ATT, "T": DEF, "K": KING}
    for sq, piece in board.pieces().items():
        out[sq] = code[str(piece)]
    return out


def _cells_getter(board: Any) -> Callable[[], Sequence[int]]:
    if getattr(board, "cells", None) is not None:
        return lambda: board.cells
    return lambda: board_cells(board)


def geometry_for(rules: Any) -> tuple[Geometry, EvalWeights]:
    """The evaluation geometry and weights for a ``Rules`` record."""
    variant = getattr(rules, "variant", "")
    if variant == "tablut":
        family = "tablut"
    elif getattr(rules, "escape", "corner") == "corner":
        family = "corner"
    else:
        family = "edge"
    camps = frozenset().union(*rules.camps) if getattr(rules, "camps", ()) else frozenset()
    blocked = frozenset(getattr(rules, "king_blocked", frozenset())) | camps
    geo = make_geometry(
        family, rules.size, rules.escape_squares, blocked,
        frozenset(getattr(rules, "hostile_to_king", frozenset())),
        start_attackers=rules.start.count("t"),
        start_defenders=rules.start.count("T"),
    )
    return geo, FAMILY_WEIGHTS[family]


def _side_is_attackers(side: Any) -> bool:
    return str(getattr(side, "value", side)) == "attackers"


# --------------------------------------------------------------------------- results

@dataclass
class SearchResult:
    """What a search found and what it cost (the tests and the bench read the accounting)."""

    move: Any                      # engine Move, or None when the game is over
    move_text: str                 # OTN with captures, "" when there is no move
    score: int                     # side to move's view, 100 = one attacker
    depth: int                     # deepest finished iteration
    nodes: int
    elapsed_s: float
    stopped_by: str                # depth | time | nodes | mate | only_move | win_in_one | no_moves
    pv: list[str] = field(default_factory=list)
    budget_s: float = 0.0
    guard_rejected: int = 0        # root moves the blunder guard refused


class _NodeLimit(Exception):
    pass


# --------------------------------------------------------------------------- the searcher

class Searcher:
    """One search over one board. Not thread-safe; the board is restored on return."""

    def __init__(
        self,
        board: Any,
        level: Level,
        seed: int = 0,
        budget_s: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        tt: dict | None = None,
    ) -> None:
        self.board = board
        self.level = level
        self.seed = seed
        self.budget_s = float(budget_s if budget_s is not None else level.time_s)
        self.clock = clock
        self.tt: dict = tt if tt is not None else {}
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        rules = board.rules
        self.rules = rules
        self.geo, self.weights = geometry_for(rules)
        self.n = rules.size
        self.n2 = self.n * self.n
        self.cells = _cells_getter(board)
        # The rules engine's search entry points (no sorting, no legality re-check,
        # no no-legal-move test on every node); the public API otherwise.
        self.gen: Callable[[], list] = getattr(board, "generate_moves", None) or (lambda: board.legal_moves)
        self.push: Callable[[Any], Any] = getattr(board, "push_unchecked", board.push)
        self.pop: Callable[[], Any] = board.pop
        if hasattr(type(board), "game_end"):
            self.end: Callable[[], Any] = lambda: board.game_end
        else:
            self.end = board.outcome
        self.no_move_loses = getattr(rules, "no_move_loses", True)
        if hasattr(board, "repetitions_of"):
            self.reps: Callable[[int], int] = board.repetitions_of
        else:
            self.reps = lambda h: board.repetitions() if h == board.zobrist_hash() else 0
        self.repetition_draw = getattr(rules, "repetition", "draw") == "draw"
        king_armed = getattr(rules, "king_armed", "yes")
        self.king_armed = king_armed != "no"
        self.custodial_king = getattr(rules, "king_capture", "four") == "custodial"
        self.hostile_att = frozenset(getattr(rules, "hostile_to_attackers", frozenset()))
        self.hostile_def = frozenset(getattr(rules, "hostile_to_defenders", frozenset()))
        self.hostile_king = frozenset(getattr(rules, "hostile_to_king", frozenset()))
        self.king_edge_immune = getattr(rules, "edge_fort", False)  # Copenhagen: no capture on the edge
        self.escape = self.geo.escape
        self._axes = self._capture_axes()
        self.nodes = 0
        self.node_cap = level.max_nodes if level.max_nodes > 0 else 0
        self.next_check = min(CHECK_EVERY, self.node_cap) if self.node_cap else CHECK_EVERY
        self.deadline: Deadline | None = None
        self.killers: list[list[Any]] = [[None, None] for _ in range(128)]
        # history[1 attackers / 0 defenders][from * n2 + to]
        self.history: list[list[int]] = [[0] * (self.n2 * self.n2), [0] * (self.n2 * self.n2)]
        self.path: list[int] = []
        # null moves: the board's pass (push_null/pop_null), when it has one
        self.null_ok = all(hasattr(board, a) for a in ("push_null", "pop_null", "ply"))
        self._null_child = -1
        self.has_bitboards = all(hasattr(board, a) for a in ("bitboard", "bit_masks", "defender_edge_reach"))
        self.reach_base = _start_reach(board) if self.has_bitboards else 0
        if self.has_bitboards:
            masks = board.bit_masks
            self._not_a, self._not_last, self._full = masks.not_file_a, masks.not_file_last, masks.full
            self._kblocked_mask = sum(1 << sq for sq in self.geo.king_blocked)
            self._targets_mask = sum(1 << sq for sq in self.geo.targets)


    # ----------------------------------------------------------------- helpers
    def _capture_axes(self) -> list[tuple[tuple[int, int], ...]]:
        """For each square: the (one side, other side) square pairs of its two lines."""
        n = self.n
        out = []
        for sq in range(self.n2):
            r, f = divmod(sq, n)
            pairs = []
            if 0 < f < n - 1:
                pairs.append((sq - 1, sq + 1))
            if 0 < r < n - 1:
                pairs.append((sq - n, sq + n))
            out.append(tuple(pairs))
        return out

    def _tick(self) -> None:
        self.next_check = self.nodes + CHECK_EVERY
        if self.node_cap:
            if self.nodes >= self.node_cap:
                raise _NodeLimit
            self.next_check = min(self.next_check, self.node_cap)
        if self.deadline is not None and self.deadline.expired():
            raise SearchTimeout

    def _terminal_score(self, ply: int) -> int | None:
        """Score of a game the last move finished, for the side to move, or None.

        (A side left without moves is found when its move list comes out empty.)
        """
        out = self.end()
        if out is None:
            return None
        if out.winner is None:
            return 0
        return (WIN - ply) if out.winner == self.board.turn else -(WIN - ply)

    # ----------------------------------------------------------------- ordering
    def _capture_squares(self, cells: Sequence[int], att: bool) -> set[int]:
        """Empty squares where a piece of the side to move would (likely) capture.

        Built from the enemy pieces (a dozen or two) instead of testing every
        move (a hundred or more): for each enemy man and each line through it,
        an anvil (own piece, armed king, hostile empty square) on one side and
        an empty square on the other make that empty square a capture square.
        Used for ordering only, so rare misses (the anvil being the moving
        piece itself) cost a little speed, never correctness.
        """
        own = ATT if att else DEF
        enemy = DEF if att else ATT
        hostile = self.hostile_def if att else self.hostile_att
        king_anvil = (not att) and self.king_armed
        out: set[int] = set()
        for _n, (a, b) in self._axes_of_enemy(cells, enemy):
            ca = cells[a]
            cb = cells[b]
            if not cb and (ca == own or (ca == KING and king_anvil) or (not ca and a in hostile)):
                out.add(b)
            if not ca and (cb == own or (cb == KING and king_anvil) or (not cb and b in hostile)):
                out.add(a)
        return out

    def _axes_of_enemy(self, cells: Sequence[int], enemy: int):
        axes = self._axes
        for sq, c in enumerate(cells):
            if c == enemy:
                for pair in axes[sq]:
                    yield sq, pair

    def _order_quick(self, moves: Sequence[Any], tt_move: Any, ply: int, cells: Sequence[int]) -> list[Any]:
        """Ordering for the nodes just above the leaves: one pass, no sort.

        There the first move that reaches beta usually ends the node after two
        or three evaluations, so sorting all the moves would cost more than it
        saves; the likely-decisive moves (table move, captures, king moves,
        blocks of the king's lines, killers) go first, the rest keep their order.
        """
        att = _side_is_attackers(self.board.turn)
        king = _king_square(cells)
        caps = self._capture_squares(cells, att)
        killers = self.killers[ply] if ply < len(self.killers) else (None, None)
        k0, k1 = killers[0], killers[1]
        if att and king >= 0:
            caps.update(king_route_squares(cells, king, self.geo))
            caps.update(self.geo.neighbours[king])
        first: list[Any] = []
        rest: list[Any] = []
        head = None
        for m in moves:
            if m is tt_move:
                head = m
            elif m.to_sq in caps or m.from_sq == king or m is k0 or m is k1:
                first.append(m)
            else:
                rest.append(m)
        if head is not None:
            first.insert(0, head)
        first.extend(rest)
        return first

    def _order(self, moves: Sequence[Any], tt_move: Any, ply: int, cells: Sequence[int]) -> list[Any]:
        att = _side_is_attackers(self.board.turn)
        king = _king_square(cells)
        escape = self.escape
        targets = self.geo.targets
        rays = self.geo.rays
        kblocked = self.geo.king_blocked
        caps = self._capture_squares(cells, att)
        killers = self.killers[ply] if ply < len(self.killers) else (None, None)
        k0, k1 = killers[0], killers[1]
        hist = self.history[1 if att else 0]
        n2 = self.n2
        if att and king >= 0:
            block = set(king_route_squares(cells, king, self.geo))
            king_nbrs = set(self.geo.neighbours[king])
        else:
            block = king_nbrs = set()
        scored: list[tuple[int, Any]] = []
        append = scored.append
        for m in moves:
            if m is tt_move:
                append((1 << 40, m))
                continue
            f = m.from_sq
            t = m.to_sq
            s = hist[f * n2 + t]
            if t in caps:
                s += 1 << 32
            if f == king:
                if t in escape:
                    s += 1 << 39
                else:
                    s += 30_000
                    for line in rays[t]:
                        for sq in line:
                            if cells[sq] or sq in kblocked:
                                break
                            if sq in targets:
                                s += 1 << 30
                                break
            elif att:
                if t in block:
                    s += 1 << 31
                if t in king_nbrs:
                    s += 50_000
            if m is k0:
                s += 900_000
            elif m is k1:
                s += 800_000
            append((s, m))
        scored.sort(key=_first, reverse=True)
        return [m for _, m in scored]

    # ----------------------------------------------------------------- leaves
    def _king_capture_in_one(self, cells: Sequence[int], ply: int) -> int | None:
        """Attackers to move: a move that captures the king now, found without generating all moves."""
        king = _king_square(cells)
        if king < 0:
            return None
        nbrs = self.geo.neighbours[king]
        if self.king_edge_immune and len(nbrs) < 4:
            return None
        empty_targets = []
        for nb in nbrs:
            c = cells[nb]
            if c == ATT or (not c and nb in self.hostile_king):
                continue
            if c:
                if not self.custodial_king:
                    return None
                continue
            empty_targets.append(nb)
        if not empty_targets or (not self.custodial_king and len(empty_targets) > 1):
            return None
        b = self.board
        for target in empty_targets:
            for line in self.geo.rays[target]:
                for sq in line:
                    c = cells[sq]
                    if not c:
                        continue
                    if c == ATT:
                        mv = _move_of(b, sq, target)
                        if mv is not None and b.is_legal(mv):
                            self.push(mv)
                            out = self.end()
                            self.pop()
                            if out is not None and out.winner is not None and _side_is_attackers(out.winner):
                                return WIN - ply - 1
                    break
        return None

    def _reach(self) -> int:
        """Edge squares the defenders reach through attacker-free squares (bitboard flood)."""
        return self.board.defender_edge_reach()

    def _leaf(self, ply: int) -> int:
        cells = self.cells()
        att = _side_is_attackers(self.board.turn)
        if att:
            cap = self._king_capture_in_one(cells, ply)
            if cap is not None:
                return cap
        reach: int | None = None
        route3: int | None = None
        if self.has_bitboards:
            reach = self._reach() - self.reach_base
            route3 = self._route3(cells)
        return evaluate_cells(cells, att, self.geo, self.weights, reach, route3)

    def _slide(self, sources: int, empty: int) -> int:
        """Squares a rook-moving piece on any of ``sources`` reaches in one move over ``empty``."""
        n = self.n
        na, nl = self._not_a, self._not_last
        out = 0
        x = sources
        while x:
            x = (x << 1) & na & empty
            out |= x
        x = sources
        while x:
            x = (x >> 1) & nl & empty
            out |= x
        x = sources
        while x:
            x = (x << n) & empty
            out |= x
        x = sources
        while x:
            x = (x >> n) & empty
            out |= x
        return out

    def _route3(self, cells: Sequence[int]) -> int:
        """Targets the king first reaches in exactly three moves (bitboard flood, empty board squares)."""
        b = self.board
        k = b.king_square
        if k is None:
            return 0
        occ = b.bitboard(Side.ATTACKERS) | b.bitboard(Side.DEFENDERS)
        empty = self._full & ~occ & ~self._kblocked_mask
        targets = self._targets_mask
        d1 = self._slide(1 << k, empty)
        d2 = self._slide(d1 & ~targets, empty) & ~d1
        seen = d1 | d2
        d3 = self._slide(d2 & ~targets, empty) & ~seen
        return (d3 & targets).bit_count()

    # ----------------------------------------------------------------- the tree
    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._tick()
        b = self.board
        term = self._terminal_score(ply)
        if term is not None:
            return term
        key = b.zobrist_hash()
        if self.repetition_draw and key in self.path:
            return 0
        # A position met before (in the game or on this path) has a value that
        # depends on the history (a third repetition may be near): its table
        # entry may order moves but never cut, and it is not stored.
        repeated = self.reps(key) >= 2
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth and not repeated:
                if e_score > WIN_BOUND:
                    e_score -= ply
                elif e_score < -WIN_BOUND:
                    e_score += ply
                if e_flag == EXACT:
                    return e_score
                if e_flag == LOWER and e_score >= beta:
                    return e_score
                if e_flag == UPPER and e_score <= alpha:
                    return e_score
        if depth <= 0:
            return self._leaf(ply)
        cells = self.cells()
        # Null move: if passing still holds beta at reduced depth, so will a real
        # move (tafl has almost no zugzwang). Not twice in a row, not near mates,
        # and only where the static judgement already reaches beta.
        if (depth >= 3 and self.null_ok and ply > 0 and self._null_child != ply
                and -WIN_BOUND < beta < WIN_BOUND):
            att_now = _side_is_attackers(b.turn)
            if evaluate_cells(cells, att_now, self.geo, self.weights) >= beta:
                base = b.ply
                saved = self._null_child
                b.push_null()
                self._null_child = ply + 1
                try:
                    score = -self._negamax(depth - 1 - NULL_R, -beta, -beta + 1, ply + 1)
                except BaseException:
                    # interrupted: take back the moves above the pass first, then the pass
                    while b.ply > base:
                        self.pop()
                    b.pop_null()
                    self._null_child = saved
                    raise
                b.pop_null()
                self._null_child = saved
                if score >= beta:
                    return beta
        moves = self.gen()
        if not moves:
            return -(WIN - ply) if self.no_move_loses else 0
        if depth > 1:
            ordered = self._order(moves, tt_move, ply, cells)
        else:
            ordered = self._order_quick(moves, tt_move, ply, cells)
        alpha0 = alpha
        best = -INF
        best_move = None
        att = _side_is_attackers(b.turn)
        self.path.append(key)
        push, pop = self.push, self.pop
        try:
            for i, m in enumerate(ordered):
                push(m)
                if i == 0:
                    score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
                else:
                    r = 0
                    if depth >= 3 and i >= 6 and m is not tt_move:
                        r = 1 if i < 20 else 2
                        if depth - 1 - r < 1:
                            r = depth - 2
                    score = -self._negamax(depth - 1 - r, -alpha - 1, -alpha, ply + 1)
                    if score > alpha and (r or score < beta):
                        score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
                pop()
                if score > best:
                    best = score
                    best_move = m
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if ply < len(self.killers):
                                k = self.killers[ply]
                                if k[0] != m:
                                    k[1] = k[0]
                                    k[0] = m
                            hist = self.history[1 if att else 0]
                            hist[m.from_sq * self.n2 + m.to_sq] += depth * depth
                            break
        finally:
            self.path.pop()
        if repeated:
            return best
        flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
        stored = best
        if stored > WIN_BOUND:
            stored += ply
        elif stored < -WIN_BOUND:
            stored -= ply
        self.tt[key] = (depth, flag, stored, best_move)
        return best

    # ----------------------------------------------------------------- the root
    def _winning_move(self, moves: Sequence[Any]) -> Any:
        """A root move that ends the game in our favour, or None."""
        b = self.board
        me = b.turn
        for m in moves:
            self.push(m)
            out = self.end()
            if out is None and self.no_move_loses and not self.gen():
                out_winner = me
            else:
                out_winner = out.winner if out is not None else None
            self.pop()
            if out_winner == me:
                return m
        return None

    def _opponent_wins_next(self) -> bool:
        """After our move (opponent to move): can the opponent win with one move?

        Only the moves that can win are tried: king moves and moves next to or
        near the king (edge forts) for the defenders, moves next to the king for
        the attackers (king capture), every move when there are few.
        """
        b = self.board
        them = b.turn
        cells = self.cells()
        king = _king_square(cells)
        if king < 0:
            return False
        moves = self.gen()
        n = self.n
        kr, kf = divmod(king, n)
        defenders = not _side_is_attackers(them)
        near = set(self.geo.neighbours[king])
        edge_fort = getattr(self.rules, "edge_fort", False)
        for m in moves:
            f, t = m.from_sq, m.to_sq
            if len(moves) > 40:
                if defenders:
                    tr, tf = divmod(t, n)
                    if f != king and not (edge_fort and abs(tr - kr) <= 2 and abs(tf - kf) <= 2):
                        continue
                elif t not in near:
                    continue
            self.push(m)
            out = self.end()
            self.pop()
            if out is not None and out.winner == them:
                return True
        return False

    def _safe(self, move: Any) -> bool:
        self.push(move)
        try:
            if self.end() is not None:
                return True
            return not self._opponent_wins_next()
        finally:
            self.pop()

    def search(self) -> SearchResult:
        """Iterative deepening from the board's position; the board is unchanged afterwards."""
        b = self.board
        level = self.level
        start = self.clock()
        self.deadline = Deadline(self.budget_s, clock=self.clock)
        root_len = len(b.move_stack)
        if b.outcome() is not None:
            return SearchResult(None, "", 0, 0, 0, 0.0, "no_moves", budget_s=self.budget_s)
        moves = list(self.gen())
        if not moves:
            return SearchResult(None, "", -WIN, 0, 0, 0.0, "no_moves", budget_s=self.budget_s)

        def finish(move: Any, score: int, depth: int, why: str, pv: list[str] | None = None,
                   rejected: int = 0) -> SearchResult:
            while len(b.move_stack) > root_len:
                b.pop()
            return SearchResult(move, b.move_to_otn(move), score, depth, self.nodes,
                                self.clock() - start, why, pv or [b.move_to_otn(move)],
                                self.budget_s, rejected)

        if len(moves) == 1:
            return finish(moves[0], 0, 0, "only_move")
        win = self._winning_move(moves)
        if win is not None:
            return finish(win, WIN - 1, 1, "win_in_one")

        rng = random.Random((self.seed * 1_000_003) ^ (b.zobrist_hash() & 0xFFFFFFFF))
        offsets = {m: (rng.gauss(0.0, level.noise) if level.noise > 0 else 0.0) for m in moves}

        order = self._order(moves, None, 0, self.cells())
        scores: dict[Any, int] = {}
        best_move = order[0]
        best_score = -INF
        depth_done = 0
        why = "depth"
        key = b.zobrist_hash()
        try:
            for depth in range(1, max(1, level.max_depth) + 1):
                if depth > 1 and not self.deadline.may_start_iteration():
                    why = "time"
                    break
                it_best, it_score, it_scores = self._root(order, offsets, depth, key)
                scores = it_scores
                best_move, best_score = it_best, it_score
                depth_done = depth
                order = sorted(order, key=lambda m: scores.get(m, -INF) + offsets[m], reverse=True)
                if abs(best_score) > WIN_BOUND:
                    why = "mate"
                    break
        except SearchTimeout:
            why = "time"
            while len(b.move_stack) > root_len:
                b.pop()
            if self._partial is not None:
                best_move, best_score = self._partial
        except _NodeLimit:
            why = "nodes"
            while len(b.move_stack) > root_len:
                b.pop()
            if self._partial is not None:
                best_move, best_score = self._partial
        rejected = 0
        if level.blunder_guard and depth_done < 2:
            ranked = sorted(order, key=lambda m: scores.get(m, -INF) + offsets[m], reverse=True)
            if best_move in ranked:
                ranked.remove(best_move)
            ranked.insert(0, best_move)
            for m in ranked:
                if self._safe(m):
                    if m is not best_move:
                        best_score = scores.get(m, best_score)
                    best_move = m
                    break
                rejected += 1
            else:
                best_move = ranked[0]
        pv = self._pv(best_move)
        return finish(best_move, best_score, depth_done, why, pv, rejected)

    _partial: tuple[Any, int] | None = None

    def _root(self, order: list[Any], offsets: Mapping[Any, float], depth: int,
              key: int) -> tuple[Any, int, dict[Any, int]]:
        """One iteration at the root: exact score for the chosen move, bounds for the rest.

        With noise, the chosen move maximises score + offset: each later move is
        first tested with a null window against the current best's noisy score.
        """
        self._partial = None
        scores: dict[Any, int] = {}
        best_move = None
        best_noisy = -float(INF)
        best_score = -INF
        exact_all = depth == 1
        self.path.append(key)
        try:
            for m in order:
                off = offsets[m]
                self.push(m)
                try:
                    if best_move is None or exact_all:
                        score = -self._negamax(depth - 1, -INF, INF, 1)
                    else:
                        bar = int(best_noisy - off)
                        score = -self._negamax(depth - 1, -bar - 1, -bar, 1)
                        if score > bar:
                            score = -self._negamax(depth - 1, -INF, -bar, 1)
                finally:
                    self.pop()
                scores[m] = score
                if best_move is None or score + off > best_noisy:
                    best_move, best_noisy, best_score = m, score + off, score
                    self._partial = (best_move, best_score)
        finally:
            self.path.pop()
        return best_move, best_score, scores

    def _pv(self, first: Any, limit: int = 12) -> list[str]:
        """The principal variation from the TT, as OTN texts (for OTEP's analysis)."""
        b = self.board
        out: list[str] = []
        pushed = 0
        seen: set[int] = set()
        m = first
        try:
            while m is not None and len(out) < limit:
                if not b.is_legal(m):
                    break
                out.append(b.move_to_otn(m))
                self.push(m)
                pushed += 1
                if self.end() is not None:
                    break
                k = b.zobrist_hash()
                if k in seen:
                    break
                seen.add(k)
                e = self.tt.get(k)
                m = e[3] if e else None
        finally:
            for _ in range(pushed):
                self.pop()
        return out


_START_REACH: dict[Any, int] = {}


def _start_reach(board: Any) -> int:
    """The encirclement measure at the variant's start (so the start scores ~0)."""
    rules = board.rules
    if rules not in _START_REACH:
        start = type(board)(rules.variant, rules.options_dict)
        _START_REACH[rules] = start.defender_edge_reach()
    return _START_REACH[rules]


def _first(pair: tuple[int, Any]) -> int:
    return pair[0]


def _king_square(cells: Sequence[int]) -> int:
    try:
        return cells.index(KING)
    except ValueError:
        return -1


def _move_of(board: Any, frm: int, to: int) -> Any:
    """The board's Move object for (frm, to)."""
    return Move(frm, to)


# --------------------------------------------------------------------------- entry points

def search_board(board: Any, level: Level | str = "medium", seed: int = 0,
                 time_s: float | None = None, tt: dict | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> SearchResult:
    """Search ``board`` (its move history included) at ``level``; the board is left unchanged."""
    lvl = get_level(level) if isinstance(level, str) else level
    if time_s is not None:
        lvl = lvl.with_time(time_s)
    return Searcher(board, lvl, seed=seed, tt=tt, clock=clock).search()


def build_board(variant: str, options: Mapping[str, str] | None = None, position: str | None = None,
                turn: str | None = None, moves: Sequence[str] = ()) -> Any:
    """A Board at ``position``/``turn`` (default: the variant's start) with ``moves`` played on it.

    Playing the game's moves (rather than only setting its final position) gives
    the board its position history, which the repetition rules need.
    """
    from .board import Board  # the rules engine's public API
    from .types import Side

    opts = dict(options or {})
    if position:
        side = Side(turn) if turn else None
        if side is None:
            raise ValueError("a position needs a side to move (attackers or defenders)")
        board = Board.from_otn(variant, position, turn=side, options=opts)
    else:
        board = Board(variant, options=opts)
        if turn is not None and Side(turn) != board.turn:
            raise ValueError(f"{variant} starts with the {board.turn.value} to move, not {turn}")
    for i, text in enumerate(moves):
        try:
            mv = board.parse_move(text)
        except ValueError as exc:
            raise ValueError(f"history move {i + 1} ({text!r}): {exc}") from None
        if not board.is_legal(mv):
            raise ValueError(f"history move {i + 1} ({text!r}) is illegal here")
        board.push(mv)
    return board


def best_move_text(variant: str, options: Mapping[str, str] | None = None,
                   position: str | None = None, turn: str | None = None,
                   moves: Sequence[str] = (), level: str | Mapping[str, Any] = "medium",
                   time_s: float | None = None, seed: int = 0) -> str:
    """The engine's move in OTN (with captures), from plain values only: picklable for the kiosk.

    ``position``/``turn``: where the game started (None = the variant's start);
    ``moves``: the game's moves so far, in OTN, played from there (they give the
    repetition history); ``level``: a level name or a mapping with the level
    fields (time_s, max_depth, noise, blunder_guard[, max_nodes]);
    ``time_s`` overrides the level's time. Raises ValueError for bad input and
    when the game is already over.
    """
    board = build_board(variant, options, position, turn, moves)
    if isinstance(level, str):
        lvl = get_level(level)
    else:
        from .levels import level_from_mapping
        lvl = level_from_mapping(str(level.get("name", "custom")), level)
    result = search_board(board, lvl, seed=seed, time_s=time_s)
    if result.move is None:
        raise ValueError("the game is over: there is no move to make")
    return result.move_text
