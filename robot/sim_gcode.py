"""The G-code a simulated GRBL 1.1 understands: line clean-up and block parsing.

WHY separate from the simulator: parsing is pure (text in, words and error
codes out), so it is small and testable alone, and the simulator keeps only
the machine's behaviour. It covers the subset of GRBL 1.1 this kiosk and its
operators use (G0/G1 moves, G4 dwell, G17-G21, G53, G54-G59 with zero offsets,
G80, G90/G91, G92/G92.1, G94, M0-M2/M30, M3-M5 with S, M8/M9, F, N, S, T) and
answers everything else with the same error code GRBL would give.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

NUMBER_RE = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)")


class GcodeError(Exception):
    """A line GRBL refuses; `code` is the number after `error:`."""

    def __init__(self, code: int):
        self.code = code
        super().__init__(f"error:{code}")


def clean_line(raw: str) -> tuple[str, bool]:
    """What GRBL keeps of a received line: spaces and comments dropped, letters upper-cased.

    Returns (line, overflowed). GRBL's line buffer holds 79 characters; a longer
    line is flagged and later answered with error:11.
    """
    out: list[str] = []
    overflow = False
    paren = False
    for c in raw:
        if paren:
            if c == ")":
                paren = False
            continue
        if c == "(":
            paren = True
        elif c == ";":
            break
        elif c <= " ":
            continue
        elif len(out) >= 79:
            overflow = True
        else:
            out.append(c.upper())
    return "".join(out), overflow


def split_words(line: str) -> list[tuple[str, float, str]]:
    """Words (letter, value, value text); error:1 for a missing letter, error:2 for a bad number."""
    words = []
    i = 0
    while i < len(line):
        letter = line[i]
        if not ("A" <= letter <= "Z"):
            raise GcodeError(1)
        m = NUMBER_RE.match(line, i + 1)
        if not m:
            raise GcodeError(2)
        words.append((letter, float(m.group(0)), m.group(0)))
        i = m.end()
    return words


# modal groups of G words; None = non-modal group
_G_GROUPS: dict[float, str] = {
    0: "motion", 1: "motion", 2: "motion", 3: "motion", 38.2: "motion", 38.3: "motion",
    38.4: "motion", 38.5: "motion", 80: "motion",
    4: "nonmodal", 10: "nonmodal", 28: "nonmodal", 28.1: "nonmodal", 30: "nonmodal",
    30.1: "nonmodal", 53: "nonmodal", 92: "nonmodal", 92.1: "nonmodal",
    17: "plane", 18: "plane", 19: "plane",
    90: "distance", 91: "distance", 91.1: "arc_distance",
    93: "feedmode", 94: "feedmode",
    20: "units", 21: "units",
    40: "cutter", 43.1: "tlo", 49: "tlo",
    54: "coord", 55: "coord", 56: "coord", 57: "coord", 58: "coord", 59: "coord",
    61: "control",
}
# G codes GRBL has that this simulator does not carry out (G2/G3 and probing are refused
# by the simulator after the checks that come first in GRBL, e.g. G53 with an arc: error:30)
_G_UNSUPPORTED = {10, 28, 28.1, 30, 30.1, 38.2, 38.3, 38.4, 38.5, 43.1, 49, 93}
_M_GROUPS: dict[float, str] = {0: "stop", 1: "stop", 2: "stop", 30: "stop",
                                3: "spindle", 4: "spindle", 5: "spindle",
                                8: "coolant", 9: "coolant"}


@dataclass
class Block:
    """One parsed line: its commands by modal group and its value words."""

    g: dict[str, float] = field(default_factory=dict)
    m: dict[str, float] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)

    @property
    def axes(self) -> dict[str, float]:
        return {k: v for k, v in self.values.items() if k in "XYZ"}


def parse_block(line: str) -> Block:
    """Parse a cleaned line into a Block, raising GcodeError with GRBL's code."""
    blk = Block()
    for letter, value, _text in split_words(line):
        if letter == "G":
            code = round(value, 1)
            group = _G_GROUPS.get(code)
            if group is None and float(int(code)) in _G_GROUPS:
                raise GcodeError(23)        # G59.1, G1.5: a known command with a fraction
            if group is None or code in _G_UNSUPPORTED:
                raise GcodeError(20)
            if group in blk.g:
                raise GcodeError(21)
            blk.g[group] = code
        elif letter == "M":
            if value != int(value):
                raise GcodeError(20)
            group = _M_GROUPS.get(int(value))
            if group is None:
                raise GcodeError(20)
            if group in blk.m:
                raise GcodeError(21)
            blk.m[group] = int(value)
        elif letter in "FNPSTXYZLIJKR":
            if letter in blk.values:
                raise GcodeError(25)
            if letter in "FSPT" and value < 0:
                raise GcodeError(4)
            if letter == "N":
                if value != int(value) or not (0 <= value <= 9999999):
                    raise GcodeError(27)
            if letter == "T" and value != int(value):
                raise GcodeError(23)
            blk.values[letter] = value
        else:
            raise GcodeError(20)
    return blk


JOG_ALLOWED_G = {20, 21, 90, 91, 53}


def parse_jog(line: str) -> Block:
    """The part after `$J=`: only G20/G21/G90/G91/G53, axis words, F and N (error:16 else)."""
    try:
        blk = parse_block(line)
    except GcodeError as exc:
        if exc.code in (20, 21):
            raise GcodeError(16) from None
        raise
    if blk.m or any(code not in JOG_ALLOWED_G for code in blk.g.values()):
        raise GcodeError(16)
    if any(k not in "XYZFN" for k in blk.values):
        raise GcodeError(16)
    if "F" not in blk.values:
        raise GcodeError(22)
    if not blk.axes:
        raise GcodeError(26)
    return blk
