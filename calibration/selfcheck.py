"""The unattended self-test: everything about the calibration that needs no person.

Run every morning (and from the staff screen): is the config valid, is the
lens calibrated, are the four markers seen and the squares where they should
be, does every storage slot lie inside the gantry's travel, does the gantry
controller answer with the travel we think it has. Each check gives PASS,
WARN, FAIL or SKIP with one line of detail; the whole passes when nothing
FAILs. Talking to the gantry needs the robot package, which this layer may
not import, so the caller passes a probe function in (calibration/cli.py
does, the kiosk can too).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from calibration.config import Config
from calibration.gantry import check_soft_limits, storage_slot_counts
from calibration.geometry import BoardGeometry, GantryTransform


class Status(str, enum.Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: Status
    detail: str

    def __str__(self) -> str:
        return f"{self.status.value:4}  {self.name}: {self.detail}"


@dataclass(frozen=True)
class GantryProbe:
    """What a gantry controller said about itself (from the caller's driver)."""

    version: str
    state: str                                   # GRBL state: Idle, Alarm, ...
    travel_mm: tuple[float, float] | None         # $130/$131
    soft_limits: bool | None                      # $20
    homing_enabled: bool | None = None            # $22
    build: str | None = None                      # "stock" or "HOMING_FORCE_SET_ORIGIN"
    homing_alarm: int | None = None               # ALARM:N of a homing the probe tried


@dataclass
class SelfCheckReport:
    results: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(r.status is not Status.FAIL for r in self.results)

    def add(self, name: str, status: Status, detail: str) -> CheckResult:
        result = CheckResult(name, status, detail)
        self.results.append(result)
        return result

    def summary(self) -> str:
        counts = {s: sum(r.status is s for r in self.results) for s in Status}
        verdict = "PASSED" if self.passed else "FAILED"
        return (f"self-check {verdict}: {counts[Status.PASS]} pass, {counts[Status.WARN]} warn, "
                f"{counts[Status.FAIL]} fail, {counts[Status.SKIP]} skipped")

    def lines(self) -> list[str]:
        return [str(r) for r in self.results] + [self.summary()]


FrameSource = Callable[[], np.ndarray]
ProbeFunction = Callable[[], "GantryProbe | None"]   # None: no controller on the port


def run_self_check(config: Config, frame: FrameSource | None = None,
                   probe: ProbeFunction | None = None, board_name: str | None = None,
                   config_source: str = "built-in defaults") -> SelfCheckReport:
    """Run every unattended check; a check whose input is missing is SKIPped, never guessed."""
    report = SelfCheckReport()
    report.add("config", Status.PASS, f"valid ({config_source})")
    geo = BoardGeometry.from_config(config, board_name)

    if config.camera.camera_matrix:
        report.add("lens", Status.PASS, "calibrated")
    else:
        report.add("lens", Status.WARN, "not calibrated (run tafl-calibrate camera): square centres "
                                        "near the image edge may be off")

    _check_board(report, config, board_name, frame)
    _check_storage(report, config, board_name, geo)
    _check_gantry(report, config, probe)
    return report


def _check_board(report: SelfCheckReport, config: Config, board_name: str | None,
                 frame: FrameSource | None) -> None:
    if frame is None:
        report.add("markers", Status.SKIP, "no camera frame or image given")
        return
    try:
        image = frame()
    except Exception as exc:   # noqa: BLE001 - a camera that cannot deliver is a finding, not a crash
        report.add("camera", Status.FAIL, f"no frame: {exc}")
        return
    from calibration.board_check import check_board

    check = check_board(image, config, board_name)
    if check.missing:
        report.add("markers", Status.FAIL, f"missing marker ids {check.missing} (covered or out of view?)")
    else:
        report.add("markers", Status.PASS, f"all four found in a {check.image_size[0]}x{check.image_size[1]} frame")
    if check.homography is None:
        report.add("board", Status.SKIP, "board not located")
        return
    err = check.max_square_error_mm
    if not np.isfinite(err):
        report.add("board", Status.WARN, "grid lines could not be measured (pieces or glare over the board?)")
    elif err > 1.0:
        report.add("board", Status.FAIL, f"squares up to {err:.2f} mm from where the markers put them")
    else:
        report.add("board", Status.PASS, f"error at square centres max {err:.2f} mm")
    other = [p for p in check.problems if "not found" not in p and "grid lines" not in p
             and "fewer than 3" not in p]
    for p in other:
        report.add("board", Status.FAIL, p)
    for w in check.warnings:
        report.add("board", Status.WARN, w)
    if check.tilt_deg is not None and not any("tilt" in w for w in check.warnings):
        report.add("camera tilt", Status.PASS, f"{check.tilt_deg:.1f} deg from vertical")


def _check_storage(report: SelfCheckReport, config: Config, board_name: str | None,
                   geo: BoardGeometry) -> None:
    try:
        counts = storage_slot_counts(config, board_name)
    except Exception as exc:   # noqa: BLE001 - a finding, not a crash
        report.add("storage", Status.FAIL, f"cannot count the pieces to park: {exc}")
        return
    problems = check_soft_limits(geo, GantryTransform.from_config(config.gantry),
                                 config.gantry.travel_mm, counts)
    if problems:
        report.add("storage", Status.FAIL, f"{len(problems)} points outside the travel, e.g. {problems[0]}")
    else:
        total = sum(counts.values())
        report.add("storage", Status.PASS, f"all {total} slots and the board inside the travel "
                                           f"{config.gantry.travel_mm[0]:g} x {config.gantry.travel_mm[1]:g} mm")


def _check_gantry(report: SelfCheckReport, config: Config, probe: ProbeFunction | None) -> None:
    if probe is None:
        report.add("gantry", Status.SKIP, "not probed")
        return
    try:
        found = probe()
    except Exception as exc:   # noqa: BLE001 - a controller that fails is a finding, not a crash
        report.add("gantry", Status.FAIL, f"controller does not answer: {exc}")
        return
    if found is None:
        report.add("gantry", Status.SKIP, f"no controller at {config.gantry.port}")
        return
    note = " (normal before homing)" if found.state == "Alarm" else ""
    report.add("gantry", Status.PASS, f"GRBL {found.version} answers, state {found.state}{note}")
    if found.travel_mm is not None:
        want = tuple(config.gantry.travel_mm)
        if any(abs(a - b) > 0.5 for a, b in zip(found.travel_mm, want)):
            report.add("gantry travel", Status.FAIL,
                       f"controller's $130/$131 = {found.travel_mm[0]:g} x {found.travel_mm[1]:g} mm but "
                       f"gantry.travel_mm = {want[0]:g} x {want[1]:g} mm")
        else:
            report.add("gantry travel", Status.PASS, "$130/$131 match gantry.travel_mm")
    if found.soft_limits is False:
        report.add("gantry soft limits", Status.WARN, "$20=0: the controller does not refuse moves "
                                                      "beyond its travel")
    elif found.soft_limits and found.travel_mm is not None:
        report.add("gantry soft limits", Status.PASS,
                   f"$20=1 over {found.travel_mm[0]:g} x {found.travel_mm[1]:g} mm"
                   + (f" ({found.build} machine space)" if found.build else ""))
    if found.homing_enabled is False:
        report.add("gantry homing", Status.FAIL,
                   "$22=0: homing is disabled, so after a power cycle GRBL reports MPos:0,0 "
                   "wherever the carriage stands and the robot cannot trust its position "
                   "(set $22=1, see docs/install.md)")
    if found.homing_alarm == 9:
        report.add("gantry homing", Status.FAIL,
                   "homing failed with ALARM:9 (no limit switch found): the firmware homes Z "
                   "first, as stock GRBL 1.1h does; build it with HOMING_CYCLE_0 = X and Y "
                   "(docs/install.md)")
    elif found.homing_alarm is not None:
        report.add("gantry homing", Status.FAIL,
                   f"homing failed with ALARM:{found.homing_alarm}: check the limit switches "
                   "and $23-$27")
    elif found.homing_enabled:
        report.add("gantry homing", Status.PASS, "$22=1" + (
            ", and a homing cycle completed" if found.state == "Idle" else ""))
