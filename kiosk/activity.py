"""What the robot is doing, as a code with arguments: the UI alone turns it into words.

WHY codes: the screens translate the activity into the visitor's language;
handing them English ("moving e4 to e9") made the UI parse it back with
regular expressions. A code plus named arguments (square names) is what the
i18n texts (``robot.<code>``) take.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engine import square_name

from kiosk.ports import Slot, Transfer


class ActivityCode(str, Enum):
    NONE = ""
    MOVING = "moving"            # from, to: the robot slides a piece on the board
    PARKING = "parking"          # square: a piece goes into storage
    PLACING = "placing"          # square: a piece comes out of storage
    JOGGING = "jogging"          # staff jog in progress
    CARRIAGE_AT = "carriage_at"  # x, y (mm): where a staff jog ended
    CALIBRATION = "calibration"  # action: a staff calibration step


@dataclass(frozen=True)
class RobotActivity:
    code: ActivityCode = ActivityCode.NONE
    args: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.code != ActivityCode.NONE

    def __str__(self) -> str:
        """For logs and staff pages: the code and its arguments, never shown to visitors."""
        if not self:
            return ""
        return " ".join([self.code.value] + [f"{k}={v}" for k, v in self.args.items()])


IDLE_ACTIVITY = RobotActivity()


def activity_for(transfer: Transfer, size: int) -> RobotActivity:
    """The activity of carrying `transfer` on a board of `size`."""
    def name(loc: object) -> str:
        return square_name(loc, size) if isinstance(loc, int) else "storage"
    if transfer.kind == "park" or (isinstance(transfer.dst, Slot) and isinstance(transfer.src, int)):
        return RobotActivity(ActivityCode.PARKING, {"square": name(transfer.src)})
    if isinstance(transfer.src, Slot):
        return RobotActivity(ActivityCode.PLACING, {"square": name(transfer.dst)})
    return RobotActivity(ActivityCode.MOVING, {"from": name(transfer.src), "to": name(transfer.dst)})
