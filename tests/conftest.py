"""Test-wide settings: pygame renders headless; the planner's fixtures."""
import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture(scope="module")
def layout():
    """The reference table (board 11, its storage) from the default config, for the planner's tests."""
    from calibration.config import Config
    from robot.layout import TableLayout

    return TableLayout(Config())


@pytest.fixture(scope="module")
def planner(layout):
    from robot.planner import MotionPlanner

    return MotionPlanner(layout)
