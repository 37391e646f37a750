"""The reward ceremony: what the visitor unlocked, a choice of the new look, and a code to keep.

Easy -> piece colours (pick a colour-blind-safe scheme), Medium -> shaded
3D pieces, Hard -> a crown on the visitor's avatar. The code is signed
(kiosk/rewards.py) and shown both as text and as a QR code: a small one
(version 2) that the kiosk's overhead camera reads back at arm's length on a
later visit. The whole game with its rewards is the larger record QR code on
the result box (`RecordQr`, kiosk/record.py), made for the visitor's phone.
"""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import pygame

from kiosk.rewards import make_code, qr_text
from kiosk.ui import palette, qr
from kiosk.ui.avatar import draw_visitor
from kiosk.ui.board_view import draw_piece
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.widgets import Buttons, draw_button, draw_panel, draw_paragraph, fit_font


def draw_qr(surface: pygame.Surface, rect: pygame.Rect, matrix: list[list[bool]]) -> pygame.Rect:
    """The QR matrix with its 4-module quiet zone, as large as fits in ``rect``; returns where."""
    n = len(matrix) + 8
    module = max(1, min(rect.width, rect.height) // n)
    side = module * n
    box = pygame.Rect(0, 0, side, side)
    box.center = rect.center
    pygame.draw.rect(surface, palette.WHITE, box)
    for r, row in enumerate(matrix):
        for c, dark in enumerate(row):
            if dark:
                pygame.draw.rect(surface, palette.BLACK, (box.left + (c + 4) * module, box.top + (r + 4) * module,
                                                          module, module))
    return box


def draw_large_qr(surface: pygame.Surface, lay: Any, matrix: list[list[bool]], buttons: Buttons,
                  on_touch: Callable[[], None]) -> None:
    """The record's code over the whole height of the screen (a touch closes it): the small
    screens' result box has no room for modules a phone reads at arm's length."""
    veil = pygame.Surface((lay.width, lay.height), pygame.SRCALPHA)
    veil.fill((*palette.BACKGROUND, 235))
    surface.blit(veil, (0, 0))
    side = lay.height - 2 * lay.margin
    draw_qr(surface, pygame.Rect(lay.width // 2 - side // 2, lay.margin, side, side), matrix)
    buttons.begin_modal()
    buttons.add("take_home", lay.rect, on_touch)


def draw_take_home(surface: pygame.Surface, ctx: UiContext, matrix: list[list[bool]], area: pygame.Rect,
                   buttons: Buttons, on_touch: Callable[[], None]) -> int:
    """The record's QR code at the right of ``area``, its caption under it; returns the width taken."""
    lay = ctx.layout
    caption_h = lay.font_small + lay.gap
    n = len(matrix) + 8                              # with the quiet zone
    side = min(area.height - caption_h, int(area.width * 0.6)) // n * n     # whole pixels a module
    qr_rect = draw_qr(surface, pygame.Rect(area.right - side, area.top, side, side), matrix)
    buttons.add("take_home", qr_rect, on_touch)        # a touch shows it larger
    draw_paragraph(surface, ctx.t("rewards.take_home"),
                   pygame.Rect(qr_rect.left, qr_rect.bottom + lay.gap // 2, qr_rect.width, caption_h),
                   lay.font_small, palette.TEXT_DIM, align="center", min_size=10)
    return area.right - qr_rect.left


class RecordQr:
    """The QR code of the take-home game record (kiosk/record.py) with the visitor's unlocks.

    The controller signs the record of the game that just ended
    (`take_home_url`); the matrix is remade only when that URL changes (a win
    adds an unlock, a new game ends).
    """

    def __init__(self) -> None:
        self.url: str | None = None
        self.matrix: qr.Matrix | None = None

    def matrix_for(self, ctx: UiContext) -> qr.Matrix | None:
        view = ctx.view
        url = ctx.controller.take_home_url(ctx.rewards.unlocks) if view is not None and view.outcome else None
        if url != self.url:
            self.url, self.matrix = url, qr.encode(url) if url else None
        return self.matrix


class RewardsScreen(BaseScreen):
    name = "rewards"

    def __init__(self) -> None:
        super().__init__()
        self.new: str | None = None
        self.code: str | None = None
        self.code_flags = -1
        self.matrix: list[list[bool]] | None = None

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        self.new = kwargs.get("new")
        self.refresh_code(ctx)

    def refresh_code(self, ctx: UiContext) -> None:
        flags = ctx.rewards.unlocks.flags()
        if flags == self.code_flags:
            return
        self.code_flags = flags
        self.code = self.matrix = None
        secret = ctx.config.kiosk.reward_secret
        if flags and secret:
            self.code = make_code(ctx.rewards.unlocks, secret)
            self.matrix = qr.encode(qr_text(self.code))

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        """Title; emblem (left) and the QR code with the code in letters (right); the look to
        choose; Play again / Done."""
        self.buttons.clear()
        self.refresh_code(ctx)
        lay = ctx.layout
        m, g, T = lay.margin, lay.gap, lay.target
        surface.fill(palette.BACKGROUND)
        t = ctx.now - self.entered_at
        ctx.draw_flag_button(surface, self.buttons)
        title_key = f"rewards.title_{self.new}" if self.new else "rewards.title"
        title = ctx.t(title_key)
        buttons_row = pygame.Rect(m, lay.height - m - T, lay.width - 2 * m, T)
        has_choices = ctx.rewards.unlocks.colours or ctx.rewards.unlocks.shaded
        if lay.compact:
            # 7": the code panel on the right under the flag, the choices stacked on the left.
            right = pygame.Rect(lay.width - m - int(lay.width * 0.42), lay.flag_rect.bottom + g,
                                int(lay.width * 0.42), buttons_row.top - g * 2 - lay.flag_rect.bottom - g)
            title_rect = pygame.Rect(m, m, right.left - 2 * m, lay.font_title * 2)
            y = draw_paragraph(surface, title, title_rect, lay.font_title, palette.YELLOW, min_size=lay.font_body) + g
            rows = []
            if ctx.rewards.unlocks.colours:
                rows.append(("colours", pygame.Rect(m, y, right.left - 2 * m, T)))
                y += T + g * 2
            if ctx.rewards.unlocks.shaded:
                rows.append(("shaded", pygame.Rect(m, y, right.left - 2 * m, T)))
                y += T + g * 2
            left = pygame.Rect(m, y, right.left - 2 * m, buttons_row.top - g * 2 - y)
        else:
            title_rect = pygame.Rect(m, m, lay.flag_rect.left - 2 * m, lay.font_title + g)
            fnt = fit_font(title, title_rect.width, lay.font_title)
            image = fnt.render(title, True, palette.YELLOW)
            surface.blit(image, image.get_rect(midleft=(title_rect.left, title_rect.centery)))
            choices_row = pygame.Rect(m, buttons_row.top - g * 3 - T, lay.width - 2 * m, T)
            rows = [("both", choices_row)] if has_choices else []
            middle_bottom = (choices_row.top if has_choices else buttons_row.top) - g * 3
            top = max(title_rect.bottom, lay.flag_rect.bottom) + g * 2
            middle = pygame.Rect(m, top, lay.width - 2 * m, middle_bottom - top)
            left = pygame.Rect(middle.left, middle.top, middle.width // 2 - g, middle.height)
            right = pygame.Rect(left.right + g * 2, middle.top, middle.right - left.right - g * 2, middle.height)
        # Ceremony: slowly turning rays behind the emblem, the emblem growing in.
        centre = left.center
        ray_len = max(left.width, left.height) // 2 + 20
        clip = surface.get_clip()
        surface.set_clip(left)
        for k in range(16):
            angle = t * 0.4 + k * math.pi / 8
            half = math.pi / 32
            pts = [centre, (centre[0] + ray_len * math.cos(angle - half), centre[1] + ray_len * math.sin(angle - half)),
                   (centre[0] + ray_len * math.cos(angle + half), centre[1] + ray_len * math.sin(angle + half))]
            pygame.draw.polygon(surface, palette.BACKGROUND_LIGHT if k % 2 else (52, 62, 60), pts)
        surface.set_clip(clip)
        scale = min(1.0, 0.3 + t * 1.5)
        emblem = int(min(left.width, left.height) * 0.8 * scale)
        if emblem > 20:
            self.draw_emblem(surface, ctx, pygame.Rect(centre[0] - emblem // 2, centre[1] - emblem // 2, emblem, emblem),
                             t)
        # The code to keep.
        draw_panel(surface, right, palette.PANEL)
        inner = right.inflate(-g * 4, -g * 4)
        if self.code and self.matrix:
            code_h = lay.font_heading + g
            hint_h = lay.font_small * 2 + g
            qr_side = min(inner.height - code_h - hint_h, inner.width, 33 * 12)
            qr_rect = draw_qr(surface, pygame.Rect(inner.centerx - qr_side // 2, inner.top, qr_side, qr_side),
                              self.matrix)
            code_font = fit_font(self.code, inner.width, lay.font_heading)
            img = code_font.render(self.code, True, palette.YELLOW)
            surface.blit(img, img.get_rect(midtop=(inner.centerx, qr_rect.bottom + g)))
            draw_paragraph(surface, ctx.t("rewards.code_hint"),
                           pygame.Rect(inner.left, inner.bottom - hint_h, inner.width, hint_h),
                           lay.font_small, palette.TEXT_DIM, align="center", min_size=11)
        else:
            draw_paragraph(surface, ctx.t("rewards.no_code"), inner, lay.font_body, palette.TEXT_DIM, align="center",
                           valign="center")
        for kind, row in rows:
            self.draw_choices(surface, ctx, row, kind)
        w = (buttons_row.width - g * 2) // 2
        again = pygame.Rect(buttons_row.left, buttons_row.top, w, T)
        done = pygame.Rect(again.right + g * 2, again.top, buttons_row.right - again.right - g * 2, T)
        draw_button(surface, again, ctx.t("result.play_again"), lay.font_button, palette.PRIMARY)
        draw_button(surface, done, ctx.t("result.done"), lay.font_button, palette.PANEL_EDGE)
        self.buttons.add("again", again, lambda: self.leave(ctx, "start", repeat=ctx.match is None))
        self.buttons.add("done", done, lambda: self.leave(ctx, "attract"))

    def leave(self, ctx: UiContext, where: str, **kwargs: Any) -> None:
        ctx.leave_result(where, **kwargs)

    def draw_emblem(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, t: float) -> None:
        what = self.new or (ctx.rewards.unlocks.names()[-1] if ctx.rewards.unlocks.names() else "colours")
        if what == "crown":
            draw_visitor(surface, rect, crown=True)
        elif what == "shaded":
            draw_piece(surface, (rect.centerx - rect.width * 0.2, rect.centery), rect.width * 0.45, "t",
                       ctx.piece_scheme(), shaded=True)
            draw_piece(surface, (rect.centerx + rect.width * 0.2, rect.centery), rect.width * 0.5, "K",
                       ctx.piece_scheme(), shaded=True)
        else:
            schemes = ctx.schemes()[1:]
            for k, scheme in enumerate(schemes):
                angle = t * 0.8 + k * 2 * math.pi / len(schemes)
                cx = rect.centerx + rect.width * 0.28 * math.cos(angle)
                cy = rect.centery + rect.height * 0.28 * math.sin(angle)
                draw_piece(surface, (cx, cy), rect.width * 0.3, "t", scheme, ctx.shaded())
                draw_piece(surface, (cx + rect.width * 0.08, cy + rect.width * 0.05), rect.width * 0.22, "T", scheme,
                           ctx.shaded())

    def draw_choices(self, surface: pygame.Surface, ctx: UiContext, row: pygame.Rect, kind: str = "both") -> None:
        """A row of colour schemes (when unlocked) and/or the 3D switch (when unlocked)."""
        lay = ctx.layout
        g = lay.gap if not lay.compact else 2
        unlocks = ctx.rewards.unlocks
        x = row.left
        if unlocks.colours and kind in ("both", "colours"):
            for k, scheme in enumerate(ctx.schemes()):
                rect = pygame.Rect(x, row.top, lay.target, lay.target)
                chosen = ctx.rewards.colour_scheme == k
                pygame.draw.rect(surface, palette.PANEL, rect, border_radius=12)
                if chosen:
                    pygame.draw.rect(surface, palette.BLACK, rect.inflate(12, 12), 4, border_radius=16)
                    pygame.draw.rect(surface, palette.SELECTED, rect.inflate(6, 6), 5, border_radius=14)
                draw_piece(surface, (rect.centerx - rect.width * 0.18, rect.centery), rect.width * 0.5, "t", scheme,
                           ctx.shaded())
                draw_piece(surface, (rect.centerx + rect.width * 0.18, rect.centery), rect.width * 0.5, "T", scheme,
                           ctx.shaded())
                self.buttons.add(f"scheme.{k}", rect, partial(setattr, ctx.rewards, "colour_scheme", k))
                x += lay.target + g * 2
        if unlocks.shaded and kind in ("both", "shaded"):
            rect = pygame.Rect(x + g, row.top, max(lay.target, row.right - x - g), lay.target)
            label = ctx.t("rewards.shaded_on" if ctx.rewards.use_shaded else "rewards.shaded_off")
            draw_button(surface, rect, label, lay.font_body, palette.SECONDARY if ctx.rewards.use_shaded
                        else palette.PANEL_EDGE)
            self.buttons.add("shaded", rect, lambda: setattr(ctx.rewards, "use_shaded", not ctx.rewards.use_shaded))
