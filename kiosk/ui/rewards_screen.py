"""The reward ceremony: what the visitor unlocked, a choice of the new look, and a code to keep.

Easy -> piece colours (pick a colour-blind-safe scheme), Medium -> shaded
3D pieces, Hard -> a crown on the visitor's avatar. The code is signed
(kiosk/rewards.py) and shown both as text and as a QR code.
"""
from __future__ import annotations

import math
from typing import Any

import pygame

from kiosk.rewards import UNLOCK_ORDER, make_code, qr_text
from kiosk.ui import palette, qr
from kiosk.ui.avatar import draw_visitor
from kiosk.ui.board_view import draw_piece
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.widgets import draw_button, draw_panel, draw_paragraph, draw_text, fit_font


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
        self.buttons.clear()
        self.refresh_code(ctx)
        lay = ctx.layout
        m, g, T = lay.margin, lay.gap, lay.target
        surface.fill(palette.BACKGROUND)
        t = ctx.now - self.entered_at
        # Ceremony: slowly turning rays behind the emblem.
        left = pygame.Rect(m, m, int(lay.width * 0.5) - m, lay.height - 2 * m - T - g * 2)
        centre = left.center
        ray_len = max(left.width, left.height)
        for k in range(16):
            angle = t * 0.4 + k * math.pi / 8
            half = math.pi / 32
            pts = [centre, (centre[0] + ray_len * math.cos(angle - half), centre[1] + ray_len * math.sin(angle - half)),
                   (centre[0] + ray_len * math.cos(angle + half), centre[1] + ray_len * math.sin(angle + half))]
            pygame.draw.polygon(surface, palette.BACKGROUND_LIGHT if k % 2 else (52, 62, 60), pts)
        scale = min(1.0, 0.3 + t * 1.5)
        emblem = int(min(left.width, left.height) * 0.62 * scale)
        self.draw_emblem(surface, ctx, pygame.Rect(centre[0] - emblem // 2, centre[1] - emblem // 2, emblem, emblem), t)
        title_key = f"rewards.title_{self.new}" if self.new else "rewards.title"
        title = ctx.t(title_key)
        fnt = fit_font(title, left.width, lay.font_title)
        img = fnt.render(title, True, palette.YELLOW)
        surface.blit(img, img.get_rect(midtop=(left.centerx, left.top)))
        # Right: the look the visitor can choose now, and the code to keep.
        right = pygame.Rect(left.right + m * 2, m, lay.width - left.right - m * 3, lay.height - 2 * m)
        ctx.draw_flag_button(surface, self.buttons)
        y = right.top
        head_w = lay.flag_rect.left - right.left - g
        draw_paragraph(surface, ctx.t("rewards.your_unlocks"), pygame.Rect(right.left, y, head_w, T),
                       lay.font_heading, min_size=lay.font_body, valign="center")
        y += T + g
        y = self.draw_choices(surface, ctx, pygame.Rect(right.left, y, right.width, T)) + g * 2
        code_box = pygame.Rect(right.left, y, right.width, right.bottom - T - g * 2 - y)
        draw_panel(surface, code_box, palette.PANEL)
        inner = code_box.inflate(-g * 4, -g * 4)
        if self.code and self.matrix:
            qr_side = min(inner.height - lay.font_small * 2, inner.width // 2)
            qr_rect = draw_qr(surface, pygame.Rect(inner.left, inner.top, qr_side, qr_side), self.matrix)
            text_rect = pygame.Rect(qr_rect.right + g * 2, inner.top, inner.right - qr_rect.right - g * 2, inner.height)
            draw_paragraph(surface, ctx.t("rewards.code_hint"), pygame.Rect(text_rect.left, text_rect.top, text_rect.width,
                                                                            text_rect.height // 2),
                           lay.font_small, palette.TEXT_DIM, min_size=11)
            parts = self.code.split("-")
            lines = ["-".join(parts[:2]) + "-", "-".join(parts[2:])]
            code_font = fit_font(lines[0], text_rect.width, lay.font_heading)
            cy = text_rect.top + text_rect.height // 2
            for line in lines:
                surface.blit(code_font.render(line, True, palette.YELLOW), (text_rect.left, cy))
                cy += code_font.get_linesize()
        else:
            draw_paragraph(surface, ctx.t("rewards.no_code"), inner, lay.font_body, palette.TEXT_DIM, align="center",
                           valign="center")
        w = (right.width - g * 2) // 2
        again = pygame.Rect(right.left, right.bottom - T, w, T)
        done = pygame.Rect(again.right + g * 2, again.top, w, T)
        draw_button(surface, again, ctx.t("result.play_again"), lay.font_button, palette.PRIMARY)
        draw_button(surface, done, ctx.t("result.done"), lay.font_button, palette.PANEL_EDGE)
        self.buttons.add("again", again, lambda: self.leave(ctx, "start"))
        self.buttons.add("done", done, lambda: self.leave(ctx, "attract"))

    def leave(self, ctx: UiContext, where: str) -> None:
        view = ctx.view
        if view is not None and view.state == "game_over":
            ctx.controller.clear_board()
        if where == "attract":
            ctx.rewards.reset()
        ctx.navigate(where)

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

    def draw_choices(self, surface: pygame.Surface, ctx: UiContext, row: pygame.Rect) -> int:
        """Swatches for the colour scheme (when unlocked), a 3D toggle (when unlocked), and badges."""
        lay = ctx.layout
        g = lay.gap
        unlocks = ctx.rewards.unlocks
        x = row.left
        y = row.top
        if unlocks.colours:
            for k, scheme in enumerate(ctx.schemes()):
                rect = pygame.Rect(x, y, lay.target, lay.target)
                if rect.right > row.right:
                    break
                chosen = ctx.rewards.colour_scheme == k
                pygame.draw.rect(surface, palette.PANEL, rect, border_radius=12)
                if chosen:
                    pygame.draw.rect(surface, palette.YELLOW, rect.inflate(6, 6), 5, border_radius=14)
                draw_piece(surface, (rect.centerx - rect.width * 0.18, rect.centery), rect.width * 0.5, "t", scheme)
                draw_piece(surface, (rect.centerx + rect.width * 0.18, rect.centery), rect.width * 0.5, "T", scheme)
                self.buttons.add(f"scheme.{k}", rect, lambda k=k: setattr(ctx.rewards, "colour_scheme", k))
                x += lay.target + g
            y += lay.target + g
            x = row.left
        if unlocks.shaded:
            rect = pygame.Rect(x, y, min(row.width, lay.target * 3), lay.target)
            label = ctx.t("rewards.shaded_on" if ctx.rewards.use_shaded else "rewards.shaded_off")
            draw_button(surface, rect, label, lay.font_body, palette.SECONDARY, selected=ctx.rewards.use_shaded)
            self.buttons.add("shaded", rect, lambda: setattr(ctx.rewards, "use_shaded", not ctx.rewards.use_shaded))
            x = rect.right + g
        names = [name for name in UNLOCK_ORDER if unlocks.has(name)]
        if names and not unlocks.shaded:
            draw_text(surface, ", ".join(ctx.t(f"rewards.name_{n}") for n in names), (x, y + lay.target // 2),
                      lay.font_small, palette.TEXT_DIM, anchor="midleft")
        return y + (lay.target if unlocks.shaded else 0)
