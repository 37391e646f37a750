"""The teaching on the game screen: the robot's reason after its move, the Hint button and the hint.

The controller's view carries a `TeachingView` (kiosk/teaching.py); this
module draws it, so the game screen needs only three calls: the marks on the
board, the sentence box in the side panel, and the Hint button beside the
language flag. The robot's reason is marked in orange, the hint in green
(with an arrow along the suggested move), both with a dark edge so colour is
not the only cue, and the sentence says the squares in words.
"""
from __future__ import annotations

from typing import Any

import pygame

from kiosk.teaching import SENTENCE_REASONS, Hint, TeachingView, highlighted_squares, reasons_text
from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_move_arrow, mark_squares, square_name
from kiosk.ui.widgets import Buttons, draw_button, draw_panel, draw_paragraph, draw_text
from kiosk.states import State

REASON_COLOUR = palette.ORANGE
HINT_COLOUR = palette.BLUISH_GREEN


def _side(side: Any) -> str | None:
    return None if side is None else str(getattr(side, "value", side))


def teaching_of(view: Any) -> TeachingView | None:
    return getattr(view, "teaching", None) if view is not None else None


def visitor_to_move(view: Any) -> bool:
    return (view is not None and view.board is not None and view.outcome is None and view.state == State.VISITOR_TURN
            and _side(view.board.turn) == _side(view.visitor_side))


def current_hint(view: Any) -> Hint | None:
    """The hint for the position on the screen, if one is showing."""
    teach = teaching_of(view)
    if teach is None or teach.hint is None or view.board is None or teach.hint.ply != view.board.ply:
        return None
    return teach.hint if visitor_to_move(view) else None


def robot_reasons(view: Any) -> tuple:
    """The reasons of the robot's move, while that move is the last one played and the game goes on
    (at the end the result box says why the game ended)."""
    teach = teaching_of(view)
    if teach is None or view.board is None or teach.robot_ply != view.board.ply or view.outcome is not None:
        return ()
    return teach.robot_reasons


def said(ctx: Any) -> int:
    """How many reasons the screen says: one on the 7" panel, where two would need tiny text."""
    return 1 if ctx.layout.compact else SENTENCE_REASONS


def hint_text(ctx: Any, hint: Hint, size: int) -> str:
    move = ctx.t("teach.hint_move", **{"from": square_name(hint.move.from_sq, size),
                                       "to": square_name(hint.move.to_sq, size)})
    return f"{move} {reasons_text(ctx.texts, 'hint', hint.reasons, size, said(ctx))}".strip()


def draw_marks(surface: pygame.Surface, ctx: Any, geom: ScreenBoard) -> None:
    """On the board: the hint's move and squares, else the squares the robot's reason names."""
    view = ctx.view
    hint = current_hint(view)
    if hint is not None:
        draw_move_arrow(surface, geom, hint.move.from_sq, hint.move.to_sq, HINT_COLOUR)
        squares = [hint.move.from_sq, hint.move.to_sq]
        squares += [s for s in highlighted_squares(hint.reasons, said(ctx)) if s not in squares]
        mark_squares(surface, geom, squares, HINT_COLOUR, ctx.now)
        return
    reasons = robot_reasons(view)
    if reasons:
        mark_squares(surface, geom, highlighted_squares(reasons, said(ctx)), REASON_COLOUR, ctx.now)


def draw_box(surface: pygame.Surface, ctx: Any, panel: pygame.Rect, y: int, bottom: int) -> int:
    """The hint (or "looking for a move") or the robot's reason, as a box from `y`; returns the new y."""
    view = ctx.view
    lay = ctx.layout
    g = lay.gap
    teach = teaching_of(view)
    if teach is None or view.board is None:
        return y
    size = view.board.size
    hint = current_hint(view)
    if hint is not None:
        text, colour, ink = hint_text(ctx, hint, size), HINT_COLOUR, palette.WHITE
    else:
        lines = [reasons_text(ctx.texts, "robot", robot_reasons(view), size, said(ctx))] if robot_reasons(view) else []
        if teach.hint_pending and visitor_to_move(view):
            lines.append(ctx.t("teach.thinking"))       # the robot's reason stays marked meanwhile
        if not lines:
            return y
        text, colour, ink = "\n".join(lines), palette.PANEL, palette.TEXT
    box_h = min(bottom - y - g * 2, lay.font_body * 3 + g * 2)
    if box_h < lay.font_small * 2:
        return y
    box = pygame.Rect(panel.left, y, panel.width, box_h)
    edge = HINT_COLOUR if hint is not None else REASON_COLOUR
    draw_panel(surface, box, colour, edge=edge, radius=12)
    pygame.draw.rect(surface, edge, box, 3, border_radius=12)
    draw_paragraph(surface, text, box.inflate(-g * 3, -g * 2), lay.font_body, ink, align="center",
                   min_size=11, valign="center")
    return box.bottom + g * 2


def icon_bulb(surface: pygame.Surface, rect: pygame.Rect, colour: tuple[int, int, int]) -> None:
    """A light bulb: the Hint button's picture."""
    r = max(4, int(min(rect.width, rect.height) * 0.3))
    cx, cy = rect.centerx, rect.top + r + 2
    pygame.draw.circle(surface, colour, (cx, cy), r)
    base = pygame.Rect(0, 0, int(r * 1.0), max(3, int(r * 0.7)))
    base.midtop = (cx, cy + int(r * 0.8))
    pygame.draw.rect(surface, colour, base, border_radius=2)
    pygame.draw.line(surface, palette.TEXT_DARK, (base.left, base.centery), (base.right, base.centery), 2)


def draw_hint_button(surface: pygame.Surface, ctx: Any, buttons: Buttons, flag: pygame.Rect) -> int:
    """The Hint button left of the language flag on the visitor's turn; returns where the title must end."""
    view = ctx.view
    teach = teaching_of(view)
    if teach is None or not teach.hints_offered or not visitor_to_move(view):
        return flag.left
    lay = ctx.layout
    rect = pygame.Rect(flag.left - lay.gap - lay.target, flag.top, lay.target, flag.height)
    left = teach.hints_left
    enabled = (left is None or left > 0) and not teach.hint_pending and current_hint(view) is None
    draw_button(surface, rect, ctx.t("teach.button"), lay.font_small, HINT_COLOUR, enabled=enabled, icon=icon_bulb)
    if left is not None:
        badge = pygame.Rect(0, 0, lay.font_small + 6, lay.font_small + 6)
        badge.topright = (rect.right - 4, rect.top + 4)
        pygame.draw.ellipse(surface, palette.YELLOW, badge)
        pygame.draw.ellipse(surface, palette.TEXT_DARK, badge, 2)
        draw_text(surface, str(left), badge.center, lay.font_small, palette.TEXT_DARK, anchor="center")
    buttons.add("hint", rect, lambda: ctx.controller.request_hint(), enabled)
    return rect.left


def with_teaching(view: Any, *, hint_level: str | None = None, pending: bool = False,
                  hints_left: int | None = 2) -> Any:
    """`view` with the teaching a real game would show there (for screenshots and tests).

    The robot's reasons are the engine's for the last move on the view's
    board; with `hint_level` the hint is the engine's hint at that level.
    """
    from dataclasses import replace

    from engine.reasons import explain, hint

    board = view.board
    before = board.copy()
    move = before.pop()
    teach = TeachingView(robot_reasons=explain(before, move), robot_ply=board.ply, hint_pending=pending,
                         hints_left=hints_left, hints_offered=True)
    if hint_level is not None:
        found = hint(board.copy(), hint_level, time_s=1.0)
        teach = replace(teach, hint=Hint(board.parse_move(found.move), found.move, found.reasons, board.ply))
    return replace(view, teaching=teach)
