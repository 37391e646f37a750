"""The turnaround benchmark's simulator run works through the real stack (it once sent
machine coordinates the stock-GRBL simulator refuses as out of travel, ALARM:2)."""
from __future__ import annotations

import pytest

from calibration.config import Config
from robot.layout import TableLayout, start_position
from robot.planner import MotionPlanner, MotionTimes
from tests.helpers.bench import load_bench
from tests.helpers.paths import REPO


@pytest.mark.slow
def test_a_reset_runs_on_the_grbl_simulator_near_the_model_time() -> None:
    bench = load_bench("turnaround_bench")
    config = Config()
    layout = TableLayout(config)
    planner = MotionPlanner(layout)
    games = bench.final_positions(REPO / "tests" / "data" / "copenhagen-games.csv", planner, 40)
    game = min(games, key=lambda g: g.plies)        # a short game: a short reset
    board, storage = bench.split(game.places)
    plan = planner.plan_reset(board, storage, start_position("copenhagen"), game.start,
                              MotionTimes.reference(layout))
    assert plan.steps, "a game that ended has pieces to put back"
    simulated, collisions = bench.run_on_simulator(config, game, list(plan.steps), 40.0)
    assert collisions == 0
    # the simulator's own clock: the model's motion plus host and serial latency, scaled
    assert plan.seconds * 0.9 <= simulated <= plan.seconds * 3 + 10
