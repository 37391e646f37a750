"""Thinking-time budgets: how long one move may take, and the clock the search polls.

Why a separate module: the same budget logic serves the kiosk (a fixed time per
level), ``tafl-engine bestmove --time`` and the OpenTafl protocol (a game clock
with main time and overtime periods), and the search only needs a ``Deadline``
it can poll cheaply.

The 10 % promise: the search checks ``Deadline.expired()`` every
``CHECK_EVERY`` nodes and unwinds at once; the soft limit (when not to start
another iteration) is well below the hard one, and the hard limit itself is
set a little inside the budget so the unwinding and the move's formatting fit
in the remaining margin.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

#: nodes between two clock reads; one read costs about as much as a node.
CHECK_EVERY = 256
#: the hard deadline sits this fraction of the budget early, leaving room to unwind.
HARD_FRACTION = 0.96
#: no new iteration starts after this fraction of the budget: the next one
#: would cost several times the last and be thrown away unfinished.
SOFT_FRACTION = 0.45


class SearchTimeout(Exception):
    """Raised inside the search when the hard deadline has passed."""


@dataclass
class Deadline:
    """A time budget started at construction; ``clock`` is injectable for tests."""

    budget_s: float
    clock: Callable[[], float] = time.perf_counter
    start: float = field(default=0.0)

    def __post_init__(self) -> None:
        if self.budget_s <= 0:
            raise ValueError(f"time budget must be positive, got {self.budget_s}")
        self.start = self.clock()
        self.hard = self.start + self.budget_s * HARD_FRACTION
        self.soft = self.start + self.budget_s * SOFT_FRACTION

    def elapsed(self) -> float:
        return self.clock() - self.start

    def expired(self) -> bool:
        """Past the hard limit: the search must stop now."""
        return self.clock() >= self.hard

    def may_start_iteration(self) -> bool:
        """Before the soft limit: another iteration is likely to finish."""
        return self.clock() < self.soft


@dataclass(frozen=True)
class GameClock:
    """One side's clock as OpenTafl reports it (``clock`` command of OTEP).

    ``main_s`` is the main time left (or, once it has run out, what is left of
    the current overtime period, ``in_overtime`` True); ``overtime_s`` the
    length of one overtime period and ``overtimes`` how many periods are left.
    ``main_s`` < 0 means OpenTafl runs no main time.
    """

    main_s: float
    in_overtime: bool = False
    overtime_s: float = 0.0
    overtimes: int = 0


#: a game of tafl lasts long; budget as if this many of our moves remain.
EXPECTED_MOVES_LEFT = 30
#: never plan closer than this to the flag (process latency, pipe, Java side).
SAFETY_S = 0.3


def budget_from_clock(clock: GameClock, cap_s: float | None = None, floor_s: float = 0.05) -> float:
    """Seconds to think for one move under a game clock, at most ``cap_s``.

    Main time is spread over ``EXPECTED_MOVES_LEFT`` moves; overtime periods
    are used at most to 60 % (an overtime period restarts after every move in
    OpenTafl, so each move may use most of one period but never all of it).
    """
    candidates: list[float] = []
    if clock.main_s >= 0 and not clock.in_overtime:
        usable = max(0.0, clock.main_s - SAFETY_S)
        per_move = usable / EXPECTED_MOVES_LEFT
        if clock.overtimes > 0 and clock.overtime_s > 0:
            per_move += 0.6 * clock.overtime_s
        candidates.append(min(per_move, usable))
    elif clock.main_s >= 0 and clock.in_overtime:
        candidates.append(max(0.0, 0.6 * clock.main_s - SAFETY_S))
    elif clock.overtime_s > 0:
        candidates.append(max(0.0, 0.6 * clock.overtime_s - SAFETY_S))
    budget = min(candidates) if candidates else (cap_s if cap_s is not None else 5.0)
    if cap_s is not None:
        budget = min(budget, cap_s)
    return max(budget, floor_s)


def parse_otep_clock(args: list[str]) -> tuple[GameClock, GameClock]:
    """The attackers' and defenders' clocks from the arguments of an OTEP ``clock`` line.

    Format: ``<attacker-millis>[*] <defender-millis>[*] [overtime-seconds]
    [attacker-overtimes] [defender-overtimes]``; a trailing ``*`` marks time
    left in the current overtime period. Raises ValueError for a malformed line.
    """
    if len(args) < 2:
        raise ValueError(f"clock needs at least two times, got {' '.join(args)!r}")

    def side_time(text: str) -> tuple[float, bool]:
        star = text.endswith("*")
        raw = text[:-1] if star else text
        try:
            millis = float(raw)
        except ValueError:
            raise ValueError(f"clock time {text!r} is not a number") from None
        return (millis / 1000.0 if millis >= 0 else -1.0), star

    a_main, a_ot = side_time(args[0])
    d_main, d_ot = side_time(args[1])
    try:
        overtime_s = float(args[2]) if len(args) > 2 else 0.0
        a_over = int(args[3]) if len(args) > 3 else 0
        d_over = int(args[4]) if len(args) > 4 else 0
    except ValueError:
        raise ValueError(f"malformed overtime fields in clock {' '.join(args)!r}") from None
    return (
        GameClock(a_main, a_ot, overtime_s, a_over),
        GameClock(d_main, d_ot, overtime_s, d_over),
    )
