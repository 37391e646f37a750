"""Staff mode's calibration page: board check, guided gantry calibration, morning self-test.

Three parts behind sub-tabs, each built on the calibration package:

- board check: calibration.board_check.check_board on the controller's newest
  camera frame; the error at the square centres (mm), the camera tilt and the
  warnings in large text;
- gantry: calibration.gantry.GantryCalibration, step by step through
  ``controller.calibration_step`` (the steps block on motion, so they run on
  the gantry thread and come back as ``controller.calibration_status()``);
- self-test: calibration.selfcheck.run_self_check, every item with its
  verdict as a word, a colour and an icon (the icon keeps it readable for
  colour-blind staff).

The board check and the self-test read one frame and do image work of a
fraction of a second on a button press, not every frame.
"""
from __future__ import annotations

import math
import os
from typing import Any, Callable

import pygame

from calibration.config import DEFAULT_CONFIG_PATH
from kiosk.ui import palette
from kiosk.ui.context import UiContext
from kiosk.ui.widgets import (badge, draw_button, draw_panel, draw_paragraph, draw_text, icon_arrow, icon_cross,
                              icon_home, icon_tick)

CONFIG_ENV = "TAFL_KIOSK_CONFIG"
JOG_STEPS_MM = (0.1, 0.5, 5.0)     # calibration wants finer steps than the robot page
PARTS = ("board", "gantry", "selftest")

# verdict -> (colour, icon); the word is drawn too
VERDICT_COLOURS = {"PASS": palette.GOOD, "WARN": palette.ORANGE, "FAIL": palette.BAD, "SKIP": palette.PANEL_EDGE}


def icon_warn(surface: pygame.Surface, rect: pygame.Rect, colour: Any) -> None:
    """An exclamation mark: WARN's shape, distinct from tick and cross."""
    w = max(3, rect.width // 7)
    x = rect.centerx
    pygame.draw.line(surface, colour, (x, rect.top + rect.height * 0.12), (x, rect.top + rect.height * 0.62), w)
    pygame.draw.circle(surface, colour, (x, int(rect.top + rect.height * 0.82)), w)


def icon_dash(surface: pygame.Surface, rect: pygame.Rect, colour: Any) -> None:
    w = max(3, rect.width // 7)
    pygame.draw.line(surface, colour, (rect.left + rect.width * 0.2, rect.centery),
                     (rect.right - rect.width * 0.2, rect.centery), w)


VERDICT_ICONS: dict[str, Callable[[pygame.Surface, pygame.Rect, Any], None]] = {
    "PASS": icon_tick, "WARN": icon_warn, "FAIL": icon_cross, "SKIP": icon_dash}


def config_path() -> str:
    """Where calibration is saved: the kiosk's config file, as the levels page saves it."""
    return os.environ.get(CONFIG_ENV, DEFAULT_CONFIG_PATH)


def run_button(surface: pygame.Surface, ctx: UiContext, body: pygame.Rect, buttons: Any, key: str,
               label: str, action: Callable[[], None]) -> tuple[pygame.Rect, pygame.Rect]:
    """A page's "run" button at the top of `body`; returns it and the area left below it for the result."""
    lay = ctx.layout
    run = pygame.Rect(body.left, body.top, min(body.width, lay.target * 4), lay.target)
    draw_button(surface, run, ctx.t(label), lay.font_body, palette.PRIMARY)
    buttons.add(key, run, action)
    below = run.bottom + lay.gap * 2
    return run, pygame.Rect(body.left, below, body.width, body.bottom - below)

class CalibrationPage:
    """The page's state between frames; StaffScreen draws it into its content area."""

    def __init__(self) -> None:
        self.part = "board"
        self.jog_step = 1
        self.board: Any = None            # calibration.board_check.BoardCheck of the last run
        self.board_error: str | None = None
        self.selftest: Any = None         # calibration.selfcheck.SelfCheckReport of the last run
        self.status: str | None = None

    # ---- actions ---------------------------------------------------------------------------
    def snapshot(self, ctx: UiContext) -> Any:
        take = getattr(ctx.controller, "camera_snapshot", None)
        frame = take() if take is not None else None
        if frame is None or getattr(frame, "ndim", 0) != 3 or frame.size == 0:
            return None
        return frame

    def run_board_check(self, ctx: UiContext) -> None:
        from calibration.board_check import check_board

        self.board, self.board_error = None, None
        try:
            frame = self.snapshot(ctx)
            if frame is None:
                self.board_error = ctx.t("staff.camera_no_picture")
                return
            self.board = check_board(frame, ctx.config)
        except Exception as exc:        # noqa: BLE001 - a bad frame is a finding on screen, not a crash
            self.board_error = str(exc)

    def run_self_test(self, ctx: UiContext) -> None:
        from calibration.selfcheck import run_self_check

        def frame() -> Any:
            image = self.snapshot(ctx)
            if image is None:
                raise RuntimeError("the camera has no picture")
            return image

        source = os.environ.get(CONFIG_ENV) or "kiosk config"
        self.selftest = run_self_check(ctx.config, frame=frame, config_source=source)

    def step(self, ctx: UiContext, action: str, **kwargs: Any) -> None:
        """One gantry calibration step via the controller; a refusal becomes the status line."""
        method = getattr(ctx.controller, "calibration_step", None)
        if method is None:
            self.status = ctx.t("staff.not_available")
            return
        try:
            method(action, **kwargs)
            self.status = None
        except (RuntimeError, ValueError) as exc:
            self.status = ctx.t("staff.refused", error=str(exc))

    # ---- drawing ---------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect, buttons: Any) -> None:
        lay = ctx.layout
        g, T = lay.gap, lay.target
        tab_w = min(T * 4, (area.width - 2 * g) // len(PARTS))
        for k, part in enumerate(PARTS):
            rect = pygame.Rect(area.left + k * (tab_w + g), area.top, tab_w, T)
            draw_button(surface, rect, ctx.t(f"staff.cal_{part}"), lay.font_small,
                        palette.PRIMARY if part == self.part else palette.PANEL)
            buttons.add(f"cal.part.{part}", rect, lambda p=part: self.set_part(p))
        body = pygame.Rect(area.left, area.top + T + g * 2, area.width, area.height - T - g * 2)
        getattr(self, f"draw_{self.part}")(surface, ctx, body, buttons)
        if self.status:
            draw_text(surface, self.status, (area.right, area.top + T // 2), lay.font_small, palette.ORANGE,
                      anchor="midright")

    def set_part(self, part: str) -> None:
        self.part = part
        self.status = None

    def draw_board(self, surface: pygame.Surface, ctx: UiContext, body: pygame.Rect, buttons: Any) -> None:
        lay = ctx.layout
        g, T = lay.gap, lay.target
        _, text = run_button(surface, ctx, body, buttons, "cal.board.run", "staff.cal_board_run",
                             lambda: self.run_board_check(ctx))
        if self.board_error:
            draw_paragraph(surface, self.board_error, text, lay.font_heading, palette.ORANGE)
            return
        check = self.board
        if check is None:
            draw_paragraph(surface, ctx.t("staff.cal_board_hint"), text, lay.font_body, palette.TEXT_DIM)
            return
        err = check.max_square_error_mm
        good = check.ok and math.isfinite(err) and err <= 1.0
        radius = T // 2
        badge(surface, (text.left + radius, text.top + radius), radius, good)
        lines_left = text.left + 2 * radius + g * 2
        residual = (ctx.t("staff.cal_residual", mm=f"{err:.2f}") if math.isfinite(err)
                    else ctx.t("staff.cal_residual_none"))
        y = draw_paragraph(surface, residual, pygame.Rect(lines_left, text.top, text.right - lines_left, T),
                           lay.font_title, palette.TEXT, valign="center")
        if check.tilt_deg is not None:
            tilt = ctx.t("staff.cal_tilt", deg=f"{check.tilt_deg:.1f}")
            y = draw_paragraph(surface, tilt, pygame.Rect(lines_left, y + g, text.right - lines_left, T),
                               lay.font_heading, palette.TEXT) + g
        notes = [(w, palette.ORANGE) for w in check.warnings] + [(p, palette.BAD) for p in check.problems]
        if check.missing:
            notes.insert(0, (ctx.t("staff.cal_missing", ids=", ".join(map(str, check.missing))), palette.BAD))
        for note, colour in notes:
            if y + lay.font_body > text.bottom:
                break
            mark = pygame.Rect(text.left, y, lay.font_body, lay.font_body)
            (icon_warn if colour == palette.ORANGE else icon_cross)(surface, mark, colour)
            y = draw_paragraph(surface, note, pygame.Rect(mark.right + g, y, text.right - mark.right - g,
                                                          lay.font_body * 3), lay.font_body, colour, min_size=12) + g

    def draw_gantry(self, surface: pygame.Surface, ctx: UiContext, body: pygame.Rect, buttons: Any) -> None:
        lay = ctx.layout
        g, T = lay.gap, lay.target
        pg = 2 if lay.compact else g
        status = getattr(ctx.controller, "calibration_status", lambda: None)()
        able = hasattr(ctx.controller, "calibration_step")
        homed = bool(status is not None and status.homed)
        step = JOG_STEPS_MM[self.jog_step]
        pad = pygame.Rect(body.left, body.top, 3 * T + 2 * pg, 3 * T + 2 * pg)
        for (c, r, dx, dy, direction) in ((1, 0, 0, step, "up"), (0, 1, -step, 0, "left"),
                                          (2, 1, step, 0, "right"), (1, 2, 0, -step, "down")):
            rect = pygame.Rect(pad.left + c * (T + pg), pad.top + r * (T + pg), T, T)
            draw_button(surface, rect, "", lay.font_button, palette.SECONDARY, enabled=able and homed,
                        icon=icon_arrow(direction))
            buttons.add(f"cal.jog.{direction}", rect,
                        lambda dx=dx, dy=dy: self.step(ctx, "jog", dx_mm=dx, dy_mm=dy), able and homed)
        home = pygame.Rect(pad.left + T + pg, pad.top + T + pg, T, T)
        draw_button(surface, home, "", lay.font_button, palette.PRIMARY, enabled=able, icon=icon_home)
        buttons.add("cal.home", home, lambda: self.step(ctx, "home"), able)
        step_btn = pygame.Rect(pad.left, pad.top, T, T)
        draw_button(surface, step_btn, f"{step:g} mm", lay.font_small, palette.PANEL_EDGE, enabled=able)
        buttons.add("cal.jog.step", step_btn, self.cycle_step, able)

        can_fit = bool(status is not None and status.can_fit)
        fitted = bool(status is not None and status.rms_mm is not None)
        target = status.target if status is not None else None
        actions = [("next", ctx.t("staff.cal_next", square=target or "-"), able and homed and target is not None,
                    lambda: self.step(ctx, "next")),
                   ("record", ctx.t("staff.cal_record"), able and homed and target is not None,
                    lambda: self.step(ctx, "record")),
                   ("fit", ctx.t("staff.cal_fit"), able and can_fit, lambda: self.step(ctx, "fit")),
                   ("save", ctx.t("staff.cal_save"), able and fitted, lambda: self.step(ctx, "save", path=config_path())),
                   ("reset", ctx.t("staff.cal_reset"), able, lambda: self.step(ctx, "reset"))]
        col_w = int(T * 2.2)
        left = pad.right + g * 3
        row_h = max(lay.font_small * 2, min(T, (body.height - (len(actions) - 1) * pg) // len(actions)))
        for k, (key, label, enabled, action) in enumerate(actions):
            rect = pygame.Rect(left, body.top + k * (row_h + pg), col_w, row_h)
            if rect.bottom > body.bottom:
                break
            draw_button(surface, rect, label, lay.font_small,
                        palette.PRIMARY if key in ("record", "save") else palette.SECONDARY, enabled=enabled)
            buttons.add(f"cal.{key}", rect, action, enabled)

        info = pygame.Rect(left + col_w + g * 3, body.top, body.right - left - col_w - g * 3, body.height)
        draw_panel(surface, info, palette.PANEL, shadow=False)
        inner = info.inflate(-2 * g, -2 * g)
        lines: list[tuple[str, Any, int]] = []
        if status is None:
            lines.append((ctx.t("staff.cal_gantry_hint"), palette.TEXT_DIM, lay.font_body))
        else:
            if status.position_mm is not None:
                lines.append((ctx.t("staff.cal_position", x=f"{status.position_mm[0]:.2f}",
                                    y=f"{status.position_mm[1]:.2f}"), palette.TEXT, lay.font_body))
            elif not status.homed:
                lines.append((ctx.t("staff.cal_home_first"), palette.ORANGE, lay.font_body))
            lines.append((ctx.t("staff.cal_recorded", count=len(status.recorded),
                                squares=", ".join(status.recorded) or "-"), palette.TEXT, lay.font_body))
            if status.rms_mm is not None:
                good = status.rms_mm <= 1.0 and not status.limit_problems
                lines.append((ctx.t("staff.cal_fit_result", rms=f"{status.rms_mm:.2f}",
                                    max=f"{max(status.residuals_mm, default=0.0):.2f}"),
                              palette.TEXT if good else palette.ORANGE, lay.font_heading))
                lines.append((ctx.t("staff.cal_transform", rotation=f"{status.rotation_deg:+.3f}",
                                    x=f"{status.origin_mm[0]:.2f}", y=f"{status.origin_mm[1]:.2f}",
                                    sx=f"{status.scale[0]:.4f}", sy=f"{status.scale[1]:.4f}"),
                              palette.TEXT, lay.font_body))
                for problem in status.limit_problems[:2]:
                    lines.append((problem, palette.ORANGE, lay.font_small))
            if status.saved_to:
                lines.append((ctx.t("staff.saved", path=status.saved_to), palette.TEXT, lay.font_body))
            if status.error:
                lines.append((ctx.t("staff.refused", error=status.error), palette.ORANGE, lay.font_body))
        y = inner.top
        for text, colour, size in lines:
            if y + size > inner.bottom:
                break
            y = draw_paragraph(surface, text, pygame.Rect(inner.left, y, inner.width, size * 3), size, colour,
                               min_size=12) + g

    def cycle_step(self) -> None:
        self.jog_step = (self.jog_step + 1) % len(JOG_STEPS_MM)

    def draw_selftest(self, surface: pygame.Surface, ctx: UiContext, body: pygame.Rect, buttons: Any) -> None:
        lay = ctx.layout
        g, T = lay.gap, lay.target
        run, rows = run_button(surface, ctx, body, buttons, "cal.selftest.run", "staff.cal_selftest_run",
                               lambda: self.run_self_test(ctx))
        report = self.selftest
        if report is None:
            draw_paragraph(surface, ctx.t("staff.cal_selftest_hint"), rows, lay.font_body, palette.TEXT_DIM)
            return
        verdict = ctx.t("staff.cal_selftest_passed") if report.passed else ctx.t("staff.cal_selftest_failed")
        draw_text(surface, verdict, (run.right + g * 3, run.centery), lay.font_heading,
                  palette.TEXT if report.passed else palette.ORANGE, anchor="midleft")
        row_h = max(lay.font_small + 8, min(T, rows.height // max(1, len(report.results))))
        chip_w = int(row_h * 3.2)
        for k, item in enumerate(report.results):
            row = pygame.Rect(rows.left, rows.top + k * row_h, rows.width, row_h - 4)
            if row.bottom > rows.bottom:
                break
            word = item.status.value
            colour = VERDICT_COLOURS[word]
            chip = pygame.Rect(row.left, row.top, chip_w, row.height)
            pygame.draw.rect(surface, colour, chip, border_radius=row.height // 4)
            mark = pygame.Rect(chip.left + 4, chip.top + 4, row.height - 8, row.height - 8)
            VERDICT_ICONS[word](surface, mark, palette.on_colour(colour))
            draw_text(surface, ctx.t(f"staff.cal_verdict_{word.lower()}"), (mark.right + 6, chip.centery),
                      max(12, int(row.height * 0.5)), palette.on_colour(colour), anchor="midleft")
            draw_paragraph(surface, f"{item.name}: {item.detail}",
                           pygame.Rect(chip.right + g * 2, row.top, row.right - chip.right - g * 2, row.height),
                           max(12, int(row.height * 0.45)), palette.TEXT, valign="center", min_size=10)
