"""Settings of the full simulation (kiosk/sim_kiosk.py) for tests that play whole games through it."""
from __future__ import annotations

from kiosk.sim_kiosk import SimSettings, fast_settings


def quick_settings(seed: int) -> SimSettings:
    """The whole simulation sped up for tests: a fast gantry, short searches, quick hands, no hands drawn."""
    s = fast_settings(seed)
    s.speed_factor = 100.0
    s.engine_time_scale = 0.1
    s.stable_s = 0.25
    s.hand_seconds = 0.25
    s.render_hands = False
    return s
