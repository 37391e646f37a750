"""The GRBL driver against the simulated controller, through a real pseudo-terminal."""
from __future__ import annotations

import os
import time

import pytest

from calibration.config import Config
from robot.grbl import (GrblAlarm, GrblCommandError, GrblDisconnected, GrblDriver,
                        GrblPositionUnknown, GrblProtocolError, GrblReset, GrblTimeout,
                        LineTooLong, parse_status)
from robot.grbl_codes import RT_SOFT_RESET
from robot.simulator import GrblSimulator, parse_faults
from robot.sim_gcode import GcodeError, clean_line, parse_block, parse_jog

SPEED = 100.0


@pytest.fixture
def sim():
    s = GrblSimulator(Config(), speed_factor=SPEED, build="origin")
    s.start()
    yield s
    s.stop()


@pytest.fixture
def grbl(sim):
    d = GrblDriver(sim.port, banner_timeout=1.0, response_timeout=3.0, motion_timeout=30.0)
    d.connect()
    yield d
    d.close()


def homed(d: GrblDriver) -> GrblDriver:
    d.home()
    d.send("G21G90")
    return d


# ---------------------------------------------------------------- banner, reset, status
def test_power_up_banner_and_alarm_lock(grbl):
    assert grbl.version == "1.1h"
    assert "[MSG:'$H'|'$X' to unlock]" in grbl.messages
    st = grbl.status()
    assert st.state == "Alarm"
    with pytest.raises(GrblCommandError) as err:
        grbl.send("G0X10")
    assert err.value.code == 9 and "locked out during alarm" in str(err.value)


def test_second_connection_probes_without_resetting(sim, grbl):
    homed(grbl)
    grbl.send("G0X100Y50")
    grbl.sync()
    grbl.close()
    again = GrblDriver(sim.port, banner_timeout=1.0)
    again.connect()                      # no banner comes: a '?' finds the live controller
    try:
        assert again.version == "1.1h"
        st = again.status()
        assert st.state == "Idle" and st.mpos[:2] == (100.0, 50.0)
    finally:
        again.close()


def test_soft_reset_brings_the_banner_back(grbl):
    homed(grbl)
    n = grbl.messages.count("Grbl 1.1h ['$' for help]")
    assert grbl.soft_reset() == "1.1h"
    assert grbl.messages.count("Grbl 1.1h ['$' for help]") == n + 1
    assert grbl.status().state == "Idle"         # reset while idle keeps the machine unlocked


def test_reset_in_motion_raises_alarm_3_and_locks(grbl):
    homed(grbl)
    grbl.send("G1X400Y300F300")                    # 100 s of motion: still moving at reset
    assert grbl.status().state == "Run"
    grbl.soft_reset()
    assert "ALARM:3" in grbl.messages
    assert grbl.status().state == "Alarm"
    grbl.unlock()
    assert "[MSG:Caution: Unlocked]" in grbl.messages
    assert grbl.status().state == "Idle"


def test_settings_and_info(grbl):
    s = grbl.settings()
    assert s[130] == 800.0 and s[131] == 560.0      # travel from the configuration
    assert {110, 111, 120, 121, 11, 20, 22} <= set(s)
    info = grbl.send("$I")
    assert info[0].startswith("[VER:1.1h") and info[1] == "[OPT:VZ,15,128]"   # Z: the HOMING_FORCE_SET_ORIGIN build
    assert grbl.send("$G")[0].startswith("[GC:G0 G54 G17 G21 G90 G94")


def test_status_in_work_coordinates_with_wco(grbl):
    homed(grbl)
    grbl.send("$10=0")                             # report WPos instead of MPos
    grbl.send("G0X100Y100")
    grbl.sync()
    grbl.send("G92X0Y0")                           # work origin here
    st = grbl.status()
    assert st.wpos is not None and st.mpos is None
    assert st.wco is not None and st.wco[:2] == (100.0, 100.0)   # WCO appears when it changes
    assert st.wpos[:2] == (0.0, 0.0)
    assert grbl.position() == (100.0, 100.0)                      # machine = WPos + WCO


@pytest.mark.parametrize("line, code", [
    ("G1X10", 22),          # no feed rate yet
    ("G5X1", 20),           # unsupported g-code
    ("G0G1X1", 21),         # two motion commands
    ("X1X2", 25),           # repeated word
    ("G4", 28),             # dwell without P
    ("$Q", 2),              # unknown $ letter: read as a setting number (as 1.1h does)
    ("$999=1", 3),          # unknown setting
    ("5X", 1),              # number without a letter
    ("GX", 2),              # letter without a number
    ("$J=X10", 22),         # jog without feed
    ("$J=G1X10F100", 16),   # jog with a forbidden g-code
    ("$J=X2000F1000", 15),  # jog beyond travel
])
def test_error_codes_carry_their_meaning(grbl, line, code):
    homed(grbl)
    with pytest.raises(GrblCommandError) as err:
        grbl.send(line)
    assert err.value.code == code
    assert f"error:{code}" in str(err.value) and line in str(err.value)


def test_overlong_line_refused_before_sending():
    with pytest.raises(LineTooLong):
        GrblDriver.check_line("G0X1" + "0" * 80)
    GrblDriver.check_line("G0 " + " X1" * 30)      # spaces do not count, as in GRBL's pre-parser
    assert clean_line("g0 x1 (comment) ; tail") == ("G0X1", False)


def test_raw_wire_overlong_line_and_rx_buffer(sim):
    import serial
    raw = serial.serial_for_url(sim.port, timeout=2)
    try:
        assert raw.readline() == b"\r\n"                                 # the banner's leading CR LF
        assert raw.readline().strip() == b"Grbl 1.1h ['$' for help]"    # from power-up
        assert raw.readline().strip() == b"[MSG:'$H'|'$X' to unlock]"
        raw.write(b"G4P0" + b"0" * 80 + b"\n")      # 85 significant characters
        assert raw.readline().strip() == b"error:11"
        raw.write(b"$10=2\n")                      # status with buffer state
        assert raw.readline().strip() == b"ok"
        raw.write(b"?")
        assert b"|Bf:15,128|" in raw.readline()
    finally:
        raw.close()


def test_jog_and_gcode_parsers():
    with pytest.raises(GcodeError) as err:
        parse_jog("G91X10")
    assert err.value.code == 22
    assert parse_block("G1X10.5Y-2F3000").values == {"X": 10.5, "Y": -2.0, "F": 3000.0}


def test_status_parser_reads_every_field():
    st = parse_status("<Hold:1|MPos:1.000,2.500,0.000|Bf:14,120|FS:1200,1000|WCO:5.000,6.000,0.000"
                      "|Ov:100,100,100|A:SF>")
    assert (st.state, st.substate, st.planner_free, st.rx_free) == ("Hold", 1, 14, 120)
    assert st.feed == 1200 and st.spindle == 1000 and st.accessories == "SF"
    with pytest.raises(ValueError):
        parse_status("<Dancing|MPos:0,0,0>")


# ---------------------------------------------------------------- motion and completion
def test_ok_means_planned_and_sync_means_done(sim, grbl):
    homed(grbl)
    grbl.send("G1X300Y200F300")                    # 72 s of motion in real time
    st = grbl.status()
    assert st.state == "Run" and st.mpos[:2] != (300.0, 200.0)
    grbl.sync()                                    # G4 P0.01 is answered after the motion
    st = grbl.status()
    assert st.state == "Idle" and st.mpos[:2] == (300.0, 200.0)
    assert sim.machine_position == (300.0, 200.0)


def test_wait_idle_by_status_polling(grbl):
    homed(grbl)
    grbl.send("G0X500Y400")
    grbl.send("G0X20Y30")
    st = grbl.wait_idle(poll_s=0.01)
    assert st.state == "Idle" and st.mpos[:2] == (20.0, 30.0)


def test_motion_takes_the_trapezoid_time_in_simulated_seconds(sim, grbl):
    from robot.kinematics import AxisLimits, straight_move_time
    homed(grbl)
    limits = AxisLimits.from_settings(grbl.settings())
    t0 = sim.clock()
    grbl.send("G0X400Y0")
    grbl.sync()
    elapsed = sim.clock() - t0
    bound = straight_move_time((0, 0), (400, 0), limits, None)
    assert elapsed >= bound * 0.99                 # never faster than the kinematics allow


def test_feed_hold_and_resume(grbl):
    homed(grbl)
    grbl.send("G1X300F300")                       # 60 s of motion in real time
    while grbl.position()[0] < 10:
        pass
    grbl.feed_hold()
    deadline = time.monotonic() + 5
    while grbl.status().raw.split("|")[0] != "<Hold:0":
        assert time.monotonic() < deadline
    x = grbl.position()[0]
    assert 0 < x < 300
    time.sleep(0.05)
    assert grbl.position()[0] == x                 # held: not moving
    grbl.resume()
    grbl.sync()
    assert grbl.position() == (300.0, 0.0)


def test_jog_and_jog_cancel(grbl):
    homed(grbl)
    grbl.jog(25.0, 10.0, 2000)
    assert grbl.position() == (25.0, 10.0)
    grbl.send("$J=G91X300F300")
    assert grbl.status().state == "Jog"
    grbl.jog_cancel()
    st = grbl.wait_idle(poll_s=0.01)
    assert 25.0 < st.mpos[0] < 325.0               # stopped short of the jog target


# ---------------------------------------------------------------- alarms and faults
def test_soft_limit_alarm_needs_reset_then_unlock(grbl, caplog):
    """As GRBL 1.1h: ALARM:2, 500 ms of silence, [MSG:Reset to continue]; a reset after
    the message answers the line in flight with `ok`, then the banner, locked in Alarm."""
    homed(grbl)
    with pytest.raises(GrblAlarm) as err:
        grbl.send("G0X900")                        # beyond the 800 mm travel
    assert err.value.code == 2 and "soft limit" in str(err.value)
    assert grbl.critical and not grbl.position_known
    with pytest.raises(GrblAlarm):
        grbl.status()                              # GRBL answers nothing in the critical wait
    grbl.soft_reset()                              # waits for the message, then resets
    msgs = grbl.messages
    assert msgs.index("ALARM:2") < msgs.index("[MSG:Reset to continue]") \
        < len(msgs) - 1 - msgs[::-1].index("Grbl 1.1h ['$' for help]")
    assert "unexpected" not in caplog.text          # the in-flight ok was expected
    assert grbl.status().state == "Alarm"
    with pytest.raises(GrblPositionUnknown):
        grbl.position()                            # alarms invalidate it until unlock/home
    grbl.unlock()
    grbl.send("G0X10")
    grbl.sync()
    assert grbl.position() == (10.0, 0.0)


def test_alarm_mid_move_stops_and_switches_the_magnet_off(sim, grbl):
    homed(grbl)
    grbl.send("M8")
    assert sim.world.magnet[2] is True
    sim.inject("alarm")
    with pytest.raises(GrblAlarm) as err:
        grbl.send("G1X400F3000")
        grbl.sync()
    assert err.value.code == 1 and "hard limit" in str(err.value)
    assert sim.world.magnet[2] is False            # GRBL's reset kills coolant = magnet
    x = sim.machine_position[0]
    assert 150 < x < 250                           # stopped half way
    with pytest.raises(GrblAlarm):                 # GRBL would ignore it: fail at once
        grbl.send("G0X10")
    grbl.soft_reset()
    assert grbl.status().state == "Alarm"
    grbl.home()
    assert grbl.status().state == "Idle"


def test_disconnect_raises_promptly_and_reconnects(sim, grbl):
    homed(grbl)
    sim.inject("disconnect")
    t0 = time.monotonic()
    with pytest.raises(GrblDisconnected) as err:
        grbl.send("G0X50")
    assert time.monotonic() - t0 < 2.0             # not a response timeout
    assert "vanished" in str(err.value)
    assert grbl.make_safe()                        # reports that the port is gone
    with pytest.raises(GrblDisconnected):
        grbl.status()
    grbl.close()
    port = sim.reconnect()
    d = GrblDriver(port, banner_timeout=1.0)
    d.connect()                                    # a power-cycled controller: alarm-locked
    try:
        assert d.status().state == "Alarm"
    finally:
        d.close()


def test_garbled_answer_fails_the_line_and_make_safe_turns_magnet_off(sim, grbl):
    homed(grbl)
    grbl.send("M8")
    sim.inject("garble")
    with pytest.raises(GrblProtocolError) as err:
        grbl.send("G0X20")
    assert "garbled" in str(err.value) and "G0X20" in str(err.value)
    assert grbl.garbled
    assert grbl.make_safe() == []
    assert sim.world.magnet[2] is False
    assert grbl.status().state in ("Idle", "Alarm")


def test_garbled_push_message_is_ignored(grbl):
    homed(grbl)
    grbl._dispatch(b"<Idle|MPos:\xff>")             # a corrupted status report from the wire
    grbl.send("G0X5")                              # the stream carries on
    assert grbl.garbled


def test_wrong_port_and_non_grbl_device_give_clear_errors(tmp_path):
    with pytest.raises(GrblDisconnected) as err:
        GrblDriver(str(tmp_path / "nothing")).connect()
    assert "cannot open gantry port" in str(err.value)
    master, slave = os.openpty()                   # a silent device
    try:
        d = GrblDriver(os.ttyname(slave), banner_timeout=0.3)
        with pytest.raises(Exception) as err2:
            d.connect()
        assert "banner" in str(err2.value)
        d.close()
    finally:
        os.close(master)
        os.close(slave)


def test_fault_list_parsing():
    assert [(f.kind, f.after) for f in parse_faults("miss@2, alarm,garble@5")] == [
        ("miss", 2), ("alarm", 1), ("garble", 5)]
    with pytest.raises(ValueError):
        parse_faults("explode@1")
    with pytest.raises(ValueError):
        parse_faults("miss@x")


def test_realtime_bytes_are_single_bytes(grbl):
    with pytest.raises(ValueError):
        grbl.realtime(b"??")
    grbl.realtime(RT_SOFT_RESET)
    with pytest.raises(ValueError):
        grbl.check_line("G0X1?")                  # '?' inside a line would act at once


def test_a_reset_between_two_lines_fails_the_stream(sim, grbl):
    homed(grbl)
    real_send = grbl.send

    def send_then_reset(line, timeout=None, watch=False):
        out = real_send(line, timeout, watch=watch)
        if line == "M8":
            grbl.soft_reset()             # as another thread's make_safe() would
        return out

    grbl.send = send_then_reset
    with pytest.raises(GrblReset):
        grbl.stream(["M8", "G4P0.01", "G1X40F1000"])
    grbl.send = real_send
    assert sim.world.magnet[2] is False
    assert grbl.position() == (0.0, 0.0)          # the drag after the reset never ran


def test_after_a_timeout_the_driver_refuses_until_reset(grbl):
    homed(grbl)
    with pytest.raises(GrblTimeout):
        grbl.send("G4P30", timeout=0.05)           # 30 s dwell: 0.3 s at 100x
    with pytest.raises(GrblProtocolError) as err:
        grbl.send("G0X5")                          # its late 'ok' must not count for this
    assert "out of step" in str(err.value)
    grbl.soft_reset()
    grbl.send("G0X5")
    grbl.sync()
    assert grbl.position() == (5.0, 0.0)


def test_a_new_speed_factor_runs_on_from_the_simulated_time_reached(monkeypatch):
    """GrblSimulator.set_speed_factor: the clock neither jumps nor stops, only its rate changes."""
    import robot.simulator

    wall = [100.0]
    monkeypatch.setattr(robot.simulator.time, "monotonic", lambda: wall[0])
    sim = GrblSimulator(Config(), speed_factor=2.0)
    wall[0] += 10.0
    assert sim.clock() == pytest.approx(20.0)
    sim.set_speed_factor(50.0)
    assert sim.clock() == pytest.approx(20.0) and sim.speed_factor == 50.0
    wall[0] += 1.0
    assert sim.clock() == pytest.approx(70.0)
    with pytest.raises(ValueError):
        sim.set_speed_factor(0.0)
