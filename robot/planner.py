"""Motion planning: which piece goes where, along which path, in which order.

WHY these rules:
- The robot's own move slides straight: a legal tafl move has a clear line.
- Every other drag (parking a captured piece, setting up, clearing) follows
  the street graph: a lattice at half the square pitch over the board (the
  lines between squares, the square centres and the corners) joined to a
  lattice at half the slot pitch over each storage area. An edge is usable
  only if the dragged disc keeps its radius + the other disc's radius + a
  margin from every standing piece, so a path never crosses an occupied square
  centre and passes between pieces only along the streets. A* finds the
  shortest path; it is then straightened wherever a straight cut is clear.
- Several captures are parked in the order (of all orders) that gives the
  shortest total travel, each into the nearest free slot of its side.
- Between two games (`plan_reset`) the robot goes straight from the final
  position to the next start: pieces in place stay, the others are paired with
  the squares that need their kind, or with free slots, by a minimum-time
  assignment per kind (Hungarian method), and storage is used only for the
  difference. Set-up from storage and clearing (`plan_arrangement`) are the same
  question with an empty board or an empty target. The carries are ordered so
  that every destination is empty and every drag has a street route when it
  runs, with little empty travel.
- Costs are the reference gantry's seconds (`MotionTimes`: GRBL's trapezoids,
  per-axis limits and junction speeds), not millimetres: travel is three times
  faster than a drag, and every carry pays the magnet's dwell.
All coordinates are board millimetres; the gantry turns them into machine mm.
"""
from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, AbstractSet, Mapping, Sequence

import numpy as np

from robot.collision import Obstacle
from robot.kinematics import AxisLimits, junction_speed, make_block, replan, straight_move_time, \
    trapezoid_time
from robot.layout import ATTACKER, DEFENDER, KING, KING_SLOT, SIDES, Location, Slot, TableLayout, \
    location_from_json, location_to_json, piece_letter, side_of

if TYPE_CHECKING:
    from engine import Board

Point = tuple[float, float]
Carry = tuple[Location, Location, str]     # one piece from a place to a place (src, dst, piece)


class PlanError(ValueError):
    """No plan exists (no path, no free slot, missing pieces)."""


@dataclass(frozen=True)
class Step:
    """Carry one piece: travel (magnet off) to path[0], magnet on, drag along path, magnet off."""

    src: Location
    dst: Location
    piece: str
    kind: str                   # 'move', 'park', 'setup', 'clear', 'transfer'
    path: tuple[Point, ...]

    @property
    def drag_length(self) -> float:
        return sum(math.dist(a, b) for a, b in zip(self.path, self.path[1:]))

    def to_json(self) -> dict:
        return {"src": location_to_json(self.src), "dst": location_to_json(self.dst),
                "piece": self.piece, "kind": self.kind,
                "path": [[round(x, 3), round(y, 3)] for x, y in self.path]}

    @classmethod
    def from_json(cls, data: dict) -> "Step":
        return cls(location_from_json(data["src"]), location_from_json(data["dst"]),
                   str(data["piece"]), str(data["kind"]),
                   tuple((float(x), float(y)) for x, y in data["path"]))


def apply_step(places: dict[Location, str], step: Step) -> dict[Location, str]:
    out = dict(places)
    out.pop(step.src, None)
    out[step.dst] = step.piece
    return out


def assign(cost: "list[list[float]] | np.ndarray") -> list[int]:
    """Minimum-cost assignment of each row to a distinct column (rows <= columns).

    The Hungarian method with potentials (shortest augmenting paths),
    O(rows^2 * columns), the inner loop over columns done by numpy. Costs must
    be finite: forbid a pairing with a large cost instead of infinity.
    """
    c = np.asarray(cost, dtype=float)
    if c.size == 0:
        return []
    n, m = c.shape
    if m < n:
        raise ValueError("more rows than columns")
    if not np.all(np.isfinite(c)):
        raise ValueError("assignment costs must be finite")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, dtype=int)      # row (1-based) assigned to each column; 0 = none
    way = np.zeros(m + 1, dtype=int)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = np.full(m + 1, math.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = owner[j0]
            free = ~used
            free[0] = False
            reduced = c[i0 - 1] - u[i0] - v[1:]
            better = free[1:] & (reduced < minv[1:])
            minv[1:][better] = reduced[better]
            way[1:][better] = j0
            masked = np.where(free[1:], minv[1:], math.inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            minv[free] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    result = [-1] * n
    for j in range(1, m + 1):
        if owner[j]:
            result[owner[j] - 1] = j - 1
    return result


@dataclass
class _Roadmap:
    nodes: np.ndarray                       # (N, 2) board mm
    neighbours: list[list[int]] = field(default_factory=list)
    radius: float = 0.0


class MotionPlanner:
    """Plans drags for one table layout."""

    def __init__(self, layout: TableLayout, margin_mm: float = 0.5):
        self.layout = layout
        self.margin = margin_mm
        self.roadmap = self._build_roadmap()

    # ------------------------------------------------------------------ roadmap
    def _build_roadmap(self) -> _Roadmap:
        lay = self.layout
        w, half = lay.width, lay.pitch / 2
        st = lay.config.storage
        sp = st.slot_pitch_mm / 2
        pts: list[Point] = []
        n = 2 * lay.size
        pts += [(i * half, j * half) for i in range(n + 1) for j in range(n + 1)]
        slot_ys = [lay.position(s)[1] for s in lay.slots()]
        y_lo = min(0.0, min(slot_ys) - sp)
        y_hi = max(w, max(slot_ys) + sp)
        ys = [st.first_slot_y_mm + k * sp for k in range(-int((st.first_slot_y_mm - y_lo) // sp),
                                                        int((y_hi - st.first_slot_y_mm) // sp) + 1)]
        for side in SIDES:
            xs_slots = sorted({lay.position(s)[0] for s in lay.slots(side)})
            if side == "attackers":
                x = min(xs_slots) - sp
                xs = []
                while x < -1e-6:
                    xs.append(x)
                    x += sp
            else:
                x = max(xs_slots) + sp
                xs = []
                while x > w + 1e-6:
                    xs.append(x)
                    x -= sp
            pts += [(x, y) for x in xs for y in ys]
        travel = lay.config.gantry.travel_mm
        keep = []
        seen = set()
        for p in pts:
            key = (round(p[0], 3), round(p[1], 3))
            if key in seen:
                continue
            mx, my = lay.to_machine(p)
            if -1e-6 <= mx <= travel[0] + 1e-6 and -1e-6 <= my <= travel[1] + 1e-6:
                seen.add(key)
                keep.append(p)
        nodes = np.array(keep, dtype=float)
        radius = 1.05 * math.sqrt(2) * max(half, sp)
        d = np.hypot(nodes[:, None, 0] - nodes[None, :, 0], nodes[:, None, 1] - nodes[None, :, 1])
        neighbours = [np.nonzero((row > 1e-9) & (row <= radius))[0].tolist() for row in d]
        return _Roadmap(nodes, neighbours, radius)

    # ------------------------------------------------------------------ paths
    def obstacles(self, places: dict[Location, str], moving: Location | None) -> list[Obstacle]:
        lay = self.layout
        return [Obstacle(*lay.position(loc), lay.radius(p), f"{p} at {lay.name(loc)}")
                for loc, p in places.items() if loc != moving]

    def route(self, start: Point, goal: Point, radius: float, obstacles: list[Obstacle],
              straight_first: bool = True) -> list[Point]:
        """A clear path for a disc of `radius` from start to goal (raises PlanError)."""
        if obstacles:
            obs = np.array([(o.x, o.y, o.radius) for o in obstacles], dtype=float)
        else:
            obs = np.zeros((0, 3))
        need = obs[:, 2] + radius + self.margin if len(obs) else np.zeros(0)

        def clear(a: Point, b: Point) -> bool:
            if not len(obs):
                return True
            ax, ay = a
            dx, dy = b[0] - ax, b[1] - ay
            n2 = dx * dx + dy * dy
            if n2 <= 1e-18:
                t = np.zeros(len(obs))
            else:
                t = np.clip(((obs[:, 0] - ax) * dx + (obs[:, 1] - ay) * dy) / n2, 0.0, 1.0)
            dist = np.hypot(obs[:, 0] - (ax + t * dx), obs[:, 1] - (ay + t * dy))
            return bool(np.all(dist >= need - 1e-9))

        if straight_first and clear(start, goal):
            return [start, goal]
        rm = self.roadmap
        nodes = rm.nodes
        d_start = np.hypot(nodes[:, 0] - start[0], nodes[:, 1] - start[1])
        d_goal = np.hypot(nodes[:, 0] - goal[0], nodes[:, 1] - goal[1])
        goal_links = {int(i) for i in np.nonzero(d_goal <= rm.radius)[0]}
        START, GOAL = -1, -2

        def pt(i: int) -> Point:
            return start if i == START else goal if i == GOAL else (nodes[i, 0], nodes[i, 1])

        def h(i: int) -> float:
            return 0.0 if i == GOAL else math.dist(pt(i), goal)

        g: dict[int, float] = {START: 0.0}
        parent: dict[int, int] = {}
        closed: set[int] = set()
        counter = itertools.count()               # tie-breaker: never compare node ids
        heap = [(h(START), next(counter), START)]
        while heap:
            _, _, cur = heapq.heappop(heap)
            if cur in closed:
                continue
            if cur == GOAL:
                break
            closed.add(cur)
            if cur == START:
                cand = [int(i) for i in np.nonzero(d_start <= rm.radius)[0]]
            else:
                cand = list(rm.neighbours[cur])
                if cur in goal_links:
                    cand.append(GOAL)
            p = pt(cur)
            for nb in cand:
                if nb in closed:
                    continue
                q = pt(nb)
                cost = g[cur] + math.dist(p, q)
                if cost >= g.get(nb, math.inf) - 1e-9:
                    continue
                if not clear(p, q):
                    continue
                g[nb] = cost
                parent[nb] = cur
                heapq.heappush(heap, (cost + h(nb), next(counter), nb))
        if GOAL not in parent:
            raise PlanError(f"no clear path from ({start[0]:.0f}, {start[1]:.0f}) to "
                            f"({goal[0]:.0f}, {goal[1]:.0f}) mm")
        chain = [GOAL]
        while chain[-1] != START:
            chain.append(parent[chain[-1]])
        path = [pt(i) for i in reversed(chain)]
        # straighten: from each point jump to the farthest point still in clear view
        out = [path[0]]
        i = 0
        while i < len(path) - 1:
            j = len(path) - 1
            while j > i + 1 and not clear(path[i], path[j]):
                j -= 1
            out.append(path[j])
            i = j
        return [(float(x), float(y)) for x, y in out]

    def transfer(self, places: dict[Location, str], src: Location, dst: Location,
                 kind: str = "transfer", offset: Point = (0.0, 0.0),
                 straight_first: bool = True) -> Step:
        """One piece from src to dst around everything else (PlanError if impossible)."""
        piece = places.get(src)
        lay = self.layout
        if piece is None:
            raise PlanError(f"no piece at {lay.name(src)} to carry")
        if src == dst:
            raise PlanError(f"{lay.name(src)} to itself is no move")
        if dst in places and dst != src:
            raise PlanError(f"{lay.name(dst)} is taken by {places[dst]}")
        a, b = lay.position(src), lay.position(dst)
        obstacles = self.obstacles(places, src)
        path = self.route(a, b, lay.radius(piece), obstacles, straight_first)
        if offset != (0.0, 0.0):
            path = [(a[0] + offset[0], a[1] + offset[1])] + path
        return Step(src, dst, piece, kind, tuple(path))

    # ------------------------------------------------------------------ storage slots
    def park_slot(self, places: dict[Location, str], piece: str, near: Point,
                  taken: AbstractSet[Slot] = frozenset()) -> Slot:
        """The free slot for a piece leaving the board: the king's own slot for the king,
        else the nearest free slot of its side."""
        side = side_of(piece)
        free = [s for s in self.layout.slots(side) if s not in places and s not in taken]
        if piece == KING and KING_SLOT in free:
            return KING_SLOT
        free = [s for s in free if s != KING_SLOT] or free
        if not free:
            raise PlanError(f"no free storage slot for a {side[:-1]}")
        return min(free, key=lambda s: math.dist(self.layout.position(s), near))

    # ------------------------------------------------------------------ plans
    def plan_move(self, places: dict[Location, str], src: int, dst: int,
                  captures: tuple[int, ...] | list[int] = ()) -> list[Step]:
        """A move: the piece slides straight, then each captured piece goes to storage."""
        step = self.transfer(places, src, dst, "move", straight_first=True)
        steps = [step]
        cur = apply_step(places, step)
        for sq in self.capture_order(cur, list(captures), self.layout.position(dst)):
            piece = cur.get(sq)
            if piece is None:
                raise PlanError(f"captured square {self.layout.name(sq)} is empty")
            slot = self.park_slot(cur, piece, self.layout.position(sq))
            park = self.transfer(cur, sq, slot, "park")
            steps.append(park)
            cur = apply_step(cur, park)
        return steps

    def capture_order(self, places: dict[Location, str], captures: list[int],
                      start: Point) -> list[int]:
        """Of all orders, the one with the shortest estimated total travel + drag."""
        if len(captures) <= 1:
            return list(captures)
        lay = self.layout
        best, best_cost = list(captures), math.inf
        for order in itertools.permutations(captures):
            pos, cost, cur = start, 0.0, dict(places)
            for sq in order:
                p = lay.position(sq)
                piece = cur[sq]
                slot = self.park_slot(cur, piece, p)
                s = lay.position(slot)
                cost += math.dist(pos, p) + math.dist(p, s)
                del cur[sq]
                cur[slot] = piece
                pos = s
            if cost < best_cost - 1e-9:
                best, best_cost = list(order), cost
        return best

    def plan_park(self, places: dict[Location, str], square: int) -> list[Step]:
        piece = places.get(square)
        if piece is None:
            raise PlanError(f"no piece on {self.layout.name(square)} to park")
        slot = self.park_slot(places, piece, self.layout.position(square))
        return [self.transfer(places, square, slot, "park")]

    def plan_arrangement(self, places: dict[Location, str], target: dict[int, str],
                         start: Point | None = None, kind: str | None = None) -> list[Step]:
        """Turn the table `places` (squares and slots) into `target` on the board: the
        reset of plan_reset, as a PlanError when some target square cannot be filled or
        some piece finds no free slot (set-up, clearing: `tafl-robot setup` / `clear`).
        `kind` names every step ('setup', 'clear') instead of plan_reset's own names."""
        board = {loc: p for loc, p in places.items() if isinstance(loc, int)}
        storage = {loc: p for loc, p in places.items() if isinstance(loc, Slot)}
        plan = self.plan_reset(board, storage, target, start)
        if plan.missing:
            piece = next(iter(plan.missing.values()))
            want = sum(1 for q, p in target.items() if p == piece and board.get(q) != p)
            have = want - sum(1 for p in plan.missing.values() if p == piece)
            raise PlanError(f"board and storage hold {have} of the {want} '{piece}' pieces the "
                            f"position still needs (missing on "
                            f"{', '.join(self.layout.name(q) for q in sorted(plan.missing))})")
        if plan.no_slot:
            raise PlanError("no free storage slot for the pieces on "
                            + ", ".join(self.layout.name(q) for q in sorted(plan.no_slot)))
        if kind is None:
            return list(plan.steps)
        return [Step(s.src, s.dst, s.piece, kind, s.path) for s in plan.steps]

    # ------------------------------------------------------------------ reset between games
    def table_after(self, game: "Board") -> tuple[dict[Location, str], Location]:
        """The table after `game` was played from its start with every piece in place:
        each capture parked as plan_move parks it (the nearest free slot of its side, the
        king in his own); also where the last move ended (the carriage waits there)."""
        from engine import Board  # engine is a lower layer; imported late to keep start-up light

        board = Board(game.variant, options=game.options) if game.options else Board(game.variant)
        places: dict[Location, str] = {sq: piece_letter(p) for sq, p in board.pieces().items()}
        last: Location = KING_SLOT
        for move in game.move_stack:
            captures = board.push(move)
            places[move.to_sq] = places.pop(move.from_sq)
            for sq in captures:
                piece = places.pop(sq)
                places[self.park_slot(places, piece, self.layout.position(sq))] = piece
            last = move.to_sq
        return places, last

    def plan_reset(self, board: Mapping[int, object], storage: Mapping[Slot, object],
                   target: Mapping[int, object], start: Point | None = None,
                   times: "MotionTimes | None" = None,
                   pickup_offset: Point = (0.0, 0.0)) -> "ResetPlan":
        """The transfers that turn `board` (square -> piece) with `storage` (slot -> piece)
        into `target` (square -> piece) in the least gantry time, in the order to run them.

        Pieces already on their target square stay. Every other piece of a kind
        goes, by a minimum-cost assignment per kind (king, defenders, attackers),
        to a target square that needs its kind (board to board, or storage to
        board) or, when the board has more of it than the target, to a free slot
        of its side (the king to his own). The cost of a carry is its time on
        `times` (default: the reference gantry): the dwell and the drag at the drag
        feed. (Adding an estimate of the empty travel to the next pickup, the way
        back to where the carry started, changed the total over 120 recorded games
        by +0.05%: the empty travel is left to the order.) The carries are then
        ordered so that every destination is empty and every drag has a clear street route when it
        runs, the empty travel between them short (cheapest next carry with one
        carry of look-ahead, then improved by moving carries within the order);
        a cycle (an attacker where a defender belongs and that defender where
        the attacker belongs) is broken by parking one piece on a free square
        or slot meanwhile. Target squares nothing can fill are in `missing`,
        board pieces with no free slot in `no_slot` (they stay where they are).
        `pickup_offset` shifts every pickup from the board (a missed-pickup retry).
        """
        times = times or MotionTimes.reference(self.layout)
        board_l = self._squares(board, "board")
        target_l = self._squares(target, "target")
        storage_l: dict[Slot, str] = {}
        for slot, piece in storage.items():
            try:
                letter = piece_letter(piece)
                self.layout.position(slot)
            except ValueError as exc:
                raise PlanError(f"storage: {exc}") from None
            if side_of(letter) != slot.side:
                raise PlanError(f"{letter} stored in the {slot.side}' slot {slot}")
            storage_l[slot] = letter
        pos = start if start is not None else self.layout.position(KING_SLOT)
        carries, missing, no_slot = self._reset_carries(board_l, storage_l, target_l, times)
        places: dict[Location, str] = {loc: p for part in (board_l, storage_l) for loc, p in part.items()}
        steps = self._order_carries(places, carries, pos, times, pickup_offset)
        return ResetPlan(tuple(steps), missing, no_slot, times.plan(steps, pos),
                         self._bound(carries, pos, times))

    def reset_lower_bound(self, board: Mapping[int, str], storage: Mapping[Slot, str],
                          target: Mapping[int, str], start: Point,
                          times: "MotionTimes") -> float:
        """The kinematic lower bound of a reset (seconds): the carries of the assignment
        with the least carry time (dwell + straight drag from stop to stop, as if nothing
        stood in the way), plus the least empty travel that links them (each pickup
        reached from the start or from the drop of another carry, a minimum-cost
        assignment, the classic relaxation of the travelling-salesman tour: no order,
        no collision rules). plan_reset uses the same assignment."""
        carries, _, _ = self._reset_carries(dict(board), dict(storage), dict(target), times)
        return self._bound(carries, start, times)

    def _bound(self, carries: list[Carry], start: Point,
               times: "MotionTimes") -> float:
        if not carries:
            return 0.0
        lay = self.layout
        picks = [lay.position(c[0]) for c in carries]
        drops = [lay.position(c[1]) for c in carries]
        carry = float(np.sum(np.diag(times.carry_only(picks, drops))))
        n = len(carries)
        travel = times.travel_matrix([start] + drops, picks)          # (n + 1) x n
        cost = np.hstack([travel, np.zeros((n + 1, 1))])             # last column: the end
        cost[0, n] = _FORBID                                          # the start must pick up
        cost[1 + np.arange(n), np.arange(n)] = _FORBID               # no carry follows itself
        cols = assign(cost)
        return carry + float(sum(cost[i, j] for i, j in enumerate(cols)))

    def _squares(self, pieces: Mapping[int, object], what: str) -> dict[int, str]:
        """Square -> piece letter, or a one-line PlanError naming what is wrong."""
        out = {}
        for sq, piece in pieces.items():
            on_board = isinstance(sq, int) and not isinstance(sq, bool) and 0 <= sq < self.layout.size ** 2
            if not on_board:
                raise PlanError(f"{what}: square {sq!r} is not on the {self.layout.size}x"
                                f"{self.layout.size} board")
            try:
                out[sq] = piece_letter(piece)
            except ValueError as exc:
                raise PlanError(f"{what}: {exc} on {self.layout.name(sq)}") from None
        return out

    def _reset_carries(self, board: dict[int, str], storage: dict[Slot, str],
                       target: dict[int, str], times: "MotionTimes",
                       ) -> tuple[list[Carry], dict[int, str], dict[int, str]]:
        """Which piece goes where: one minimum-cost assignment per kind (see plan_reset)."""
        lay = self.layout
        cost = times.carry_only
        fixed = {sq for sq, p in board.items() if target.get(sq) == p}
        reserved: set[Slot] = set()
        carries: list[Carry] = []
        missing: dict[int, str] = {}
        no_slot: dict[int, str] = {}
        for kind in (KING, DEFENDER, ATTACKER):
            from_board = [sq for sq, p in board.items() if p == kind and sq not in fixed]
            from_store = [s for s, p in storage.items() if p == kind]
            needs = [sq for sq, p in target.items() if p == kind and board.get(sq) != kind]
            free = [s for s in lay.slots(side_of(kind)) if s not in storage and s not in reserved]
            rows: list[Location] = [*from_board, *from_store]
            if not rows:
                missing.update({sq: kind for sq in needs})
                continue
            nb, ns, nt, nf = len(from_board), len(from_store), len(needs), len(free)
            c = np.full((nb + ns, nt + nf + ns + nb), _FORBID)
            pts = [lay.position(r) for r in rows]
            if nt:
                c[:, :nt] = cost(pts, [lay.position(q) for q in needs]) - _BONUS
            if nb and nf:
                c[:nb, nt:nt + nf] = cost(pts[:nb], [lay.position(s) for s in free])
                for j, s in enumerate(free):       # the king's slot is his; he prefers it
                    if (s == KING_SLOT) != (kind == KING):
                        c[:nb, nt + j] += _WRONG_SLOT
            c[nb + np.arange(ns), nt + nf + np.arange(ns)] = 0.0          # stay in storage
            c[np.arange(nb), nt + nf + ns + np.arange(nb)] = _BONUS        # stay put: no slot
            for i, j in enumerate(assign(c)):
                src = rows[i]
                if j < nt:
                    carries.append((src, needs[j], kind))
                elif j < nt + nf:
                    carries.append((src, free[j - nt], kind))
                    reserved.add(free[j - nt])
                elif j >= nt + nf + ns:
                    no_slot[from_board[i]] = kind
            filled = {dst for _, dst, _ in carries}
            missing.update({sq: kind for sq in needs if sq not in filled})
        # a piece that cannot leave blocks its square for whatever belonged there
        for sq in no_slot:
            if sq in target:
                missing[sq] = target[sq]
        carries = [cr for cr in carries if cr[1] not in no_slot]
        return carries, missing, no_slot

    def _order_carries(self, places: dict[Location, str],
                       carries: list[Carry], pos: Point,
                       times: "MotionTimes", offset: Point) -> list[Step]:
        """Carry out the carries in a short order, each planned against the table of its moment."""
        carries = self._break_cycles(places, carries, times)
        order = self._carry_order(places, carries, pos, times)
        cur = dict(places)
        todo = [carries[i] for i in order]
        steps: list[Step] = []
        while todo:
            for k, (src, dst, _piece) in enumerate(todo):
                if dst in cur:
                    continue            # its piece has not left yet
                kind = ("setup" if isinstance(src, Slot) else "park" if isinstance(dst, Slot)
                        else "transfer")
                try:
                    step = self.transfer(cur, src, dst, kind,
                                         offset if isinstance(src, int) else (0.0, 0.0))
                except PlanError:
                    continue            # no clear route now: another carry first
                del todo[k]
                break
            else:
                src, dst, _ = todo[0]
                raise PlanError(f"no clear path for {self.layout.name(src)} -> "
                                f"{self.layout.name(dst)} while resetting the board")
            steps.append(step)
            cur = apply_step(cur, step)
        return steps

    def _break_cycles(self, places: dict[Location, str],
                      carries: list[Carry],
                      times: "MotionTimes") -> list[Carry]:
        """Carries waiting on each other in a ring (each one's destination is the next one's
        pickup): one of them goes first to a free square or slot and on from there later,
        the one whose detour costs least."""
        lay = self.layout
        carries = list(carries)
        used = set(places) | {c[1] for c in carries}
        by_src = {c[0]: i for i, c in enumerate(carries)}
        seen: set[int] = set()
        for i0 in range(len(carries)):
            ring: list[int] = []
            i: int | None = i0
            while i is not None and i not in seen:
                seen.add(i)
                ring.append(i)
                i = by_src.get(carries[i][1])          # the carry that must leave my destination
            if i is None or i not in ring:
                continue
            ring = ring[ring.index(i):]
            options: list[tuple[float, int, Location]] = []
            for k in ring:
                src, dst, piece = carries[k]
                spare: list[Location] = [q for q in range(lay.size ** 2) if q not in used]
                spare += [s for s in lay.slots(side_of(piece)) if s not in used and s != KING_SLOT]
                a, b = lay.position(src), lay.position(dst)
                mids = [lay.position(q) for q in spare]
                detour = (times.carry_only([a], mids)[0] + times.carry_only(mids, [b])[:, 0]
                          + times.travel_matrix([b], mids)[0])
                j = int(np.argmin(detour))
                options.append((float(detour[j]), k, spare[j]))
            _, k, via = min(options, key=lambda o: o[0])
            src, dst, piece = carries[k]
            carries[k] = (src, via, piece)
            carries.append((via, dst, piece))
            used.add(via)
        return carries

    def _carry_order(self, places: dict[Location, str],
                     carries: list[Carry], pos: Point,
                     times: "MotionTimes") -> list[int]:
        """An order of the carries with little empty travel in which no carry comes before
        the ones that must run first (the one that empties its destination; for a piece
        parked meanwhile, its way there): the cheapest next carry with one carry of
        look-ahead, then improved by moving runs of one to three carries elsewhere."""
        n = len(carries)
        if n == 0:
            return []
        lay = self.layout
        picks = [lay.position(c[0]) for c in carries]
        drops = [lay.position(c[1]) for c in carries]
        link = times.travel_matrix(drops, picks)          # link[i, j]: drop of i to pickup of j
        first = times.travel_matrix([pos], picks)[0]
        leaves = {c[0]: i for i, c in enumerate(carries)}
        arrives = {c[1]: i for i, c in enumerate(carries)}
        before: list[list[int]] = [[] for _ in range(n)]
        for i, (src, dst, _) in enumerate(carries):
            if dst in places and dst in leaves:
                before[i].append(leaves[dst])             # its destination must be empty
            if src not in places:
                before[i].append(arrives[src])            # a piece parked meanwhile
        after: list[list[int]] = [[] for _ in range(n)]
        for i, bs in enumerate(before):
            for b in bs:
                after[b].append(i)
        done = np.zeros(n, dtype=bool)
        order: list[int] = []
        here = first
        while len(order) < n:
            ready = [i for i in range(n) if not done[i] and all(done[b] for b in before[i])]
            best, best_cost = ready[0], math.inf
            for i in ready:
                nxt = [j for j in ready if j != i] + after[i]
                ahead = float(np.min(link[i, nxt])) if nxt else 0.0
                cost = here[i] + ahead
                if cost < best_cost - 1e-12:
                    best, best_cost = i, cost
            order.append(best)
            done[best] = True
            here = link[best]
        return _or_opt(order, first, link, before)


def _or_opt(order: list[int], first: np.ndarray, link: np.ndarray,
            before: list[list[int]]) -> list[int]:
    """Improve an order by moving runs of 1-3 carries to another place while that shortens
    the empty travel and keeps every carry after the ones it waits for."""
    order = list(order)
    n = len(order)
    waits = [set(b) for b in before]

    def edge(a: int | None, b: int | None) -> float:
        if b is None:
            return 0.0                          # after the last carry the magnet rests
        return float(first[b] if a is None else link[a, b])

    improved = True
    while improved:
        improved = False
        for length in (1, 2, 3):
            for i in range(n - length + 1):
                run = order[i:i + length]
                rest = order[:i] + order[i + length:]
                prev = rest[i - 1] if i > 0 else None
                nxt = rest[i] if i < len(rest) else None
                gain = edge(prev, run[0]) + edge(run[-1], nxt) - edge(prev, nxt)
                runset = set(run)
                for j in range(len(rest) + 1):
                    if j == i:
                        continue
                    a = rest[j - 1] if j > 0 else None
                    b = rest[j] if j < len(rest) else None
                    if edge(a, run[0]) + edge(run[-1], b) - edge(a, b) >= gain - 1e-9:
                        continue
                    if j < i:       # the run jumps back over rest[j:i]: none of them may be awaited
                        jumped = rest[j:i]
                        if any(x in waits[r] for r in run for x in jumped):
                            continue
                    else:           # the run jumps forward over rest[i:j]: none may await it
                        jumped = rest[i:j]
                        if any(waits[x] & runset for x in jumped):
                            continue
                    order = rest[:j] + run + rest[j:]
                    improved = True
                    break
                if improved:
                    break
            if improved:
                break
    return order


_FORBID = 1e9          # an assignment cost that is never chosen while anything else is possible
_BONUS = 1e6           # a reward for filling a target square, far above any time in seconds
_WRONG_SLOT = 1e3      # a defender in the king's slot (the king in another): if nothing else


@dataclass(frozen=True)
class ResetPlan:
    """The transfers that reset the table, in the order to run them, and what they cost."""

    steps: tuple[Step, ...]
    missing: dict[int, str]     # target squares no piece on the board or in storage can fill
    no_slot: dict[int, str]     # pieces that should leave the board but find no free slot
    seconds: float              # the plan's time on the gantry it was planned for
    lower_bound_s: float        # MotionPlanner.reset_lower_bound

    @property
    def complete(self) -> bool:
        return not self.missing and not self.no_slot


@dataclass(frozen=True)
class MotionTimes:
    """How long the gantry takes for travel and carries, as GRBL plans the motion
    (robot.kinematics): the reset planner's costs and the benchmarks' clock.

    WHY time and not distance: travel with the magnet off (G0, the rapid rate) is
    three times faster than a drag (G1 at the drag feed), a diagonal is faster per
    mm than a move along one axis (GRBL limits each axis), every carry pays the
    magnet's dwell, and a drag along streets slows at every corner (junction
    deviation). Board millimetres in, seconds out.
    """

    layout: TableLayout
    limits: AxisLimits
    junction_deviation_mm: float
    drag_feed_mm_min: float
    dwell_s: float
    settle_s: float = 0.01      # the G4 P0.01 that waits for the drag to finish

    @classmethod
    def for_settings(cls, layout: TableLayout, settings: Mapping[int, float]) -> "MotionTimes":
        """From a controller's $ settings ($11, $110/$111, $120/$121) and the configuration."""
        g = layout.config.gantry
        return cls(layout, AxisLimits.from_settings(dict(settings)), float(settings[11]),
                   g.drag_feed_mm_min, g.magnet_dwell_s)

    @classmethod
    def reference(cls, layout: TableLayout) -> "MotionTimes":
        """The reference gantry: the settings the GRBL simulator runs with (robot.simulator)."""
        from robot.simulator import FIRMWARE_DEFAULTS  # the reference controller's settings

        return cls.for_settings(layout, FIRMWARE_DEFAULTS)

    def _machine(self, points: Sequence[Point]) -> np.ndarray:
        return np.array([self.layout.to_machine(p) for p in points], dtype=float).reshape(-1, 2)

    def _stop_to_stop(self, a: np.ndarray, b: np.ndarray, feed_mm_s: float | None) -> np.ndarray:
        """Times of straight moves from every row of a to every row of b, stop to stop."""
        d = b[None, :, :] - a[:, None, :]
        length = np.hypot(d[..., 0], d[..., 1])
        safe = np.where(length > 1e-9, length, 1.0)
        ux, uy = np.abs(d[..., 0]) / safe, np.abs(d[..., 1]) / safe

        def along(values: tuple[float, float]) -> np.ndarray:
            with np.errstate(divide="ignore"):
                return np.minimum(np.where(ux > 1e-9, values[0] / np.maximum(ux, 1e-12), np.inf),
                                  np.where(uy > 1e-9, values[1] / np.maximum(uy, 1e-12), np.inf))

        rate = along(self.limits.max_rate)
        if feed_mm_s is not None:
            rate = np.minimum(rate, feed_mm_s)
        acc = along(self.limits.accel)
        rate = np.where(np.isfinite(rate), rate, 1.0)
        acc = np.where(np.isfinite(acc), acc, 1.0)
        cruise = length >= rate * rate / acc
        t = np.where(cruise, rate / acc + length / rate, 2.0 * np.sqrt(length / acc))
        return np.where(length > 1e-9, t, 0.0)

    def travel_matrix(self, a: Sequence[Point], b: Sequence[Point]) -> np.ndarray:
        """Empty travel (G0) from every point of a to every point of b."""
        return self._stop_to_stop(self._machine(a), self._machine(b), None)

    def carry_only(self, a: Sequence[Point], b: Sequence[Point]) -> np.ndarray:
        """A carry from every point of a to every point of b, straight: dwell, drag, settle."""
        drag = self._stop_to_stop(self._machine(a), self._machine(b), self.drag_feed_mm_min / 60.0)
        return drag + self.dwell_s + self.settle_s

    def travel(self, a: Point, b: Point) -> float:
        return straight_move_time(self.layout.to_machine(a), self.layout.to_machine(b),
                                  self.limits, None)

    def drag(self, path: Sequence[Point]) -> float:
        """A drag along a path at the drag feed, through its corners as GRBL's look-ahead
        plans them (junction deviation), from a stop to a stop."""
        pts = [self.layout.to_machine(p) for p in path]
        blocks = [make_block(a, b, self.limits, self.drag_feed_mm_min)
                  for a, b in zip(pts, pts[1:]) if math.dist(a, b) > 1e-6]
        if not blocks:
            return 0.0
        for prev, cur in zip(blocks, blocks[1:]):
            cur.max_entry = junction_speed(prev, cur, self.limits, self.junction_deviation_mm)
        replan(blocks, 0.0)
        return sum(trapezoid_time(b.length, b.nominal, b.accel, b.entry, b.exit) for b in blocks)

    def step(self, step: Step, start: Point) -> float:
        """One step as the gantry runs it (robot.gantry.Gantry.gcode): travel to the
        pickup, magnet on and dwell, drag, magnet off and settle."""
        return (self.travel(start, step.path[0]) + self.dwell_s + self.drag(step.path)
                + self.settle_s)

    def plan(self, steps: Sequence[Step], start: Point) -> float:
        total, pos = 0.0, start
        for s in steps:
            total += self.step(s, pos)
            pos = s.path[-1]
        return total


def plan_board_swap(old: MotionPlanner, old_board: Mapping[int, object],
                    old_storage: Mapping[Slot, object], new: MotionPlanner,
                    new_board: Mapping[int, object], new_storage: Mapping[Slot, object],
                    target: Mapping[int, object], start: Point | None = None,
                    times: MotionTimes | None = None) -> tuple[ResetPlan, ResetPlan]:
    """The next game needs the other board (Tablut's 9x9 after an 11x11 game): every piece
    of the old board goes into the old board's storage (so that nothing is lost when a
    person lifts that board away), then the new board is reset to `target` from what
    stands on it and in its own storage. Two plans, each on its own layout; a person
    swaps the boards between them."""
    clear = old.plan_reset(old_board, old_storage, {}, start, times)
    return clear, new.plan_reset(new_board, new_storage, target, None,
                                 None if times is None else MotionTimes(
                                     new.layout, times.limits, times.junction_deviation_mm,
                                     times.drag_feed_mm_min, times.dwell_s, times.settle_s))
