"""Gantry calibration recovers how the board is mounted from jogged reference squares."""
from __future__ import annotations

import math
import random

import pytest

from calibration.config import Config
from calibration.config_file import load_config
from calibration.gantry import (
    GantryCalibration,
    GantryFitError,
    fit_transform,
    residual_report,
)
from calibration.geometry import BoardGeometry, GantryTransform
from calibration.travel import check_soft_limits

# The true mounting: a known offset, a 1-degree rotation and slightly stretched belts.
TRUE = GantryTransform(origin=(176.4, 31.7), rotation_deg=1.0, scale=(1.003, 0.998))
SLOTS = {"attackers": 24, "defenders": 13}


class JoggedGantry:
    """A gantry in memory: it goes where it is jogged, clamped to its travel like GRBL's soft limits.

    Stands in for the robot package's simulator, which is written in parallel;
    it has the same three methods calibration uses.
    """

    def __init__(self, travel=(800.0, 560.0)):
        self.travel = travel
        self.pos = (412.0, 233.0)       # wherever it was left before homing
        self.homes = 0
        self.jogs: list[tuple[float, float, float]] = []

    def home(self) -> None:
        self.homes += 1
        self.pos = (0.0, 0.0)

    def jog(self, dx: float, dy: float, feed: float) -> None:
        self.jogs.append((dx, dy, feed))
        x = min(max(self.pos[0] + dx, 0.0), self.travel[0])
        y = min(max(self.pos[1] + dy, 0.0), self.travel[1])
        self.pos = (x, y)

    def position(self) -> tuple[float, float]:
        return self.pos


def technician_centres(cal: GantryCalibration, square: int, rng: random.Random, sigma_mm: float) -> None:
    """Go near the square, then jog in 0.1 mm steps until the eye says the magnet is centred.

    The eye misses the true centre by a little Gaussian error: that is the noise
    the fit has to average out.
    """
    cal.goto_square(square)
    truth = TRUE.to_machine(*cal.geometry.square_center(square))
    aim = (truth[0] + rng.gauss(0, sigma_mm), truth[1] + rng.gauss(0, sigma_mm))
    x, y = cal.position()
    cal.jog(round((aim[0] - x) / 0.1) * 0.1, round((aim[1] - y) / 0.1) * 0.1)


@pytest.mark.parametrize("squares", ["suggested", "nine"])
def test_mounting_with_offset_and_one_degree_is_recovered_within_half_a_mm(squares):
    rng = random.Random(6)
    config = Config()
    driver = JoggedGantry()
    cal = GantryCalibration(driver, config)
    assert cal.home() == (0.0, 0.0)
    size = cal.geometry.size
    chosen = cal.suggested_squares() if squares == "suggested" else [
        r * size + f for r in (0, 5, 10) for f in (0, 5, 10)]
    for sq in chosen:
        technician_centres(cal, sq, rng, sigma_mm=0.15)
        cal.record(sq)
    fit = cal.fit()
    assert fit.max_mm < 0.6
    geometry = cal.geometry
    worst = 0.0
    points = [geometry.square_center(s) for s in range(size * size)]
    points += geometry.storage_slots("attackers", 24) + geometry.storage_slots("defenders", 13)
    for p in points:
        got, want = fit.transform.to_machine(*p), TRUE.to_machine(*p)
        worst = max(worst, math.dist(got, want))
    assert worst < 0.5, worst
    assert fit.transform.rotation_deg == pytest.approx(1.0, abs=0.05)
    assert cal.check_limits(SLOTS) == []


def test_exact_points_give_exact_transform():
    board = [(20.0, 20.0), (420.0, 20.0), (420.0, 420.0), (20.0, 420.0), (220.0, 140.0)]
    machine = [TRUE.to_machine(*p) for p in board]
    fit = fit_transform(board, machine)
    assert fit.transform.origin == pytest.approx(TRUE.origin, abs=1e-9)
    assert fit.transform.rotation_deg == pytest.approx(1.0, abs=1e-9)
    assert fit.transform.scale == pytest.approx(TRUE.scale, abs=1e-12)
    assert fit.max_mm < 1e-9
    assert abs(fit.shear_deg) < 1e-9


def test_rigid_fit_keeps_scale_one():
    true = GantryTransform(origin=(150.0, 50.0), rotation_deg=-2.5)
    board = [(20.0, 20.0), (420.0, 20.0), (220.0, 420.0)]
    fit = fit_transform(board, [true.to_machine(*p) for p in board], fix_scale=True)
    assert fit.transform.scale == (1.0, 1.0)
    assert fit.transform.rotation_deg == pytest.approx(-2.5, abs=1e-9)


def test_shear_shows_up_in_diagnostic_and_residuals():
    board = [(20.0, 20.0), (420.0, 20.0), (420.0, 420.0), (20.0, 420.0)]
    # axes 0.5 degree out of square: x' = x + y * tan(0.5 deg)
    machine = [(100 + x + y * math.tan(math.radians(0.5)), 50 + y) for x, y in board]
    fit = fit_transform(board, machine)
    assert fit.shear_deg == pytest.approx(-0.5, abs=0.01)
    assert fit.max_mm > 0.5


def test_too_few_or_collinear_points_are_refused():
    with pytest.raises(GantryFitError, match="at least 3"):
        fit_transform([(20.0, 20.0), (420.0, 20.0)], [(0.0, 0.0), (400.0, 0.0)])
    line = [(20.0, 20.0), (220.0, 220.0), (420.0, 420.0)]
    with pytest.raises(GantryFitError, match="one line"):
        fit_transform(line, [TRUE.to_machine(*p) for p in line])


def test_board_mounted_too_far_right_puts_defender_slots_outside_travel():
    config = Config()
    geometry = BoardGeometry.from_config(config)
    shifted = GantryTransform(origin=(260.0, 40.0))
    problems = check_soft_limits(geometry, shifted, config.gantry.travel_mm, SLOTS)
    whats = {p.what for p in problems}
    # inner column at x = 260 + 440 + 80 = 780 fits, the outer one at 820 does not
    assert whats == {f"defenders' slot {i}" for i in range(7, 13)}
    assert not any(w.startswith("attackers") for w in whats)
    assert "outside the travel" in str(problems[0])
    assert check_soft_limits(geometry, GantryTransform.from_config(config.gantry),
                             config.gantry.travel_mm, SLOTS) == []


def test_procedure_saves_the_fit_atomically(tmp_path):
    path = tmp_path / "config.toml"
    cal = GantryCalibration(JoggedGantry(), Config())
    with pytest.raises(RuntimeError, match="home"):
        cal.record(12)
    cal.home()
    rng = random.Random(1)
    for sq in cal.suggested_squares():
        technician_centres(cal, sq, rng, sigma_mm=0.0)
        cal.record(sq)
    fit = cal.fit()
    saved = cal.save(str(path))
    loaded = load_config(path)
    assert loaded == saved
    assert loaded.gantry.board_origin_mm == pytest.approx(TRUE.origin, abs=0.1)
    assert loaded.gantry.rotation_deg == pytest.approx(1.0, abs=0.01)
    assert Config().gantry.board_origin_mm == (170.0, 40.0)     # the original was not mutated
    lines = residual_report(fit, cal.references, cal.geometry.size)
    assert lines[0].lstrip().startswith("b2:")
    assert "rms" in lines[-1]


def test_jog_is_clamped_to_travel_and_recording_replaces():
    driver = JoggedGantry()
    cal = GantryCalibration(driver, Config())
    cal.home()
    assert cal.jog(-5.0, 10.0) == (0.0, 10.0)
    assert cal.jog(2000.0, 0.0) == (800.0, 10.0)
    cal.record(0)
    cal.jog(-1.0, 0.0)
    cal.record(0)
    assert len(cal.references) == 1 and cal.references[0].machine_mm == (799.0, 10.0)
    with pytest.raises(ValueError, match="not on a 11x11 board"):
        cal.record(121)


# ----------------------------------------------------------------------------- with the robot's simulator

def test_gantry_simulator_mounted_with_offset_and_one_degree_is_recovered():
    """The real GRBL driver over a pty to the robot package's simulated controller and table.

    The simulated table is mounted with the TRUE transform; calibration starts
    from the nominal config. The technician's eye is the simulated table's own
    truth: the magnet's board position, aimed with a little Gaussian error and
    reached in 0.1 mm jog steps.
    """
    from robot.grbl import GrblDriver
    from robot.layout import TableLayout
    from robot.simulator import GrblSimulator

    mounted = Config()
    mounted.gantry.board_origin_mm = TRUE.origin
    mounted.gantry.rotation_deg = TRUE.rotation_deg
    mounted.gantry.scale = TRUE.scale
    rng = random.Random(11)
    with GrblSimulator(mounted, speed_factor=40.0, layout=TableLayout(mounted)) as sim:
        driver = GrblDriver(sim.port, response_timeout=5.0, motion_timeout=30.0)
        driver.connect()
        try:
            cal = GantryCalibration(driver, Config(), jog_feed_mm_min=6000.0)
            cal.home()
            truth = sim.layout.transform
            for sq in cal.suggested_squares():
                cal.goto_square(sq)
                target = truth.to_machine(*cal.geometry.square_center(sq))
                aim = (target[0] + rng.gauss(0, 0.15), target[1] + rng.gauss(0, 0.15))
                x, y = cal.position()
                cal.jog(round((aim[0] - x) / 0.1) * 0.1, round((aim[1] - y) / 0.1) * 0.1)
                assert math.dist(sim.machine_position, cal.position()) < 0.01
                cal.record(sq)
            fit = cal.fit()
        finally:
            driver.close()
    geometry = cal.geometry
    points = [geometry.square_center(s) for s in range(geometry.size ** 2)]
    points += geometry.storage_slots("attackers", 24) + geometry.storage_slots("defenders", 13)
    worst = max(math.dist(fit.transform.to_machine(*p), TRUE.to_machine(*p)) for p in points)
    assert worst < 0.5, worst
    assert fit.transform.rotation_deg == pytest.approx(1.0, abs=0.05)
    assert cal.check_limits() == []


def test_next_square_walks_the_suggested_squares():
    cal = GantryCalibration(JoggedGantry(), Config())
    cal.home()
    seen = []
    while (sq := cal.next_square()) is not None:
        seen.append(sq)
        cal.goto_square(sq)
        cal.record(sq)
        assert cal.can_fit == (len(seen) >= 3)
    assert seen == cal.suggested_squares() == [12, 20, 108, 100]
