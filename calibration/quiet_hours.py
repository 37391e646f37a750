"""Quiet hours: local-time ranges in which the exhibit's self-play stays off (calibration config).

WHY its own small module: the config validator checks the text and the kiosk
(kiosk/exhibit.py) asks "is it quiet now?"; both must read "HH:MM-HH:MM" the
same way, including a range that wraps past midnight ("22:00-09:00").
"""
from __future__ import annotations

import re

_RANGE = re.compile(r"^\s*([01]?\d|2[0-3]):([0-5]\d)\s*-\s*([01]?\d|2[0-3]):([0-5]\d)\s*$")


def parse_range(text: str) -> tuple[int, int]:
    """(start, end) in minutes after midnight; ValueError with a clear message otherwise."""
    m = _RANGE.match(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"quiet hours must look like 22:00-09:30, not {text!r}")
    start, end = int(m[1]) * 60 + int(m[2]), int(m[3]) * 60 + int(m[4])
    if start == end:
        raise ValueError(f"quiet hours {text!r} are empty (start equals end)")
    return start, end


def is_quiet(ranges: tuple[str, ...] | list[str], minute_of_day: int) -> bool:
    """True when `minute_of_day` (0..1439) falls in one of the ranges (start inclusive, end exclusive)."""
    for text in ranges:
        start, end = parse_range(text)
        inside = start <= minute_of_day < end if start < end else (minute_of_day >= start or minute_of_day < end)
        if inside:
            return True
    return False
