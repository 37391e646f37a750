"""The self-check flags the firmware builds and settings the gantry cannot work with (issue 21)."""
from __future__ import annotations

import pytest

from calibration.cli import _probe_gantry
from calibration.config import Config
from calibration.selfcheck import Status, run_self_check
from robot.simulator import GrblSimulator


def gantry_checks(**sim_options) -> dict[str, tuple[Status, str]]:
    config = Config()
    with GrblSimulator(config, speed_factor=200.0, **sim_options) as sim:
        report = run_self_check(config, probe=_probe_gantry(sim.port, config))
    return {r.name: (r.status, r.detail) for r in report.results if r.name.startswith("gantry")}


def test_a_good_controller_passes_and_is_homed():
    checks = gantry_checks()
    assert checks["gantry homing"][0] is Status.PASS
    assert checks["gantry"][1].endswith("state Idle")
    assert "stock machine space" in checks["gantry soft limits"][1]


def test_z_first_homing_is_flagged():
    status, detail = gantry_checks(z_first_homing=True)["gantry homing"]
    assert status is Status.FAIL and "ALARM:9" in detail and "HOMING_CYCLE_0" in detail


def test_homing_disabled_is_flagged():
    checks = gantry_checks(settings={22: 0})
    assert checks["gantry homing"][0] is Status.FAIL and "$22=0" in checks["gantry homing"][1]
    assert checks["gantry soft limits"][0] is Status.WARN        # $22=0 drops $20 as well


@pytest.mark.parametrize("travel", [(700.0, 560.0), (800.0, 600.0)])
def test_soft_limits_that_do_not_match_the_travel_are_flagged(travel):
    status, detail = gantry_checks(settings={130: travel[0], 131: travel[1]})["gantry travel"]
    assert status is Status.FAIL and "gantry.travel_mm" in detail
