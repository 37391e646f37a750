"""Settings of the full simulation (kiosk/sim_kiosk.py) for tests that play whole games through it."""
from __future__ import annotations

from dataclasses import replace

from kiosk.sim_kiosk import SimSettings, fast_settings

# The gantry simulator's speed in tests that wait on its moves (fast_settings has 25x): the
# simulated clock follows its motion time, so only a test's wall time changes with it.
TEST_GANTRY_SPEED = 100.0


def fast_gantry_settings(seed: int) -> SimSettings:
    """fast_settings with the gantry simulator at TEST_GANTRY_SPEED."""
    return replace(fast_settings(seed), speed_factor=TEST_GANTRY_SPEED)


def quick_settings(seed: int) -> SimSettings:
    """The whole simulation sped up for tests: a fast gantry, short searches, quick hands, no hands drawn."""
    s = fast_gantry_settings(seed)
    s.engine_time_scale = 0.1
    s.stable_s = 0.25
    s.hand_seconds = 0.25
    s.render_hands = False
    return s
