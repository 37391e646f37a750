"""The hand-over screen: a visitor stopped the robot's self-play (kiosk/exhibit.py).

Two big choices beside the board as it stands: "Take over: play the <side
to move>" (from this very position, against the robot) and "Start fresh"
(the robot resets the board straight to the start position while the
visitor chooses a game). Until the robot has put its held piece down and
the camera has confirmed the position, "take over" says what it waits for.
"""
from __future__ import annotations

from typing import Any

import pygame

from kiosk.exhibit import Choice
from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_board, draw_pieces, outline_square
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.widgets import (
    draw_button,
    draw_panel,
    draw_paragraph,
    fit_font,
    icon_play,
)
from kiosk.states import State


def side_name(ctx: UiContext, variant: str | None, side: str) -> str:
    return ctx.t(f"variants.{variant}.{side}", f"sides.{side}.name")


class HandoverScreen(BaseScreen):
    name = "handover"

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.buttons.press(event.pos)

    def update(self, ctx: UiContext, dt: float) -> None:
        view = ctx.view
        if view is None or view.state == State.HANDOVER:
            return
        if view.exhibit.mode == "visitor" and view.outcome is None:
            ctx.navigate("game")             # taken over: the visitor's game goes on
        elif view.outcome is not None:
            ctx.navigate("start")            # start fresh: the robot resets while they choose

    def take_over(self, ctx: UiContext) -> None:
        ctx.controller.handover(Choice.TAKE_OVER)

    def start_fresh(self, ctx: UiContext) -> None:
        ctx.controller.handover(Choice.START_FRESH)
        ctx.navigate("start")

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        view = ctx.view
        surface.fill(palette.BACKGROUND)
        m, g = lay.margin, lay.gap
        side = min(lay.height - 2 * m, int(lay.width * 0.5))
        board_rect = pygame.Rect(m, (lay.height - side) // 2, side, side)
        board = view.board if view is not None else None
        variant = view.variant if view is not None else None
        spec = ctx.board_spec_for(variant)
        geom = ScreenBoard(board_rect, board.size if board is not None else spec.squares, coordinates=False)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        if board is not None:
            draw_pieces(surface, geom, board.pieces(), ctx.piece_scheme(), ctx.shaded())
            if view.last_move is not None:
                outline_square(surface, geom, view.last_move.to_sq, palette.LAST_MOVE, 0.08, fill_alpha=80)
        right = pygame.Rect(board_rect.right + m * 2, m, lay.width - board_rect.right - m * 3, lay.height - 2 * m)
        title = ctx.t("exhibit.handover_title")
        fnt = fit_font(title, right.width, lay.font_title)
        surface.blit(fnt.render(title, True, palette.ORANGE), (right.left, right.top))
        y = right.top + fnt.get_linesize() + g
        y = draw_paragraph(surface, ctx.t("exhibit.handover_text"), pygame.Rect(right.left, y, right.width,
                           lay.font_body * 4), lay.font_body, palette.TEXT, min_size=lay.font_small) + g * 2
        ex = view.exhibit if view is not None else None
        to_move = getattr(getattr(ex, "handover_side", None), "value", None) or \
            (getattr(board.turn, "value", None) if board is not None else None) or "attackers"
        ready = bool(ex and ex.handover_ready)
        waiting = ex is not None and ex.handover_choice == Choice.TAKE_OVER and not ready
        h = int(lay.target * 1.3)
        fresh = pygame.Rect(right.left, right.bottom - h, right.width, h)
        take = pygame.Rect(right.left, fresh.top - g * 3 - h, right.width, h)
        if waiting or not ready:
            note = pygame.Rect(right.left, y, right.width, max(lay.font_body * 2, take.top - y - g * 2))
            draw_panel(surface, note, palette.PANEL, edge=palette.YELLOW)
            draw_paragraph(surface, ctx.t("exhibit.finishing" if not ready else "exhibit.checking"),
                           note.inflate(-g * 2, -g), lay.font_body, palette.TEXT, align="center", valign="center",
                           min_size=lay.font_small)
        label = ctx.t("exhibit.take_over", side=side_name(ctx, variant, to_move))
        draw_button(surface, take, label, lay.font_button, palette.PRIMARY, icon=icon_play, enabled=not waiting)
        self.buttons.add("take_over", take, lambda: self.take_over(ctx), not waiting)
        draw_button(surface, fresh, ctx.t("exhibit.start_fresh"), lay.font_button, palette.SECONDARY)
        self.buttons.add("start_fresh", fresh, lambda: self.start_fresh(ctx))

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
