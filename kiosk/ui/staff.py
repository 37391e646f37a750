"""Staff mode, behind a PIN: robot (home, jog, set up, clear, test move), camera, calibration, logs, levels, exit.

The PIN is checked against the PBKDF2 hash in the config on a thread of its
own, and wrong PINs lock the keypad for longer and longer, across restarts
(kiosk/staffpin.py's PinGuard). The PIN pad lists the staff notices
(kiosk/notices.py: damaged state files, a missing config) so staff see them
even when there is no PIN to get further. Jogging, test moves and the
live camera picture use controller methods beyond the architecture's list
(``jog(dx_mm, dy_mm)``, ``test_move(from_sq, to_sq)``, ``camera_snapshot() ->
BGR frame | None``); a controller without them (a test double) gets buttons
that say "not available". The camera page shows the squares read from the
controller's camera port (``controller.camera.read_latest()``, which only
peeks at the newest reading) next to the picture.
"""
from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any, Callable

import pygame

from calibration.config import DEFAULT_CONFIG_PATH
from kiosk import lockdown
from kiosk import notices
from kiosk.staffpin import PinGuard
from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_board, draw_pieces
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.fonts import font
from kiosk.ui.staff_calibration import CalibrationPage
from kiosk.ui.widgets import draw_button, draw_panel, draw_paragraph, draw_text, icon_arrow, icon_home

PIN_MAX = 8
JOG_STEPS_MM = (0.5, 5.0, 20.0)
CONFIG_ENV = "TAFL_KIOSK_CONFIG"


class PinScreen(BaseScreen):
    name = "pin"

    def __init__(self) -> None:
        super().__init__()
        self.digits = ""
        self.guard: PinGuard | None = None
        self.message: str | None = None

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        self.digits = ""
        self.message = None
        self._guard(ctx)

    def _guard(self, ctx: UiContext) -> PinGuard:
        if self.guard is None:
            self.guard = PinGuard(ctx.config.kiosk.state_dir)
        return self.guard

    def locked(self, ctx: UiContext) -> bool:
        guard = self._guard(ctx)
        return guard.checking or guard.locked_for() > 0

    def press(self, ctx: UiContext, key: str) -> None:
        if self.locked(ctx):
            return
        if key == "del":
            self.digits = self.digits[:-1]
        elif key == "ok":
            self.check(ctx)
        elif len(self.digits) < PIN_MAX:
            self.digits += key
            self.message = None

    def check(self, ctx: UiContext) -> None:
        """Hand the PIN to the guard's thread; `update` acts on the answer."""
        if self._guard(ctx).submit(self.digits, ctx.config.kiosk.staff_pin_hash):
            self.digits = ""
            self.message = "staff.pin_checking"

    def update(self, ctx: UiContext, dt: float = 0.0) -> None:
        """Once a frame: take in a finished check."""
        result = self._guard(ctx).poll()
        if result is True:
            self.message = None
            ctx.staff_unlocked = True
            ctx.navigate("staff")
        elif result is False:
            self.message = "staff.pin_wrong"

    def wants_key(self, event: pygame.event.Event, ctx: UiContext) -> bool:
        """Digits, Backspace and Escape are the PIN's; Enter too unless a keypad button has the focus."""
        focus_shown = ctx.focus is not None and ctx.focus.visible
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            return not focus_shown
        return bool(event.unicode and event.unicode.isdigit()) or event.key in (pygame.K_BACKSPACE, pygame.K_ESCAPE)

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.KEYDOWN:
            if event.unicode and event.unicode.isdigit():
                self.press(ctx, event.unicode)
            elif event.key == pygame.K_BACKSPACE:
                self.press(ctx, "del")
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.press(ctx, "ok")
            elif event.key == pygame.K_ESCAPE:
                ctx.navigate("attract")
            return
        super().handle(event, ctx)

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        m, g, T = lay.margin, lay.gap, lay.target
        surface.fill(palette.BACKGROUND)
        back = pygame.Rect(m, m, T, T)
        draw_button(surface, back, "", lay.font_button, palette.PANEL_EDGE, icon=icon_arrow("left"))
        self.buttons.add("back", back, lambda: ctx.navigate("attract"))
        pad_w = 3 * T + 2 * g
        pad_h = 4 * T + 3 * g
        pad = pygame.Rect(lay.width - m - pad_w, (lay.height - pad_h) // 2, pad_w, pad_h)
        keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "del", "0", "ok"]
        locked_for = self._guard(ctx).locked_for()
        enabled = bool(ctx.config.kiosk.staff_pin_hash) and not self.locked(ctx)
        for k, key in enumerate(keys):
            r, c = divmod(k, 3)
            rect = pygame.Rect(pad.left + c * (T + g), pad.top + r * (T + g), T, T)
            label = {"del": "", "ok": ctx.t("staff.ok")}.get(key, key)
            colour = palette.PRIMARY if key == "ok" else palette.SECONDARY if key != "del" else palette.PANEL_EDGE
            draw_button(surface, rect, label, lay.font_title if key.isdigit() else lay.font_button, colour, enabled=enabled,
                        icon=icon_arrow("left") if key == "del" else None)
            self.buttons.add(f"key.{key}", rect, partial(self.press, ctx, key), enabled)
        info = pygame.Rect(back.right + g * 3, m, pad.left - back.right - g * 6, lay.height - 2 * m)
        draw_paragraph(surface, ctx.t("staff.pin_title"), pygame.Rect(info.left, info.top, info.width, T),
                       lay.font_heading, valign="center")
        field = pygame.Rect(info.left, info.top + T + g * 3, info.width, T)
        draw_panel(surface, field, palette.PANEL, shadow=False)
        r = max(6, T // 8)
        for k in range(len(self.digits)):
            pygame.draw.circle(surface, palette.TEXT, (field.left + r * 3 + k * r * 3, field.centery), r)
        if not ctx.config.kiosk.staff_pin_hash:
            note = ctx.t("staff.pin_off")
        elif locked_for > 0:
            note = ctx.t("staff.pin_locked", seconds=int(locked_for + 1))
        elif self.message:
            note = ctx.t(self.message)
        else:
            note = ctx.t("staff.pin_hint")
        bottom = draw_paragraph(surface, note, pygame.Rect(info.left, field.bottom + g * 3, info.width,
                                                           info.bottom - field.bottom), lay.font_body, palette.TEXT_DIM)
        found = notices.current()
        if found:
            text = "\n".join([ctx.t("staff.notices", count=len(found))] + [n.line() for n in found[-4:]])
            draw_paragraph(surface, text, pygame.Rect(info.left, bottom + g, info.width, info.bottom - bottom - g),
                           lay.font_small, palette.ORANGE, min_size=10)


class StaffScreen(BaseScreen):
    """Staff menu with pages; a page is a method ``page_<name>`` drawing into the content area."""

    name = "staff"
    PAGES = ("robot", "camera", "calibrate", "logs", "levels", "system")

    def __init__(self) -> None:
        super().__init__()
        self.page = "robot"
        self.jog_step = 1
        self.status: str | None = None
        self.test_from: int | None = None
        self.log_offset = 0
        self.confirm_exit = False
        self.geom: ScreenBoard | None = None
        self.calibration = CalibrationPage()

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        if not ctx.staff_unlocked:
            ctx.navigate("pin")
            return
        self.page = kwargs.get("page", "robot")
        self.status = None
        self.confirm_exit = False

    def run(self, ctx: UiContext, what: str, *args: Any) -> None:
        """Call a controller command; a refusal (wrong state) becomes a status line, not a crash."""
        method = getattr(ctx.controller, what, None)
        if method is None:
            self.status = ctx.t("staff.not_available")
            return
        try:
            method(*args)
            self.status = ctx.t("staff.sent", command=what)
        except (RuntimeError, ValueError) as exc:
            self.status = ctx.t("staff.refused", error=str(exc))

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            if self.buttons.press(event.pos):
                return
            if self.page == "robot" and self.geom is not None:
                sq = self.geom.square_at(event.pos)
                if sq is not None:
                    self.pick_test_square(ctx, sq)
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            ctx.navigate("attract")

    def pick_test_square(self, ctx: UiContext, sq: int) -> None:
        if self.test_from is None:
            self.test_from = sq
        else:
            from_sq, self.test_from = self.test_from, None
            self.run(ctx, "test_move", from_sq, sq)

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        m, g, T = lay.margin, lay.gap, lay.target
        surface.fill((30, 30, 36))
        tabs = list(self.PAGES) + ["leave"]
        tab_w = (lay.width - 2 * m - g * (len(tabs) - 1)) // len(tabs)
        for k, page in enumerate(tabs):
            rect = pygame.Rect(m + k * (tab_w + g), m, tab_w, T)
            if page == "leave":
                draw_button(surface, rect, ctx.t("staff.leave"), lay.font_body, palette.PANEL_EDGE)
                self.buttons.add("leave", rect, lambda: ctx.navigate("attract"))
            else:
                draw_button(surface, rect, ctx.t(f"staff.page_{page}"), lay.font_body,
                            palette.PRIMARY if page == self.page else palette.PANEL)
                self.buttons.add(f"page.{page}", rect, partial(self.set_page, page))
        content = pygame.Rect(m, m + T + g * 2, lay.width - 2 * m, lay.height - 2 * m - T - g * 2)
        status_h = lay.font_small
        view = ctx.view
        state = ctx.t(f"staff_states.{view.state}", str(view.state)) if view is not None else "?"
        activity = getattr(view, "robot_activity", None)
        activity = ctx.t(f"robot.{activity.code.value}", str(activity), **activity.args) if activity else ""
        draw_text(surface, ctx.t("staff.state", state=state) + ("   " + activity if activity else "")
                  + ("   " + self.status if self.status else ""),
                  (content.left, content.bottom), lay.font_small, palette.TEXT_DIM, anchor="bottomleft")
        area = pygame.Rect(content.left, content.top, content.width, content.height - status_h - 2)
        getattr(self, f"page_{self.page}")(surface, ctx, area)

    def set_page(self, page: str) -> None:
        self.page = page
        self.status = None
        self.test_from = None
        self.confirm_exit = False

    # ---- pages -------------------------------------------------------------------------------
    def page_robot(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        """Jog pad with home in the middle, the board commands, and (when there is room) the board
        for test moves: touch a square, then another."""
        lay = ctx.layout
        g, T = lay.gap, lay.target
        pg = 2 if lay.compact else g
        has_jog = hasattr(ctx.controller, "jog")
        step = JOG_STEPS_MM[self.jog_step]
        pad = pygame.Rect(area.left, area.top, 3 * T + 2 * pg, 3 * T + 2 * pg)
        for (c, r, dx, dy, direction) in ((1, 0, 0, step, "up"), (0, 1, -step, 0, "left"),
                                          (2, 1, step, 0, "right"), (1, 2, 0, -step, "down")):
            rect = pygame.Rect(pad.left + c * (T + pg), pad.top + r * (T + pg), T, T)
            draw_button(surface, rect, "", lay.font_button, palette.SECONDARY, enabled=has_jog, icon=icon_arrow(direction))
            self.buttons.add(f"jog.{direction}", rect, partial(self.run, ctx, "jog", dx, dy), has_jog)
        home = pygame.Rect(pad.left + T + pg, pad.top + T + pg, T, T)
        draw_button(surface, home, "", lay.font_button, palette.PRIMARY, icon=icon_home)
        self.buttons.add("home", home, lambda: self.run(ctx, "home"))
        step_btn = pygame.Rect(pad.left, pad.top, T, T)
        draw_button(surface, step_btn, f"{step:g} mm", lay.font_small, palette.PANEL_EDGE, enabled=has_jog)
        self.buttons.add("jog.step", step_btn, self.cycle_step, has_jog)
        variants = [v for v in ctx.config.kiosk.variants if (9 if v == "tablut" else 11) == ctx.config.board_spec.squares]
        actions: list[tuple[str, str, Callable[[], None]]] = [(f"setup.{v}", ctx.t("staff.setup", variant=ctx.t(f"variants.{v}.name")),
                    partial(self.run, ctx, "setup_board", v)) for v in variants]
        actions.append(("clear", ctx.t("staff.clear"), lambda: self.run(ctx, "clear_board")))
        actions.append(("end", ctx.t("staff.end_game"), lambda: self.run(ctx, "end_game")))
        # "pieces are back" = "count storage again": storage holds every piece not on the board
        actions.append(("pieces_back", ctx.t("museum.pieces_back"), lambda: self.run(ctx, "pieces_back")))
        rows = max(1, min(3, (area.height + pg) // (T + pg)))
        cols = -(-len(actions) // rows)
        col_w = int(T * 1.9)
        left = pad.right + g * 3
        for k, (key, label, action) in enumerate(actions):
            col, row = divmod(k, rows)
            rect = pygame.Rect(left + col * (col_w + g), area.top + row * (T + pg), col_w, T)
            draw_button(surface, rect, label, lay.font_small, palette.SECONDARY)
            self.buttons.add(key, rect, action)
        board_left = left + cols * (col_w + g) + g * 2
        board_side = min(area.height - lay.font_small * 3, area.right - board_left)
        self.geom = None
        if board_side < T * 3:
            return                                  # no room for a usable board on this panel
        board_rect = pygame.Rect(area.right - board_side, area.top, board_side, board_side)
        view = ctx.view
        size = view.board.size if view is not None and view.board is not None else ctx.config.board_spec.squares
        spec = ctx.config.board_spec
        self.geom = geom = ScreenBoard(board_rect, size)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        if view is not None and view.board is not None:
            draw_pieces(surface, geom, view.board.pieces(), ctx.schemes()[0])
        if self.test_from is not None:
            pygame.draw.rect(surface, palette.YELLOW, geom.square_rect(self.test_from), 4)
        hint = ctx.t("staff.test_move_hint") if hasattr(ctx.controller, "test_move") else ctx.t("staff.test_move_na")
        draw_paragraph(surface, hint, pygame.Rect(board_rect.left, board_rect.bottom + g, board_rect.width,
                                                  area.bottom - board_rect.bottom - g), lay.font_small, palette.TEXT_DIM,
                       min_size=10)

    def cycle_step(self) -> None:
        self.jog_step = (self.jog_step + 1) % len(JOG_STEPS_MM)

    def page_camera(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        snapshot = getattr(ctx.controller, "camera_snapshot", None)
        frame, reading = (None, None)
        try:
            if snapshot is not None:
                frame = snapshot()
            if hasattr(getattr(ctx.controller, "camera", None), "read_latest"):
                reading = ctx.controller.camera.read_latest()     # the newest reading; it is not consumed
        except Exception as exc:   # noqa: BLE001 - a camera fault must not take staff mode down
            self.status = str(exc)
        if frame is not None and (getattr(frame, "ndim", 0) != 3 or frame.shape[2] != 3 or frame.size == 0):
            frame = None                                          # not a BGR picture: say "no picture"
        view = ctx.view
        half = (area.width - lay.gap * 2) // 2
        pic = pygame.Rect(area.left, area.top, half, area.height)
        draw_panel(surface, pic, palette.PANEL, shadow=False)
        if frame is not None:
            image = bgr_surface(frame)
            scale = min(pic.width / image.get_width(), pic.height / image.get_height())
            size = (max(1, int(image.get_width() * scale)), max(1, int(image.get_height() * scale)))
            image = pygame.transform.smoothscale(image, size)
            surface.blit(image, image.get_rect(center=pic.center))
        else:
            draw_paragraph(surface, ctx.t("staff.camera_no_picture"), pic.inflate(-20, -20), lay.font_body,
                           palette.TEXT_DIM, align="center", valign="center")
        right = pygame.Rect(pic.right + lay.gap * 2, area.top, half, area.height)
        side = min(right.width, right.height - lay.font_body * 3)
        geom_rect = pygame.Rect(right.left, right.top + lay.font_body * 3, side, side)
        size = ctx.config.board_spec.squares
        squares = dict(reading.occupancy()) if reading is not None and hasattr(reading, "occupancy") else {}
        ok = view.camera_ok if view is not None else False
        reason = view.camera_reason if view is not None else None
        draw_paragraph(surface, ctx.t("staff.camera_ok") if ok else ctx.t("staff.camera_bad", reason=reason or "?"),
                       pygame.Rect(right.left, right.top, right.width, lay.font_body * 3), lay.font_body,
                       palette.TEXT if ok else palette.ORANGE)
        spec = ctx.config.board_spec
        geom = ScreenBoard(geom_rect, size)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        draw_pieces(surface, geom, squares, ctx.schemes()[0])

    def page_calibrate(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        """Board check, guided gantry calibration and the self-test (kiosk/ui/staff_calibration.py)."""
        self.calibration.draw(surface, ctx, area, self.buttons)

    def log_lines(self, ctx: UiContext) -> list[str]:
        """The newest lines of the kiosk's journal and log files in the state directory."""
        directory = Path(ctx.config.kiosk.state_dir)
        if not directory.is_dir():
            return [ctx.t("staff.logs_none", path=str(directory))]
        files = sorted((p for p in directory.rglob("*") if p.is_file() and p.suffix in (".log", ".jsonl", ".txt")),
                       key=lambda p: p.stat().st_mtime, reverse=True)[:2]
        lines: list[str] = []
        for path in files:
            try:
                with open(path, "rb") as handle:
                    handle.seek(0, os.SEEK_END)
                    handle.seek(max(0, handle.tell() - 16384))
                    tail = handle.read().decode("utf-8", "replace").splitlines()[-200:]
            except OSError as exc:
                tail = [f"{path}: {exc}"]
            lines.append(f"== {path}")
            lines.extend(tail)
        return lines or [ctx.t("staff.logs_none", path=str(directory))]

    def page_logs(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        T, g = lay.target, lay.gap
        lines = self.log_lines(ctx)
        text_rect = pygame.Rect(area.left, area.top, area.width - T - g * 2, area.height)
        draw_panel(surface, text_rect, (18, 18, 22), shadow=False)
        size = max(12, lay.font_small - 6)
        fnt = font(size)
        per_page = max(1, (text_rect.height - 10) // fnt.get_linesize())
        self.log_offset = max(0, min(self.log_offset, max(0, len(lines) - per_page)))
        start = max(0, len(lines) - per_page - self.log_offset)
        y = text_rect.top + 5
        for line in lines[start:start + per_page]:
            clipped = line
            while clipped and fnt.size(clipped)[0] > text_rect.width - 10:
                clipped = clipped[:-4]
            surface.blit(fnt.render(clipped, True, (200, 220, 200)), (text_rect.left + 5, y))
            y += fnt.get_linesize()
        up = pygame.Rect(text_rect.right + g * 2, area.top, T, T)
        down = pygame.Rect(up.left, area.bottom - T, T, T)
        draw_button(surface, up, "", lay.font_button, palette.SECONDARY, icon=icon_arrow("up"))
        draw_button(surface, down, "", lay.font_button, palette.SECONDARY, icon=icon_arrow("down"))
        self.buttons.add("log.up", up, lambda: setattr(self, "log_offset", self.log_offset + per_page // 2))
        self.buttons.add("log.down", down, lambda: setattr(self, "log_offset", max(0, self.log_offset - per_page // 2)))

    def page_levels(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        """Thinking time and depth per level; every change is applied at once and saved."""
        lay = ctx.layout
        T, g = lay.target, lay.gap
        pg = 2 if lay.compact else g
        levels = ctx.config.engine.levels
        y = area.top
        label_w = area.width - 4 * T - 4 * g
        for name, level in levels.items():
            if y + T > area.bottom:
                break
            text = ctx.t("staff.level_line", level=ctx.t(f"levels.{name}.name", default=name),
                         time=f"{level.time_s:g}", depth=level.max_depth)
            draw_paragraph(surface, text, pygame.Rect(area.left, y, label_w, T), lay.font_body, valign="center",
                           min_size=12)
            x = area.left + label_w + g
            for key, change in (("time-", lambda lv=level: setattr(lv, "time_s", max(0.1, round(lv.time_s - 0.5, 2)))),
                                ("time+", lambda lv=level: setattr(lv, "time_s", round(lv.time_s + 0.5, 2))),
                                ("depth-", lambda lv=level: setattr(lv, "max_depth", max(1, lv.max_depth - 1))),
                                ("depth+", lambda lv=level: setattr(lv, "max_depth", lv.max_depth + 1))):
                rect = pygame.Rect(x, y, T, T)
                label = ctx.t(f"staff.level_{key.replace('-', '_less').replace('+', '_more')}")
                draw_button(surface, rect, label, lay.font_small, palette.SECONDARY)
                self.buttons.add(f"level.{name}.{key}", rect, partial(self.change_level, ctx, change))
                x += T + g
            y += T + pg

    def change_level(self, ctx: UiContext, change) -> None:
        change()
        self.save_config(ctx)

    def save_config(self, ctx: UiContext) -> None:
        path = os.environ.get(CONFIG_ENV, DEFAULT_CONFIG_PATH)
        try:
            from calibration.config_file import save_config

            save_config(ctx.config, path)
            self.status = ctx.t("staff.saved", path=path)
        except (OSError, ImportError, ValueError) as exc:
            self.status = ctx.t("staff.save_failed", error=str(exc))

    def page_system(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        T, g = lay.target, lay.gap
        info = [ctx.t("staff.info_board", board=ctx.config.board, squares=ctx.config.board_spec.squares),
                ctx.t("staff.info_state_dir", path=ctx.config.kiosk.state_dir),
                ctx.t("staff.info_screen", width=lay.width, height=lay.height, diagonal=f"{lay.diagonal_in:.1f}",
                      target=lay.target)]
        y = area.top
        for line in info:
            y = draw_paragraph(surface, line, pygame.Rect(area.left, y, area.width, lay.font_body * 2), lay.font_small) + g
        y = self.draw_selfplay_switch(surface, ctx, pygame.Rect(area.left, y, area.width, T)) + g
        rect = pygame.Rect(area.left, area.bottom - T, min(area.width, T * 3), T)
        if self.confirm_exit:
            draw_button(surface, rect, ctx.t("staff.exit_confirm"), lay.font_body, palette.DANGER)
            self.buttons.add("exit.confirm", rect, lambda: _exit_to_system(ctx))
            no = pygame.Rect(rect.right + g * 2, rect.top, min(area.width - rect.width - g * 2, T * 2), T)
            draw_button(surface, no, ctx.t("game.confirm_no"), lay.font_body, palette.PANEL_EDGE)
            self.buttons.add("exit.cancel", no, lambda: setattr(self, "confirm_exit", False))
        else:
            draw_button(surface, rect, ctx.t("staff.exit"), lay.font_body, palette.DANGER)
            self.buttons.add("exit", rect, lambda: setattr(self, "confirm_exit", True))


    def draw_selfplay_switch(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect) -> int:
        """Staff's switch for the robot's self-play in attract mode, and the quiet hours (kiosk/exhibit.py)."""
        lay = ctx.layout
        view = ctx.view
        on = bool(view.exhibit.selfplay_on) if view is not None else bool(ctx.config.exhibit.selfplay)
        button = pygame.Rect(rect.left, rect.top, min(rect.width, lay.target * 5), lay.target)
        draw_button(surface, button, ctx.t("staff.selfplay.on" if on else "staff.selfplay.off"), lay.font_small,
                    palette.PRIMARY if on else palette.PANEL_EDGE, selected=on)
        self.buttons.add("selfplay", button, lambda: ctx.controller.set_selfplay(not on))
        hours = ", ".join(ctx.config.exhibit.quiet_hours) or ctx.t("staff.selfplay.no_quiet")
        return draw_paragraph(surface, ctx.t("staff.selfplay.quiet", hours=hours),
                              pygame.Rect(rect.left, button.bottom + lay.gap, rect.width, lay.font_body * 2),
                              lay.font_small, palette.TEXT_DIM)


def bgr_surface(frame: Any) -> pygame.Surface:
    """A pygame surface from an OpenCV BGR array (height x width x 3, uint8)."""
    rgb = frame[:, :, ::-1].astype("uint8", copy=False)
    return pygame.image.frombuffer(rgb.tobytes(), (frame.shape[1], frame.shape[0]), "RGB")


def _exit_to_system(ctx: UiContext) -> None:
    """Staff's way out: the service sees STAFF_EXIT_STATUS and does not restart the kiosk."""
    ctx.exit_status = lockdown.STAFF_EXIT_STATUS
    ctx.quit_requested = True
