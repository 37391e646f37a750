"""Faults to inject in simulation (`--faults LIST`), and when to inject them.

WHY: the kiosk must survive what a museum does to it. Each fault acts on the
simulated hardware only (the table, the camera, the GRBL simulator, the
power), never on the controller, which must notice and recover by itself:

- missed-pickup   the magnet catches nothing on the next pickup (GRBL simulator `miss`),
                  or a robot piece is knocked off its square's centre
- hand            a visitor's hand hovers over the board for a while
- camera-dropout  the camera delivers no frames for a few seconds (unplugged and back)
- serial-unplug   the gantry's USB cable drops mid-move and comes back
- alarm           a hard-limit alarm half way through a motion
- garbled-serial  an answer line from the controller arrives corrupted
- power-cut       the kiosk loses power mid-move and restarts from its journal
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

FAULT_KINDS: tuple[str, ...] = ("missed-pickup", "hand", "camera-dropout", "serial-unplug", "alarm",
                                "garbled-serial", "power-cut")

#: chance per robot move (or per ply for hand/camera) that the fault strikes
DEFAULT_RATES: dict[str, float] = {
    "missed-pickup": 0.2, "hand": 0.25, "camera-dropout": 0.1, "serial-unplug": 0.05,
    "alarm": 0.05, "garbled-serial": 0.1, "power-cut": 0.04,
}


def parse_faults(text: str | None) -> tuple[str, ...]:
    """'hand,missed-pickup' -> ('hand', 'missed-pickup'); one-line ValueError for unknown names."""
    if not text:
        return ()
    out: list[str] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if not part:
            continue
        if part == "all":
            out.extend(FAULT_KINDS)
            continue
        if part not in FAULT_KINDS:
            raise ValueError(f"unknown fault {part!r}; known: {', '.join(FAULT_KINDS)} (or all)")
        out.append(part)
    return tuple(dict.fromkeys(out))


@dataclass
class FaultPlan:
    """Decides, with its own seeded random generator, when each enabled fault strikes."""

    kinds: tuple[str, ...]
    rng: random.Random
    rates: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_RATES))
    counts: dict[str, int] = field(default_factory=dict)
    #: at most one power cut per game keeps games finishing in a bounded time
    max_power_cuts_per_game: int = 1
    _cuts_this_game: int = 0

    def new_game(self) -> None:
        self._cuts_this_game = 0

    def strikes(self, kind: str) -> bool:
        """Roll for `kind` now; counts the strike."""
        if kind not in self.kinds:
            return False
        if kind == "power-cut" and self._cuts_this_game >= self.max_power_cuts_per_game:
            return False
        if self.rng.random() >= self.rates.get(kind, 0.0):
            return False
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind == "power-cut":
            self._cuts_this_game += 1
        return True

    def refund(self, kind: str) -> None:
        """A drawn fault whose moment passed (the robot had already stopped) did not
        happen: take it off the count, so the summary counts only faults that struck
        and a power cut still gets its chance later in the game."""
        if self.counts.get(kind, 0) > 0:
            self.counts[kind] -= 1
        if kind == "power-cut" and self._cuts_this_game > 0:
            self._cuts_this_game -= 1

    def summary(self) -> str:
        return ", ".join(f"{k} {self.counts.get(k, 0)}" for k in self.kinds) or "none"
