"""Trapezoidal motion as GRBL plans it: per-axis limits, junction speeds, look-ahead.

WHY here and not in the simulator: the simulator needs it to time motion like
the real controller, and the benchmark needs the same model for the kinematic
lower bound of a move (straight lines at full speed and acceleration), so both
read one implementation. Units: millimetres and seconds (GRBL's settings are
converted: $110 mm/min -> /60, $120 is already mm/s^2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

Vec = tuple[float, float]

EPS = 1e-9


@dataclass(frozen=True)
class AxisLimits:
    """Maximum rate (mm/s) and acceleration (mm/s^2) per axis, from $110/$111, $120/$121."""

    max_rate: Vec
    accel: Vec

    @classmethod
    def from_settings(cls, settings: dict[int, float]) -> "AxisLimits":
        return cls((settings[110] / 60.0, settings[111] / 60.0), (settings[120], settings[121]))

    def limit_along(self, values: Vec, unit: Vec) -> float:
        """The largest magnitude along `unit` that keeps every axis within `values`
        (GRBL's limit_value_by_axis_maximum)."""
        best = math.inf
        for v, u in zip(values, unit):
            if abs(u) > EPS:
                best = min(best, v / abs(u))
        return best

    def rate_along(self, unit: Vec) -> float:
        return self.limit_along(self.max_rate, unit)

    def accel_along(self, unit: Vec) -> float:
        return self.limit_along(self.accel, unit)


def trapezoid_time(length: float, v_max: float, accel: float, v0: float = 0.0,
                   v1: float = 0.0) -> float:
    """Time to cover `length` starting at v0 and ending at v1, speed <= v_max, |a| <= accel."""
    if length <= EPS:
        return 0.0
    d_up = max(0.0, (v_max ** 2 - v0 ** 2) / (2 * accel))
    d_down = max(0.0, (v_max ** 2 - v1 ** 2) / (2 * accel))
    if d_up + d_down <= length:
        return (v_max - v0) / accel + (v_max - v1) / accel + (length - d_up - d_down) / v_max
    peak = math.sqrt(max(0.0, (2 * accel * length + v0 ** 2 + v1 ** 2) / 2))
    return max(0.0, (peak - v0) / accel) + max(0.0, (peak - v1) / accel)


def straight_move_time(start: Vec, end: Vec, limits: AxisLimits, feed_mm_min: float | None) -> float:
    """Stop-to-stop time of one straight move; feed None = rapid (G0)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy)
    if length <= EPS:
        return 0.0
    unit = (dx / length, dy / length)
    v = limits.rate_along(unit)
    if feed_mm_min is not None:
        v = min(v, feed_mm_min / 60.0)
    return trapezoid_time(length, v, limits.accel_along(unit))


@dataclass
class Block:
    """One planned straight motion (a G0/G1 line or a jog)."""

    start: Vec
    end: Vec
    nominal: float                 # mm/s
    accel: float                   # mm/s^2 along the block
    rapid: bool = False
    jog: bool = False
    feed_mm_min: float = 0.0       # programmed feed, for status reports
    max_entry: float = 0.0         # junction limit with the block before
    entry: float = 0.0             # planned entry speed
    exit: float = 0.0              # planned exit speed
    done: float = 0.0              # distance already travelled
    length: float = field(init=False)
    unit: Vec = field(init=False)

    def __post_init__(self) -> None:
        dx, dy = self.end[0] - self.start[0], self.end[1] - self.start[1]
        self.length = math.hypot(dx, dy)
        self.unit = (dx / self.length, dy / self.length) if self.length > EPS else (1.0, 0.0)

    def point(self, s: float) -> Vec:
        return (self.start[0] + self.unit[0] * s, self.start[1] + self.unit[1] * s)


def make_block(start: Vec, end: Vec, limits: AxisLimits, feed_mm_min: float | None,
               jog: bool = False) -> Block:
    """A block with its nominal speed and acceleration limited per axis."""
    blk = Block(start, end, 0.0, 0.0, rapid=feed_mm_min is None, jog=jog)
    rate = limits.rate_along(blk.unit)
    blk.nominal = rate if feed_mm_min is None else min(rate, feed_mm_min / 60.0)
    blk.feed_mm_min = blk.nominal * 60.0
    blk.accel = limits.accel_along(blk.unit)
    return blk


def junction_speed(prev: Block, cur: Block, limits: AxisLimits, deviation_mm: float) -> float:
    """Highest speed through the corner between two blocks (GRBL's junction deviation)."""
    cos_theta = -(prev.unit[0] * cur.unit[0] + prev.unit[1] * cur.unit[1])
    if cos_theta > 0.999999:                 # reversal: stop
        v = 0.0
    elif cos_theta < -0.999999:              # straight on
        v = math.inf
    else:
        ju = (cur.unit[0] - prev.unit[0], cur.unit[1] - prev.unit[1])
        n = math.hypot(*ju)
        acc = limits.accel_along((ju[0] / n, ju[1] / n))
        sin_half = math.sqrt(0.5 * (1.0 - cos_theta))
        v = math.sqrt(max(0.0, acc * deviation_mm * sin_half / (1.0 - sin_half)))
    return min(v, prev.nominal, cur.nominal)


def replan(blocks: list[Block], current_speed: float) -> None:
    """Set entry/exit speeds of queued blocks (first one executing at `current_speed`).

    Backward pass from a stop at the end, forward pass from the current speed,
    as GRBL's planner does on every new block.
    """
    if not blocks:
        return
    n = len(blocks)
    # backward: each entry no faster than it can still brake from
    nxt = 0.0
    for i in range(n - 1, 0, -1):
        b = blocks[i]
        b.exit = nxt
        b.entry = min(b.max_entry, math.sqrt(nxt ** 2 + 2 * b.accel * (b.length - b.done)))
        nxt = b.entry
    first = blocks[0]
    first.entry = current_speed
    remaining = first.length - first.done
    first.exit = min(nxt, math.sqrt(current_speed ** 2 + 2 * first.accel * remaining))
    # forward: each entry no faster than the block before can accelerate to
    prev_exit = first.exit
    for i in range(1, n):
        b = blocks[i]
        b.entry = min(b.entry, prev_exit)
        b.exit = min(b.exit, math.sqrt(b.entry ** 2 + 2 * b.accel * b.length))
        prev_exit = b.exit
    for i in range(n - 1):
        blocks[i].exit = min(blocks[i].exit, blocks[i + 1].entry)


def advance(block: Block, speed: float, dt: float, hold: bool = False) -> tuple[float, float]:
    """Run `block` for up to `dt` seconds from `speed`; returns (new speed, time used).

    The profile is decided continuously, like GRBL's segment generator:
    brake if the exit speed demands it, else accelerate to the nominal speed,
    else cruise. With `hold` (feed hold) it only decelerates.
    """
    t = dt
    v = speed
    a = block.accel
    for _ in range(8):
        if t <= EPS:
            break
        rem = block.length - block.done
        if rem <= 1e-7:
            block.done = block.length
            break
        if hold:
            if v <= EPS:
                v = 0.0
                break
            t_stop = v / a
            d_stop = v * v / (2 * a)
            if d_stop >= rem:         # stops beyond this block's end: run to the end
                v_end = math.sqrt(max(0.0, v * v - 2 * a * rem))
                tt = (v - v_end) / a
                if tt <= t:
                    block.done, v, t = block.length, v_end, t - tt
                    continue
            if t >= t_stop and d_stop < rem:
                block.done += d_stop
                v, t = 0.0, t - t_stop
                break
            v_new = max(0.0, v - a * t)
            block.done += (v + v_new) / 2 * t
            v, t = v_new, 0.0
            break
        v_exit = min(block.exit, block.nominal)
        d_brake = max(0.0, (v * v - v_exit * v_exit) / (2 * a))
        if rem <= d_brake + 1e-7:
            # decelerate to the exit speed exactly at the end
            dec = (v * v - v_exit * v_exit) / (2 * rem) if v > v_exit else a
            dec = max(dec, EPS)
            tt = (v - v_exit) / dec if v > v_exit else rem / max(v, EPS)
            if tt <= t:
                block.done, v, t = block.length, v_exit, t - tt
                break
            v_new = v - dec * t
            block.done = min(block.length, block.done + (v + v_new) / 2 * t)
            v, t = v_new, 0.0
            break
        if v < block.nominal - 1e-7:
            d_nom = (block.nominal ** 2 - v * v) / (2 * a)
            d_peak = (2 * a * rem + v_exit * v_exit - v * v) / (4 * a)
            d_acc = max(0.0, min(d_nom, d_peak))
            v_to = math.sqrt(v * v + 2 * a * d_acc)
            tt = (v_to - v) / a
            if tt <= t:
                block.done += d_acc
                v, t = v_to, t - tt
                if d_acc <= 1e-9 and v <= EPS:
                    break
                continue
            v_new = v + a * t
            block.done += (v + v_new) / 2 * t
            v, t = v_new, 0.0
            break
        v = min(v, block.nominal)
        d_cruise = rem - max(0.0, (v * v - v_exit * v_exit) / (2 * a))
        tt = d_cruise / v
        if tt <= t:
            block.done += d_cruise
            t -= tt
            continue
        block.done += v * t
        t = 0.0
    return v, dt - t
