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
- Set-up and clearing pair pieces with places by a minimum-total-distance
  assignment (Hungarian method), then visit them nearest-first.
All coordinates are board millimetres; the gantry turns them into machine mm.
"""
from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from robot.collision import Obstacle
from robot.layout import KING, KING_SLOT, SIDES, Location, Slot, TableLayout, location_from_json, \
    location_to_json, side_of

Point = tuple[float, float]


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


def assign(cost: list[list[float]]) -> list[int]:
    """Minimum-cost assignment of each row to a distinct column (rows <= columns).

    The Hungarian method with potentials, O(rows^2 * columns).
    """
    n = len(cost)
    if n == 0:
        return []
    m = len(cost[0])
    if m < n:
        raise ValueError("more rows than columns")
    inf = math.inf
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)           # row (1-based) assigned to each column
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            delta, j1 = inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    c = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if c < minv[j]:
                        minv[j], way[j] = c, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
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
        neighbours = [list(np.nonzero((row > 1e-9) & (row <= radius))[0]) for row in d]
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
                  taken: set[Slot] = frozenset()) -> Slot:  # type: ignore[assignment]
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
                         start: Point | None = None, kind: str = "setup") -> list[Step]:
        """Turn the board into `target` (square -> piece): pieces that do not belong go to
        storage, then the missing ones come from storage. Pairs are chosen by a
        minimum-total-distance assignment, and visited nearest-first."""
        lay = self.layout
        cur = dict(places)
        pos = start if start is not None else lay.position(KING_SLOT)
        steps: list[Step] = []
        # 1. clear what does not belong
        leaving = [sq for sq, p in cur.items() if isinstance(sq, int) and target.get(sq) != p]
        pairs: list[tuple[Location, Location]] = []
        for side in SIDES:
            movers = [sq for sq in leaving if side_of(cur[sq]) == side]
            kings = [sq for sq in movers if cur[sq] == KING]
            if kings and KING_SLOT not in cur:
                pairs.append((kings[0], KING_SLOT))
                movers = [sq for sq in movers if sq != kings[0]]
            free = [s for s in lay.slots(side) if s not in cur and s != KING_SLOT]
            if len(free) < len(movers):
                raise PlanError(f"not enough free {side}' slots to clear the board")
            cols = assign([[math.dist(lay.position(sq), lay.position(s)) for s in free]
                           for sq in movers])
            pairs += [(sq, free[c]) for sq, c in zip(movers, cols)]
        clear_kind = "clear" if kind == "clear" else kind
        steps_a, cur, pos = self._visit(cur, pairs, pos, clear_kind)
        steps += steps_a
        # 2. bring what is missing
        missing = [sq for sq, p in target.items() if cur.get(sq) != p]
        pairs = []
        for piece in ("K", "T", "t"):
            want = [sq for sq in missing if target[sq] == piece]
            if not want:
                continue
            have = [loc for loc, p in cur.items() if isinstance(loc, Slot) and p == piece]
            if len(have) < len(want):
                raise PlanError(f"storage holds {len(have)} of the {len(want)} '{piece}' "
                                "pieces the position needs")
            rows = assign([[math.dist(lay.position(s), lay.position(sq)) for s in have]
                           for sq in want])
            pairs += [(have[c], sq) for sq, c in zip(want, rows)]
        steps_b, cur, pos = self._visit(cur, pairs, pos, kind)
        return steps + steps_b

    def _visit(self, places: dict[Location, str], pairs: list[tuple[Location, Location]],
               pos: Point, kind: str) -> tuple[list[Step], dict[Location, str], Point]:
        """Carry out pairs nearest pickup first; each planned against the table of the moment."""
        lay = self.layout
        todo = list(pairs)
        cur = dict(places)
        steps = []
        while todo:
            todo.sort(key=lambda pr: math.dist(pos, lay.position(pr[0])))
            for k, (src, dst) in enumerate(todo):
                try:
                    step = self.transfer(cur, src, dst, kind)
                except PlanError:
                    continue            # blocked for now: try another pair first
                del todo[k]
                break
            else:
                src, dst = todo[0]
                raise PlanError(f"no clear path for {lay.name(src)} -> {lay.name(dst)}")
            steps.append(step)
            cur = apply_step(cur, step)
            pos = step.path[-1]
        return steps, cur, pos
