"""The rules screens: per variant, short numbered steps with small animated board diagrams.

Every capture rule is shown as a pair: on the left what IS captured (tick),
on the right the look-alike that is NOT (cross). The animation slides the
moving piece, fades the captured ones, then shows the verdict. Reachable at
any time: from the attract and start screens and in the middle of a game (it
returns to where it came from). The numbered dots between the arrows jump to
their step when touched; the last two steps are the rule text's "Playing
here" section, told for this kiosk.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from engine import Board, Side
from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_board, draw_dot, draw_piece, draw_pieces
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.rules_content import STEPS, Diagram
from kiosk.ui.widgets import badge, draw_button, draw_paragraph, draw_text, fit_font, icon_arrow, icon_cross

PERIOD_S = 3.6
HOLD_S, SLIDE_S, FADE_S = 0.6, 0.8, 0.6
VARIANT_ORDER = ("copenhagen", "york", "tablut", "tawlbwrdd")


def _crop_square(name: str, n: int) -> int:
    return (int(name[1:]) - 1) * n + "abcdefghijklmnopqrstuvwxyz".index(name[0])


def diagram_frame(diagram: Diagram, t: float) -> tuple[dict[int, str], tuple[int, int, float] | None, dict[int, float], bool]:
    """What to draw at time ``t`` (seconds into the loop): still pieces, the sliding piece
    (from, to, progress), fading pieces (square -> opacity) and whether the verdict shows."""
    n = diagram.size
    pieces = {(n - 1 - r) * n + f: ch for r, row in enumerate(diagram.rows) for f, ch in enumerate(row) if ch in "tTK"}
    t = t % PERIOD_S
    if diagram.move is None:
        return pieces, None, {}, t >= HOLD_S
    a, b = (_crop_square(name, n) for name in diagram.move)
    removed = {_crop_square(name, n) for name in diagram.removed}
    if t < HOLD_S:
        return pieces, None, {}, False
    mover = pieces.pop(a)
    if t < HOLD_S + SLIDE_S:
        u = (t - HOLD_S) / SLIDE_S
        return pieces, (a, b, u * u * (3 - 2 * u)), {}, False
    pieces[b] = mover
    if t < HOLD_S + SLIDE_S + FADE_S and removed:
        u = (t - HOLD_S - SLIDE_S) / FADE_S
        fading = {sq: 1.0 - u for sq in removed}
        for sq in removed:
            if sq != b:
                pieces.pop(sq, None)
        if b in removed:
            pieces.pop(b, None)
        return pieces, None, fading, True
    for sq in removed:
        pieces.pop(sq, None)
    return pieces, None, {}, True


def draw_diagram(surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, diagram: Diagram, t: float) -> None:
    """One diagram, animated at time ``t``, fitted into ``rect`` (square)."""
    scheme = ctx.piece_scheme()
    shaded = ctx.shaded()
    if diagram.start:
        board = Board(diagram.start)
        spec = ctx.board_spec_for(diagram.start)
        geom = ScreenBoard(rect, board.size, coordinates=False)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        draw_pieces(surface, geom, board.pieces(), scheme, shaded)
        return
    spec = ctx.config.board_spec
    n = diagram.size
    geom = ScreenBoard(rect, n, coordinates=False)
    marked = {(n - 1 - r) * n + f for r, row in enumerate(diagram.rows) for f, ch in enumerate(row) if ch == "#"}
    draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb, marked)
    inner = geom.inner
    edge_w = max(4, int(geom.square * 0.12))
    sides = {"n": (inner.topleft, inner.topright), "s": (inner.bottomleft, inner.bottomright),
             "w": (inner.topleft, inner.bottomleft), "e": (inner.topright, inner.bottomright)}
    for side, (p, q) in sides.items():
        if side in diagram.edges:
            pygame.draw.line(surface, palette.TEXT_DARK, p, q, edge_w)
        else:
            # The board goes on beyond this side: a dotted edge says so.
            steps = 12
            for k in range(0, steps, 2):
                dash_a = (p[0] + (q[0] - p[0]) * k / steps, p[1] + (q[1] - p[1]) * k / steps)
                dash_b = (p[0] + (q[0] - p[0]) * (k + 1) / steps, p[1] + (q[1] - p[1]) * (k + 1) / steps)
                pygame.draw.line(surface, palette.BACKGROUND, dash_a, dash_b, max(2, edge_w // 2))
    pieces, slide, fading, verdict_shows = diagram_frame(diagram, t)
    if slide is None and (not verdict_shows or diagram.move is None):
        if diagram.move is None and diagram.dots:
            # A still "where can it go" diagram: the touched piece framed, as on the game screen.
            first = next((n - 1 - r) * n + f for r, row in enumerate(diagram.rows) for f, ch in enumerate(row)
                         if ch in "tTK")
            pygame.draw.rect(surface, palette.BLACK, geom.square_rect(first), max(3, int(geom.square * 0.12)))
            pygame.draw.rect(surface, palette.SELECTED, geom.square_rect(first), max(2, int(geom.square * 0.07)))
        for name in diagram.dots:
            draw_dot(surface, geom, _crop_square(name, n))
    if diagram.move is not None:
        a, b = (_crop_square(name, n) for name in diagram.move)
        pygame.draw.rect(surface, palette.LAST_MOVE, geom.square_rect(a), max(2, int(geom.square * 0.06)))
        pygame.draw.rect(surface, palette.LAST_MOVE, geom.square_rect(b), max(2, int(geom.square * 0.06)))
    draw_pieces(surface, geom, pieces, scheme, shaded)
    original = {(n - 1 - r) * n + f: ch for r, row in enumerate(diagram.rows) for f, ch in enumerate(row) if ch in "tTK"}
    for sq, alpha in fading.items():
        piece = original.get(sq)
        if diagram.move is not None and sq == _crop_square(diagram.move[1], n):
            piece = original[_crop_square(diagram.move[0], n)]      # the mover itself dies (Throw Board)
        if piece:
            draw_piece(surface, geom.centre(sq), geom.square, piece, scheme, shaded, alpha=int(255 * alpha))
            box = geom.square_rect(sq).inflate(-int(geom.square * 0.2), -int(geom.square * 0.2))
            icon_cross(surface, box, palette.BAD)
    if slide is not None:
        a, b, u = slide
        pa, pb = geom.centre(a), geom.centre(b)
        mover = original[a]
        draw_piece(surface, (pa[0] + (pb[0] - pa[0]) * u, pa[1] + (pb[1] - pa[1]) * u), geom.square, mover, scheme, shaded)
    if verdict_shows and diagram.verdict is not None:
        r = max(12, int(rect.width * 0.1))
        badge(surface, (rect.right - r, rect.top + r), r, diagram.verdict)


def playing_here_words(ctx: UiContext, variant: str) -> dict[str, str]:
    """What the "Playing here" texts fill in: how to move here, the variant's side names, who
    starts, and the hints each level allows (calibration/config.py)."""
    move = ctx.t("teach.playing.move_board")
    if ctx.world is not None:          # the simulation: the screen's board is the one to play on
        move += " " + ctx.t("teach.playing.move_touch")
    first = Board(variant).turn
    words = {"move": move, "first": ctx.t(f"variants.{variant}.{first.value}")}
    for side in Side:
        words[side.value] = ctx.t(f"variants.{variant}.{side.value}")
    for name, level in ctx.config.engine.levels.items():
        count = int(getattr(level, "hints", -1))
        words[name] = ctx.t("teach.unlimited") if count < 0 else str(count)
    return words


class RulesScreen(BaseScreen):
    name = "rules"

    def __init__(self) -> None:
        super().__init__()
        self.variant = "copenhagen"
        self.step = 0
        self.back_to = "attract"
        self.last_touch = (0, 0)
        self.back_kwargs: dict[str, Any] = {}
        self.step_started = 0.0
        self.dot_cells: list[pygame.Rect] = []     # the step dots drawn in the last frame

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        variant = kwargs.get("variant") or self.variant
        self.variant = variant if variant in STEPS else "copenhagen"
        step = kwargs.get("step", 0)
        keys = [s.key for s in STEPS[self.variant]]
        self.step = keys.index(step) if step in keys else int(step) if str(step).isdigit() else 0
        self.back_to = kwargs.get("back", "attract")
        self.back_kwargs = dict(kwargs.get("back_kwargs") or {})   # e.g. the start screen keeps its page
        self.step_started = ctx.now

    def steps(self) -> tuple:
        return STEPS[self.variant]

    def go(self, ctx: UiContext, step: int) -> None:
        self.step = max(0, min(len(self.steps()) - 1, step))
        self.step_started = ctx.now

    def pick_variant(self, ctx: UiContext, variant: str) -> None:
        self.variant = variant
        self.go(ctx, 0)

    def wants_key(self, event: pygame.event.Event, ctx: UiContext) -> bool:
        """Left and Right turn the pages (the rule text's "arrow keys"); Up, Down and Tab reach the buttons."""
        return event.key in (pygame.K_LEFT, pygame.K_RIGHT)

    def touch_dots(self, ctx: UiContext, pos: tuple[int, int]) -> None:
        """A touch on the row of step dots goes to the nearest dot (one dot alone is smaller than
        a finger on the 7" panel; the row as a whole is a full touch target)."""
        if self.dot_cells:
            nearest = min(range(len(self.dot_cells)), key=lambda k: abs(self.dot_cells[k].centerx - pos[0]))
            self.go(ctx, nearest)

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.last_touch = event.pos
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_RIGHT:
                self.go(ctx, self.step + 1)
            elif event.key == pygame.K_LEFT:
                self.go(ctx, self.step - 1)
            elif event.key == pygame.K_ESCAPE:
                ctx.navigate(self.back_to, **self.back_kwargs)
            return
        super().handle(event, ctx)

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        surface.fill(palette.BACKGROUND)
        m, g, T = lay.margin, lay.gap, lay.target
        close = pygame.Rect(m, m, T, T)
        draw_button(surface, close, "", lay.font_button, palette.PANEL_EDGE, icon=icon_arrow("left"))
        self.buttons.add("close", close, lambda: ctx.navigate(self.back_to, **self.back_kwargs))
        ctx.draw_flag_button(surface, self.buttons)
        tabs_area = pygame.Rect(close.right + g * 2, m, lay.flag_rect.left - close.right - g * 4, T)
        variants = [v for v in VARIANT_ORDER if v in STEPS]
        tab_w = (tabs_area.width - g * (len(variants) - 1)) // len(variants)
        for k, variant in enumerate(variants):
            rect = pygame.Rect(tabs_area.left + k * (tab_w + g), tabs_area.top, tab_w, T)
            chosen = variant == self.variant
            draw_button(surface, rect, ctx.t(f"variants.{variant}.name"), lay.font_body,
                        palette.PRIMARY if chosen else palette.PANEL, selected=False)
            if chosen:
                pygame.draw.rect(surface, palette.YELLOW, (rect.left + 8, rect.bottom - 8, rect.width - 16, 6))
            self.buttons.add(f"tab.{variant}", rect, partial(self.pick_variant, ctx, variant))
        steps = self.steps()
        step = steps[self.step]
        bottom = pygame.Rect(m, lay.height - m - T, lay.width - 2 * m, T)
        prev = pygame.Rect(bottom.left, bottom.top, int(T * 1.6), T)
        nxt = pygame.Rect(bottom.right - int(T * 1.6), bottom.top, int(T * 1.6), T)
        draw_button(surface, prev, "", lay.font_button, palette.SECONDARY, enabled=self.step > 0, icon=icon_arrow("left"))
        draw_button(surface, nxt, "", lay.font_button, palette.PRIMARY, enabled=self.step < len(steps) - 1,
                    icon=icon_arrow("right"))
        self.buttons.add("prev", prev, lambda: self.go(ctx, self.step - 1), self.step > 0)
        self.buttons.add("next", nxt, lambda: self.go(ctx, self.step + 1), self.step < len(steps) - 1)
        # Step dots between the arrows: where you are (the arrows are the 20 mm targets).
        dots_w = nxt.left - prev.right - 2 * g
        slot = min(T, dots_w // max(1, len(steps)))
        x0 = prev.right + g + (dots_w - slot * len(steps)) // 2
        self.dot_cells = [pygame.Rect(x0 + k * slot, bottom.top, slot, T) for k in range(len(steps))]
        row = pygame.Rect(prev.right + g, bottom.top, dots_w, T)
        self.buttons.add("steps", row, lambda: self.touch_dots(ctx, self.last_touch))
        for k, cell in enumerate(self.dot_cells):
            r = max(6, slot // 5)
            colour = palette.ORANGE if k == self.step else palette.PANEL_EDGE
            pygame.draw.circle(surface, colour, cell.center, r)
            draw_text(surface, str(k + 1), cell.center, max(10, int(r * 1.3)),
                      palette.TEXT_DARK if k == self.step else palette.TEXT, anchor="center")
        body = pygame.Rect(m, close.bottom + g * 2, lay.width - 2 * m, bottom.top - close.bottom - g * 4)
        self.draw_step(surface, ctx, body, step)

    def draw_step(self, surface: pygame.Surface, ctx: UiContext, body: pygame.Rect, step: Any) -> None:
        lay = ctx.layout
        g = lay.gap
        prefix = step.prefix(self.variant)
        count = len(step.diagrams)
        caption_h = lay.font_small * 2 + g
        diag_side = min(body.height - caption_h, int(body.width * (0.3 if count == 2 else 0.45)))
        if count == 0:
            text_rect = body
        else:
            text_rect = pygame.Rect(body.left, body.top, body.width - count * (diag_side + g * 3), body.height)
        r = lay.font_heading // 2 + 6
        pygame.draw.circle(surface, palette.ORANGE, (text_rect.left + r, text_rect.top + r), r)
        draw_text(surface, str(self.step + 1), (text_rect.left + r, text_rect.top + r), lay.font_heading,
                  palette.TEXT_DARK, anchor="center")
        title = ctx.t(f"{prefix}.title")
        fnt = fit_font(title, text_rect.width - 2 * r - g * 2, lay.font_heading)
        surface.blit(fnt.render(title, True, palette.TEXT), (text_rect.left + 2 * r + g * 2, text_rect.top + r - fnt.get_height() // 2))
        draw_paragraph(surface, ctx.t(f"{prefix}.text", **playing_here_words(ctx, self.variant)),
                       pygame.Rect(text_rect.left, text_rect.top + 2 * r + g * 2, text_rect.width - g,
                                   text_rect.height - 2 * r - g * 2), lay.font_body, palette.TEXT, min_size=lay.font_small)
        t = ctx.now - self.step_started
        x = body.right - count * (diag_side + g * 3) + g * 3
        for diagram in step.diagrams:
            rect = pygame.Rect(x, body.top, diag_side, diag_side)
            draw_diagram(surface, ctx, rect, diagram, t)
            if diagram.caption:
                draw_paragraph(surface, ctx.t(diagram.caption),
                               pygame.Rect(x - g, rect.bottom + g, diag_side + 2 * g, caption_h),
                               lay.font_small, palette.TEXT, align="center", min_size=11)
            x += diag_side + g * 3
