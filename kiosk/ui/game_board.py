"""What the game screen draws on and around the board: the position with the visitor's
selection, the York match's cards by the edges, the banner of the robot's set-up.

WHY apart from kiosk/ui/game.py: these drawings keep no state of the screen (they are given
what they show), so the screen keeps only touch, keyboard and the panel's layout.
"""
from __future__ import annotations

from typing import Any, Callable

import pygame

from kiosk.ui import palette, teach_panel
from kiosk.ui.board_view import (ScreenBoard, draw_capture_mark, draw_cursor, draw_dot, draw_move_arrow,
                                 draw_piece, draw_pieces, outline_square)
from kiosk.ui.context import UiContext
from kiosk.ui.widgets import draw_panel, draw_progress, draw_text



def card_values(match: Any) -> dict[str, str | None]:
    """The York match card shown at each edge: the last game's cards, else the visitor's own face-up ones."""
    own = match.cards.visible_cards("visitor") if not match.cards.over and match.cards.cards_placed else {}
    return {edge: match.last_cards.get(edge) or own.get(edge) for edge in ("north", "east", "south", "west")}


def draw_position(surface: pygame.Surface, ctx: UiContext, geom: ScreenBoard, selected: int | None,
                  cursor: int | None, targets_of: Callable[[int], list[int]]) -> None:
    """The pieces with the last move, its captures and the teaching marks; the selected piece
    lifted with the dots of its moves (`targets_of`), the keyboard's cursor."""
    view = ctx.view
    board = view.board
    pieces = board.pieces()
    if view.last_move is not None:
        outline_square(surface, geom, view.last_move.from_sq, palette.LAST_MOVE, 0.07, fill_alpha=60)
        outline_square(surface, geom, view.last_move.to_sq, palette.LAST_MOVE, 0.09, fill_alpha=90)
    for sq in view.last_captures or ():
        if sq not in pieces:
            draw_capture_mark(surface, geom, sq)
    if view.last_move is not None:
        draw_move_arrow(surface, geom, view.last_move.from_sq, view.last_move.to_sq, palette.LAST_MOVE)
    teach_panel.draw_marks(surface, ctx, geom)          # teaching: the reason's or the hint's squares
    draw_pieces(surface, geom, pieces, ctx.piece_scheme(), ctx.shaded(), skip={selected} if selected is not None else None)
    if selected is not None and selected in pieces:
        outline_square(surface, geom, selected, palette.BLACK, 0.16)
        outline_square(surface, geom, selected, palette.SELECTED, 0.1, fill_alpha=110)
        lift = geom.centre(selected)
        draw_piece(surface, (lift[0], lift[1] - geom.square * 0.06), geom.square * 1.08, pieces[selected],
                   ctx.piece_scheme(), ctx.shaded())
        dot = palette.dot_colour(ctx.piece_scheme())
        for to_sq in targets_of(selected):
            draw_dot(surface, geom, to_sq, dot)
    if cursor is not None and ctx.world is not None:
        draw_cursor(surface, geom, cursor, ctx.now)

def draw_cards(surface: pygame.Surface, ctx: UiContext, geom: ScreenBoard) -> None:
    """York card match: a card by the middle of each edge; face down to a defending visitor
    until the game ends, face up to an attacking one (they are the visitor's own cards)."""
    match = ctx.match
    values = card_values(match)
    inner, frame = geom.inner, geom.rect
    pad = inner.left - frame.left
    w, h = max(12, int(pad * 0.75)), max(16, int(pad * 0.95))
    spots = {"south": (inner.centerx, (inner.bottom + frame.bottom) // 2),
             "north": (inner.centerx, (inner.top + frame.top) // 2),
             "west": ((inner.left + frame.left) // 2, inner.centery),
             "east": ((inner.right + frame.right) // 2, inner.centery)}
    for edge, centre in spots.items():
        card = pygame.Rect(0, 0, w, h)
        card.center = centre
        value = values.get(edge)
        if value is None:
            pygame.draw.rect(surface, palette.BLUE, card, border_radius=3)
            pygame.draw.rect(surface, palette.WHITE, card.inflate(-4, -4), 1, border_radius=2)
        else:
            scored = edge in match.last_exit_edges
            pygame.draw.rect(surface, palette.YELLOW if scored else palette.WHITE, card, border_radius=3)
            draw_text(surface, value, card.center, int(h * 0.8), palette.TEXT_DARK, anchor="center")
        pygame.draw.rect(surface, palette.TEXT_DARK, card, 1, border_radius=3)

def draw_board_banner(surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, text: str,
                      progress: float) -> None:
    lay = ctx.layout
    banner = pygame.Rect(0, 0, int(rect.width * 0.8), lay.font_heading * 2 + lay.gap * 4)
    banner.center = rect.center
    draw_panel(surface, banner, palette.PANEL)
    draw_text(surface, text, (banner.centerx, banner.top + lay.gap * 2), lay.font_heading, anchor="midtop")
    bar = pygame.Rect(banner.left + lay.gap * 3, banner.bottom - lay.gap * 2 - lay.mm(3), banner.width - lay.gap * 6, lay.mm(3))
    draw_progress(surface, bar, progress)
