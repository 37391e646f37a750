"""GRBL 1.1 error and alarm codes with their meanings, and the protocol's fixed sizes.

WHY a table: the controller only answers `error:22` or `ALARM:2`; an operator
reading a log needs the meaning, so every exception the driver raises carries
it. The texts follow the GRBL 1.1 documentation (doc/csv in gnea/grbl).
"""
from __future__ import annotations

#: characters of one line GRBL will accept (LINE_BUFFER_SIZE 80 with a terminator):
#: a line with more significant characters is refused with error:11.
MAX_LINE_CHARS = 79
#: GRBL's serial receive buffer (RX_BUFFER_SIZE); one byte of the ring is always free.
RX_BUFFER_SIZE = 128
#: motion blocks the planner holds (BLOCK_BUFFER_SIZE 16, one always free).
PLANNER_BLOCKS = 15

# Real-time commands: single bytes GRBL acts on at once, outside the line stream.
RT_STATUS = b"?"
RT_FEED_HOLD = b"!"
RT_CYCLE_START = b"~"
RT_SOFT_RESET = b"\x18"
RT_SAFETY_DOOR = b"\x84"
RT_JOG_CANCEL = b"\x85"

ERROR_CODES: dict[int, str] = {
    1: "G-code words consist of a letter and a value; letter was not found",
    2: "numeric value format is not valid or missing an expected value",
    3: "'$' system command was not recognised or supported",
    4: "negative value received for an expected positive value",
    5: "homing cycle is not enabled via settings",
    6: "minimum step pulse time must be greater than 3 usec",
    7: "EEPROM read failed; reset and restored to default values",
    8: "'$' command cannot be used unless GRBL is IDLE",
    9: "G-code locked out during alarm or jog state",
    10: "soft limits cannot be enabled without homing also enabled",
    11: "max characters per line exceeded; line was not processed",
    12: "'$' setting value exceeds the maximum step rate supported",
    13: "safety door detected as opened and door state initiated",
    14: "build info or startup line exceeded EEPROM line length limit",
    15: "jog target exceeds machine travel; command ignored",
    16: "jog command with no '=' or contains prohibited g-code",
    17: "laser mode requires PWM output",
    20: "unsupported or invalid g-code command found in block",
    21: "more than one g-code command from the same modal group in block",
    22: "feed rate has not yet been set or is undefined",
    23: "g-code command in block requires an integer value",
    24: "two g-code commands that both require XYZ axis words in block",
    25: "a g-code word was repeated in the block",
    26: "a g-code command requires XYZ axis words but none were found",
    27: "N line number value is not within the valid range 1-9,999,999",
    28: "a g-code command is missing a required P or L value word",
    29: "G59.1, G59.2 and G59.3 work coordinate systems are not supported",
    30: "G53 is only allowed with G0 and G1 motion modes",
    31: "axis words found in block when no command or modal state uses them",
    32: "G2/G3 arcs require at least one in-plane axis word",
    33: "motion command has an invalid target",
    34: "arc radius value is invalid",
    35: "G2/G3 arcs require at least one in-plane offset word",
    36: "unused value words found in block",
    37: "G43.1 dynamic tool length offset is not assigned to the tool length axis",
    38: "tool number greater than max supported value",
}

ALARM_CODES: dict[int, str] = {
    1: "hard limit triggered; machine position is likely lost, re-homing is highly recommended",
    2: "soft limit: motion target exceeds machine travel; position retained, alarm may be unlocked",
    3: "reset while in motion; position is likely lost, re-homing is highly recommended",
    4: "probe fail: probe not in the expected initial state",
    5: "probe fail: probe did not contact the workpiece within the programmed travel",
    6: "homing fail: the active homing cycle was reset",
    7: "homing fail: safety door was opened during the homing cycle",
    8: "homing fail: pull-off travel failed to clear the limit switch",
    9: "homing fail: could not find the limit switch within the search distance",
}


def error_meaning(code: int) -> str:
    return ERROR_CODES.get(code, "unknown error code")


def alarm_meaning(code: int) -> str:
    return ALARM_CODES.get(code, "unknown alarm code")
