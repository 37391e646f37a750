"""The robot's public hooks for the kiosk: `Gantry.rehome()` and `GrblDriver.drop_connection()`.

Through the real stack (driver -> pty -> simulated GRBL -> simulated table).
"""
from __future__ import annotations

from calibration.config import Config
from robot.simrig import SimRig

FAST = 300.0


def test_rehome_makes_the_gantry_ready_for_steps(tmp_path):
    with SimRig(Config(), speed_factor=FAST, state_dir=tmp_path) as rig:
        assert rig.sim.state == "Alarm"           # power-up: alarm-locked until homed
        rig.gantry.rehome()
        assert rig.sim.state == "Idle"
        assert "G21G90G94" in rig.sim.lines_received
        steps = rig.gantry.setup("copenhagen")
        assert steps and rig.table.collisions == []


def test_drop_connection_closes_the_port_without_a_goodbye(tmp_path):
    with SimRig(Config(), speed_factor=FAST, state_dir=tmp_path) as rig:
        rig.gantry.rehome()
        driver = rig.driver
        assert driver.connected
        before = len(rig.sim.lines_received)
        driver.drop_connection()
        assert not driver.connected
        assert len(rig.sim.lines_received) == before   # nothing sent: no magnet-off, no reset
        driver.close()                                  # closing afterwards is harmless
        assert not driver.connected
