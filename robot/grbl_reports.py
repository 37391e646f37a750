"""GRBL 1.1 status reports and machine coordinates: what a report says, and whether to believe it.

WHY separate from the driver: parsing is pure (text in, a Status or ValueError
out), so it is small and testable alone. A report is refused whole when any part
of it is malformed - NaN, inf, a position without GRBL 1.1h's three axes, a
repeated field - so a line cut short is never read as a position.

`MachineSpace` is where the firmware keeps machine coordinates: stock 1.1h in
-$130..0, a HOMING_FORCE_SET_ORIGIN build ('Z' in `$I`'s OPT) in 0..$130 for an
axis homing towards minus ($23). The project's machine frame is that soft-limit
box shifted to start at 0 on each axis.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

STATES = ("Idle", "Run", "Hold", "Jog", "Alarm", "Door", "Check", "Home", "Sleep")
#: a status report this far outside the soft-limit box is not believed (mm)
TRAVEL_MARGIN_MM = 1.0


@dataclass(frozen=True)
class Status:
    """One `<...>` status report, parsed."""

    state: str                                  # Idle, Run, Hold, Jog, Alarm, Door, Check, Home, Sleep
    substate: int | None
    mpos: tuple[float, ...] | None
    wpos: tuple[float, ...] | None
    wco: tuple[float, ...] | None               # only in some reports; see Driver.wco
    feed: float | None
    spindle: float | None
    planner_free: int | None                    # Bf: free planner blocks
    rx_free: int | None                         # Bf: free bytes in the receive buffer
    accessories: str | None                     # A: S/C spindle, F flood, M mist (None = field absent)
    overrides: tuple[int, ...] | None
    pins: str
    raw: str

    def machine_xy(self, wco: tuple[float, ...] | None) -> tuple[float, float]:
        """The firmware's machine X, Y; from WPos + WCO when it reports work positions."""
        if self.mpos is not None:
            return (self.mpos[0], self.mpos[1])
        if self.wpos is not None and wco is not None:
            return (self.wpos[0] + wco[0], self.wpos[1] + wco[1])
        raise ValueError(f"status report without a usable position: {self.raw}")


def floats(text: str, least: int = 1, most: int = 6) -> tuple[float, ...]:
    values = tuple(float(v) for v in text.split(","))
    if not least <= len(values) <= most or not all(math.isfinite(v) for v in values):
        raise ValueError(f"bad numbers {text!r}")
    return values


def parse_status(line: str) -> Status:
    """Parse `<Idle|MPos:1.000,2.000,0.000|FS:0,0|WCO:...>`; raises ValueError if malformed
    (including NaN, inf, a position without exactly GRBL 1.1h's three axes, a repeated
    field), so a report cut short is never read as a position."""
    if not (line.startswith("<") and line.endswith(">")):
        raise ValueError(f"not a status report: {line!r}")
    try:
        return _parse_fields(line)
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"malformed status report {line!r}: {exc}") from None


def _parse_fields(line: str) -> Status:
    fields = line[1:-1].split("|")
    state, colon, sub = fields[0].partition(":")
    if state not in STATES or (colon and not sub.isdigit()):
        raise ValueError(f"unknown machine state {fields[0]!r}")
    values: dict[str, str] = {}
    for f in fields[1:]:
        key, sep, value = f.partition(":")
        if not sep or key in values:
            raise ValueError(f"bad status field {f!r}")
        values[key] = value
    mpos = floats(values["MPos"], 3, 3) if "MPos" in values else None
    wpos = floats(values["WPos"], 3, 3) if "WPos" in values else None
    if (mpos is None) == (wpos is None):
        raise ValueError("status report needs exactly one of MPos and WPos")
    feed = spindle = None
    if "FS" in values:
        feed, spindle = floats(values["FS"], 2)[:2]
    elif "F" in values:
        feed = floats(values["F"])[0]
    planner_free = rx_free = None
    if "Bf" in values:
        bf = values["Bf"].split(",")
        if len(bf) != 2 or not all(b.isdigit() for b in bf):
            raise ValueError(f"bad Bf field {values['Bf']!r}")
        planner_free, rx_free = int(bf[0]), int(bf[1])
    overrides = None
    if "Ov" in values:
        ov = values["Ov"].split(",")
        if len(ov) != 3 or not all(o.isdigit() for o in ov):
            raise ValueError(f"bad Ov field {values['Ov']!r}")
        overrides = tuple(int(v) for v in ov)
    return Status(
        state=state, substate=int(sub) if sub else None, mpos=mpos, wpos=wpos,
        wco=floats(values["WCO"], 3, 3) if "WCO" in values else None,
        feed=feed, spindle=spindle, planner_free=planner_free, rx_free=rx_free,
        accessories=values.get("A"), overrides=overrides, pins=values.get("Pn", ""), raw=line)


@dataclass(frozen=True)
class MachineSpace:
    """Where the firmware keeps machine coordinates, and the project's frame inside it.

    The project's machine frame (layout.to_machine, gantry.travel_mm) runs 0..travel on
    each axis; the firmware's soft-limit box is that frame shifted by `shift`:
    -$130..0 on stock 1.1h, 0..$130 on a HOMING_FORCE_SET_ORIGIN build homing towards
    minus ($23 bit set), -$130..0 on such a build for an axis homing towards plus.
    """

    travel: tuple[float, float]
    shift: tuple[float, float]
    force_origin: bool

    @classmethod
    def read(cls, options: str, settings: dict[int, float]) -> "MachineSpace":
        """From `$I`'s OPT letters and the `$$` settings ($23 homing direction, $130/$131)."""
        force = "Z" in options
        mask = int(settings.get(23, 0))
        travel = (settings[130], settings[131])
        shift = tuple(0.0 if force and (mask >> i) & 1 else -travel[i] for i in (0, 1))
        return cls(travel, (shift[0], shift[1]), force)

    @property
    def build(self) -> str:
        return "HOMING_FORCE_SET_ORIGIN" if self.force_origin else "stock"

    def to_firmware(self, x: float, y: float) -> tuple[float, float]:
        return (x + self.shift[0], y + self.shift[1])

    def from_firmware(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.shift[0], y - self.shift[1])

    def inside(self, x: float, y: float, margin: float = TRAVEL_MARGIN_MM) -> bool:
        """True if the project-frame point lies in the travel (within `margin`)."""
        return all(-margin <= v <= t + margin for v, t in zip((x, y), self.travel))
