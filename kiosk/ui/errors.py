"""Problems the visitor can fix, drawn large: an illegal move, a piece the robot could not move,
a hand over the board, or something that needs staff.

Each is shown in two places at once: marks on the board (what to take away,
where to put a piece, an arrow when one piece simply has to go back) and a
panel that says it in words. Colour is never the only cue: "put here" is a
ghost piece in a ring with a tick-green edge, "take away" is a cross.
"""
from __future__ import annotations

import functools
import math
from typing import Callable

import pygame

from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_move_arrow, draw_piece, square_name
from kiosk.ui.context import UiContext
from kiosk.ui.widgets import Buttons, draw_button, draw_hand, draw_panel, draw_paragraph, draw_text
from kiosk.states import State

CAMERA_GRACE_S = 2.0     # a hand over the board while moving is normal; say something only after this


def active_error(view: object, camera_bad_for: float) -> str | None:
    """Which problem to show: 'fix_board', 'place_piece', 'camera', 'staff' or None."""
    if view is None:
        return None
    state = getattr(view, "state", "")
    if state == State.PAUSED_ERROR:
        return "staff"
    if state == State.PLACE_PIECE:
        return "place_piece"
    if state == State.FIX_BOARD:
        return "fix_board"
    if not getattr(view, "camera_ok", True) and camera_bad_for >= CAMERA_GRACE_S:
        return "camera"
    return None


def message_text(ctx: UiContext, view: object, fallback: str) -> str:
    """The controller's message key in words (``errors.<key>``), or the fallback key's text."""
    message = getattr(view, "message", None)
    args = dict(getattr(view, "message_args", {}) or {})
    if message:
        return ctx.t(f"messages.{message}", fallback, **args)
    return ctx.t(fallback, **args)


def camera_reason_key(reason: str | None) -> str:
    text = (reason or "").lower()
    if "hand" in text or "arm" in text or "occlu" in text:
        return "errors.camera.hand"
    if "marker" in text:
        return "errors.camera.markers"
    if "dark" in text:
        return "errors.camera.dark"
    if "no frame" in text or "unplug" in text or "disconnect" in text or "camera" in text:
        return "errors.camera.lost"
    return "errors.camera.generic"


def pair_moves(fix: dict[int, object | None], believed: dict[int, object]) -> list[tuple[int, int]]:
    """Pairs (take-from, put-on) where one piece of a kind simply has to move back."""
    takes = [sq for sq, piece in fix.items() if piece is None]
    puts = [sq for sq, piece in fix.items() if piece is not None]
    pairs = []
    if len(takes) == 1 and len(puts) == 1:
        pairs.append((takes[0], puts[0]))
    return pairs


def draw_fix_marks(surface: pygame.Surface, ctx: UiContext, geom: ScreenBoard, fix: dict[int, object | None],
                   phase: float) -> None:
    """Marks on the board for every square to fix; they pulse so the eye finds them."""
    scheme = ctx.piece_scheme()
    pulse = 0.5 + 0.5 * math.sin(phase * 2 * math.pi)
    for sq, piece in fix.items():
        rect = geom.square_rect(sq)
        if piece is None:
            ring = rect.inflate(-int(geom.square * 0.1), -int(geom.square * 0.1))
            pygame.draw.rect(surface, palette.WHITE, ring.inflate(6, 6), max(3, int(geom.square * 0.1)))
            pygame.draw.rect(surface, palette.BAD, ring, max(3, int(geom.square * 0.08 + 3 * pulse)))
            inner = rect.inflate(-int(geom.square * 0.45), -int(geom.square * 0.45))
            w = max(3, int(geom.square * 0.1))
            pygame.draw.line(surface, palette.WHITE, inner.topleft, inner.bottomright, w + 4)
            pygame.draw.line(surface, palette.WHITE, inner.topright, inner.bottomleft, w + 4)
            pygame.draw.line(surface, palette.BAD, inner.topleft, inner.bottomright, w)
            pygame.draw.line(surface, palette.BAD, inner.topright, inner.bottomleft, w)
        else:
            draw_piece(surface, rect.center, geom.square, piece, scheme, alpha=150)
            r = int(geom.square * (0.47 + 0.03 * pulse))
            pygame.draw.circle(surface, palette.WHITE, rect.center, r + 3, max(2, int(geom.square * 0.06)) + 2)
            pygame.draw.circle(surface, palette.GOOD, rect.center, r, max(3, int(geom.square * 0.08)))
    for take, put in pair_moves(fix, {}):
        draw_move_arrow(surface, geom, take, put, palette.FIX)


def draw_choice_marks(surface: pygame.Surface, geom: ScreenBoard, choices: tuple, phase: float) -> None:
    """The moves a doubtful reading may be: an arrow along each and a pulsing ring on each square
    the piece may stand on (two destinations on one line share the arrow; the rings tell them
    apart, and each button names its squares)."""
    pulse = 0.5 + 0.5 * math.sin(phase * 2 * math.pi)
    for move in choices:
        draw_move_arrow(surface, geom, move.from_sq, move.to_sq, palette.SKY_BLUE)
    for move in choices:
        rect = geom.square_rect(move.to_sq)
        r = int(geom.square * (0.4 + 0.04 * pulse))
        pygame.draw.circle(surface, palette.WHITE, rect.center, r + 3, max(2, int(geom.square * 0.05)) + 2)
        pygame.draw.circle(surface, palette.SKY_BLUE, rect.center, r, max(3, int(geom.square * 0.08)))


def choice_grid(ctx: UiContext, width: int, count: int) -> tuple[int, int]:
    """(buttons per row, rows) for `count` move buttons in `width`: each at least one touch target
    wide and high (kiosk/ui/layout.py), one column on a large screen, side by side on a small one."""
    lay = ctx.layout
    per_row = 1 if width >= 3 * lay.target else max(1, min(count, (width + lay.gap) // (lay.target + lay.gap)))
    return per_row, math.ceil(count / per_row)


def _choose(choose: Callable[[str], object], otn: str) -> None:
    choose(otn)


#: up to this many moves in doubt also get a button each in the panel (more: the rings on the board)
MAX_CHOICE_BUTTONS = 3


def draw_move_choices(surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, choices: tuple,
                      buttons: Buttons, choose: Callable[[str], object]) -> None:
    """One large button per move the visitor may have made ("d1 to d3"), filling `rect` from its
    bottom; a touch says it was that one (the ringed squares on the board work the same)."""
    lay = ctx.layout
    size = getattr(getattr(ctx.view, "board", None), "size", 11)
    per_row, rows = choice_grid(ctx, rect.width, len(choices))
    h = lay.target
    top = rect.bottom - rows * h - (rows - 1) * lay.gap
    for index, move in enumerate(choices):
        row, col = divmod(index, per_row)
        count = min(per_row, len(choices) - row * per_row)
        w = (rect.width - (count - 1) * lay.gap) // count
        otn = move.otn(size)
        label = ctx.t("errors.fix_board.choice", **{"from": square_name(move.from_sq, size),
                                                     "to": square_name(move.to_sq, size)})
        button = pygame.Rect(rect.left + col * (w + lay.gap), top + row * (h + lay.gap), w, h)
        draw_button(surface, button, label, lay.font_button, palette.PRIMARY)
        buttons.add(f"choose_{otn}", button, functools.partial(_choose, choose, otn))


def draw_error_panel(surface: pygame.Surface, ctx: UiContext, kind: str, panel: pygame.Rect, phase: float,
                     buttons: Buttons | None = None, choose: Callable[[str], object] | None = None,
                     hands_off: Callable[[], None] | None = None) -> None:
    """The words (and a drawing) for the problem, filling ``panel``; with `buttons` and `choose`,
    the moves a doubtful reading left (the view's `move_choices`) are buttons to touch; with `buttons`,
    a camera that has long refused a still picture as a hand (the view's `asks_hands_off`) asks
    whether a hand is over the board, and a button says none is (`hands_off`, the controller's command)."""
    view = ctx.view
    lay = ctx.layout
    offer_hands_off = kind == "camera" and buttons is not None and bool(getattr(view, "asks_hands_off", False))
    choices = tuple(getattr(view, "move_choices", ()) or ()) if kind == "fix_board" and buttons is not None \
        and choose is not None else ()
    asking = bool(choices)
    if len(choices) > MAX_CHOICE_BUTTONS:
        choices = ()          # the rings on the board are the choice
    draw_panel(surface, panel, colour=palette.BACKGROUND_LIGHT, edge=palette.FIX if kind != "camera" else palette.ORANGE)
    pad = lay.gap * 2
    inner = panel.inflate(-2 * pad, -2 * pad)
    title_key = {"fix_board": "errors.fix_board.title", "place_piece": "errors.place_piece.title",
                 "camera": "errors.camera.title", "staff": "errors.staff.title"}[kind]
    if asking:
        title_key = "errors.fix_board.which_title"
    elif kind == "fix_board" and bool(getattr(view, "moves_possible", None)):
        title_key = "errors.fix_board.show_title"
    y = draw_paragraph(surface, ctx.t(title_key), pygame.Rect(inner.left, inner.top, inner.width, lay.font_heading * 2),
                       lay.font_heading, palette.ORANGE if kind == "camera" else palette.TEXT,
                       min_size=lay.font_small) + lay.gap
    if kind == "fix_board":
        body = message_text(ctx, view, "errors.fix_board.generic")
    elif kind == "place_piece":
        fix = dict(getattr(view, "fix_squares", {}) or {})
        size = getattr(getattr(view, "board", None), "size", 11)
        where = ", ".join(square_name(sq, size) for sq, p in sorted(fix.items()) if p is not None) or "?"
        many = sum(1 for p in fix.values() if p is not None) > 1
        body = (message_text(ctx, view, "errors.place_piece.generic") + " "
                + ctx.t("errors.place_piece.where_many" if many else "errors.place_piece.where", squares=where))
    elif offer_hands_off:
        body = ctx.t("errors.camera.hands_off_question")
    elif kind == "camera":
        reason = getattr(view, "camera_reason", None)
        body = ctx.t(f"messages.{reason}") if reason and ctx.texts.has(f"messages.{reason}") \
            else ctx.t(camera_reason_key(reason))
    else:
        body = message_text(ctx, view, "errors.staff.generic")
    row_h = lay.font_small + lay.gap
    legend_h = 0 if kind in ("camera", "staff") or asking else 2 * row_h + lay.gap
    body_rect = pygame.Rect(inner.left, y, inner.width, inner.bottom - y - legend_h)
    if choices:            # the buttons first: the words shrink to what is left above them
        choices_h = choice_grid(ctx, inner.width, len(choices))[1] * (lay.target + lay.gap) + lay.gap
        choice_rect = pygame.Rect(inner.left, inner.bottom - choices_h + lay.gap, inner.width, choices_h - lay.gap)
        body_rect.height -= choices_h
    if offer_hands_off:
        hands_off_rect = pygame.Rect(inner.left, inner.bottom - lay.target, inner.width, lay.target)
        body_rect.height -= lay.target + lay.gap
    if kind in ("camera", "staff") and not offer_hands_off:      # asking: the button is the picture
        art = pygame.Rect(0, 0, min(inner.width, body_rect.height // 2), min(inner.width, body_rect.height // 2))
        art.midbottom = (inner.centerx, body_rect.bottom)
        if kind == "camera":
            bob = int(math.sin(phase * 2 * math.pi) * art.height * 0.05)
            draw_hand(surface, art.move(0, bob))
            pygame.draw.line(surface, palette.BAD, art.bottomleft, art.topright, max(4, art.width // 14))
        else:
            pygame.draw.circle(surface, palette.ORANGE, art.center, art.width // 2)
            draw_text(surface, "!", art.center, int(art.height * 0.8), palette.TEXT_DARK, anchor="center")
        body_rect.height = art.top - body_rect.top - lay.gap
    body_bottom = draw_paragraph(surface, body, body_rect, lay.font_body, palette.TEXT, min_size=10)
    if offer_hands_off:
        draw_button(surface, hands_off_rect, ctx.t("errors.camera.hands_off"), lay.font_button, palette.PRIMARY)
        if buttons is not None and hands_off is not None:       # (a still picture has no command behind it)
            buttons.add("hands_off", hands_off_rect, hands_off)
    if choices and buttons is not None and choose is not None:
        draw_move_choices(surface, ctx, choice_rect, choices, buttons, choose)
    elif kind in ("fix_board", "place_piece") and not asking:
        art = pygame.Rect(inner.left, body_bottom + lay.gap, inner.width, body_rect.bottom - body_bottom - lay.gap * 2)
        if art.height > lay.target * 0.6:
            draw_fix_picture(surface, ctx, art, dict(getattr(view, "fix_squares", {}) or {}), phase)
    if legend_h:
        scheme = ctx.piece_scheme()
        ly = inner.bottom - 2 * row_h
        r = lay.font_small // 2 + 4
        draw_piece(surface, (inner.left + r, ly + r), r * 2.4, "T", scheme, alpha=150)
        pygame.draw.circle(surface, palette.GOOD, (inner.left + r, ly + r), r + 2, 3)
        draw_text(surface, ctx.t("errors.legend.put"), (inner.left + 3 * r, ly + r), lay.font_small, anchor="midleft")
        ly += row_h
        pygame.draw.line(surface, palette.BAD, (inner.left, ly), (inner.left + 2 * r, ly + 2 * r), 4)
        pygame.draw.line(surface, palette.BAD, (inner.left + 2 * r, ly), (inner.left, ly + 2 * r), 4)
        draw_text(surface, ctx.t("errors.legend.take"), (inner.left + 3 * r, ly + r), lay.font_small, anchor="midleft")


def draw_fix_picture(surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, fix: dict[int, object | None],
                     phase: float) -> None:
    """A large drawing of the fix: 'this square -> that square' for one piece to move back, or the
    squares to clear and to fill, named like the letters and numbers on the board's edge."""
    lay = ctx.layout
    size = getattr(getattr(ctx.view, "board", None), "size", 11)
    scheme = ctx.piece_scheme()
    pairs = pair_moves(fix, {})
    cell = int(min(rect.height - lay.font_body - lay.gap, rect.width / 3.4))
    if cell < 24:
        return
    if pairs:
        take, put = pairs[0]
        piece = fix[put]
        y = rect.top + (rect.height - cell - lay.font_body) // 2
        a = pygame.Rect(rect.left + (rect.width - int(cell * 3.2)) // 2, y, cell, cell)
        b = pygame.Rect(a.right + int(cell * 1.2), y, cell, cell)
        for box in (a, b):
            pygame.draw.rect(surface, ctx.config.board_spec.wood_rgb, box, border_radius=6)
            pygame.draw.rect(surface, ctx.config.board_spec.line_rgb, box, 2, border_radius=6)
        slide = (phase * 0.6) % 1.0
        ease = slide * slide * (3 - 2 * slide)
        pygame.draw.circle(surface, palette.GOOD, b.center, int(cell * 0.46), max(3, cell // 14))
        draw_piece(surface, b.center, cell, piece, scheme, alpha=90)
        moving = (a.centerx + (b.centerx - a.centerx) * ease, a.centery)
        draw_piece(surface, moving, cell, piece, scheme)
        arrow_y = a.centery
        pygame.draw.line(surface, palette.FIX, (a.right + 6, arrow_y), (b.left - 10, arrow_y), max(3, cell // 12))
        pygame.draw.polygon(surface, palette.FIX, [(b.left - 4, arrow_y), (b.left - 18, arrow_y - 10),
                                                   (b.left - 18, arrow_y + 10)])
        for box, sq in ((a, take), (b, put)):
            draw_text(surface, square_name(sq, size), (box.centerx, box.bottom + 2), lay.font_body, palette.TEXT,
                      anchor="midtop")
        return
    puts = ", ".join(square_name(sq, size) for sq, p in sorted(fix.items()) if p is not None)
    takes = ", ".join(square_name(sq, size) for sq, p in sorted(fix.items()) if p is None)
    lines = []
    if puts:
        lines.append(ctx.t("errors.legend.put") + ": " + puts)
    if takes:
        lines.append(ctx.t("errors.legend.take") + ": " + takes)
    draw_paragraph(surface, "\n".join(lines), rect, lay.font_body, palette.YELLOW, min_size=12, valign="center")


def robot_activity_text(ctx: UiContext, view: object) -> str:
    """The robot's activity code (kiosk/activity.py) in the visitor's language."""
    state = getattr(view, "state", "")
    activity = getattr(view, "robot_activity", None)
    if activity:
        return ctx.t(f"robot.{activity.code.value}", str(activity), **activity.args)
    if getattr(view, "resetting", False):
        return ctx.t("museum.resetting")
    if state in (State.THINKING, State.SETUP, State.CLEARING, State.VERIFY, State.ROBOT_MOVING):
        return ctx.t(f"robot.{state}")
    return ""
