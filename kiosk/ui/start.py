"""The start screens: one question per page, big cards, a Back button.

Which game (only those the installed board supports), for York the match
format, which side (attackers, defenders, or cast lots as Tablut's text
says), how strong the robot is; then the controller sets the board up. One
question per page keeps every card above 20 mm even on the 7" panel and is
easy for a ten-year-old and a grandparent alike.
"""
from __future__ import annotations

import math
import random
from functools import partial
from typing import Any

import pygame

from engine import Board, Side
from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_board, draw_pieces, draw_piece
from kiosk.ui.context import BaseScreen, GameRequest, UiContext
from kiosk.ui.errors import active_error, draw_error_panel
from kiosk.match import MATCH_FORMATS
from kiosk.ui.widgets import draw_button, draw_paragraph, draw_text, fit_font, icon_arrow, icon_book
from kiosk.states import State

LEVELS = ("easy", "medium", "hard")
LEVEL_REWARD = {"easy": "colours", "medium": "shaded", "hard": "crown"}
# The problems (kiosk/ui/errors.active_error) that keep a chosen game from starting until a person acts.
PERSON_NEEDED = ("place_piece", "fix_board", "staff")


def installed_variants(config: Any) -> list[str]:
    """Variants in the config whose board size is the installed board's."""
    squares = config.board_spec.squares
    out = []
    for variant in config.kiosk.variants:
        size = 9 if variant == "tablut" else 11
        if size == squares:
            out.append(variant)
    return out


def start_position(variant: str) -> tuple[int, dict[int, Any], str | None]:
    """(size, pieces, side to move first) from the engine's start position."""
    board = Board(variant)
    return board.size, board.pieces(), str(getattr(board.turn, "value", board.turn))


class StartScreen(BaseScreen):
    name = "start"

    def __init__(self) -> None:
        super().__init__()
        self.page = "variant"
        self.variant: str | None = None
        self.match_format = "single"
        self.side: str | None = None
        self.lots = False
        self.pending: GameRequest | None = None
        self.error: str | None = None
        self.rng = random.Random()

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        if kwargs.get("keep_page"):         # back from the rules: the choices made so far stay
            return
        self.pending = None
        self.error = None
        self.lots = False
        if kwargs.get("next_game") and ctx.match is not None and ctx.request is not None:
            # the controller swaps the sides and deals the cards (kiosk/match.py)
            request = GameRequest(ctx.request.variant, dict(ctx.request.options), ctx.match.visitor_side(),
                                  ctx.request.level, match="next")
            ctx.request = self.pending = request
            self.page = "level"
            self.try_start(ctx)
            return
        if kwargs.get("repeat") and ctx.request is not None:
            # "Play again": the same game, side and level, straight away (no questions again).
            self.variant = ctx.request.variant
            self.side = str(getattr(ctx.request.visitor_side, "value", ctx.request.visitor_side))
            ctx.request = self.pending = GameRequest(ctx.request.variant, dict(ctx.request.options),
                                                     ctx.request.visitor_side, ctx.request.level)
            self.page = "level"
            self.try_start(ctx)
            return
        variants = installed_variants(ctx.config)
        if len(variants) == 1:
            self.variant = variants[0]
            self.page = "format" if self.variant == "york" else "side"
        else:
            self.page = "variant"

    # ---- choices ---------------------------------------------------------------------------
    def choose_variant(self, variant: str) -> None:
        self.variant = variant
        self.match_format = "single"
        self.page = "format" if variant == "york" else "side"

    def choose_format(self, fmt: str) -> None:
        self.match_format = fmt
        self.page = "side"

    def choose_two_players(self, ctx: UiContext) -> None:
        """Two visitors play each other; the robot referees (no level to choose, no rewards)."""
        assert self.variant is not None
        request = GameRequest(self.variant, {}, Side.ATTACKERS, "easy", mode="referee")
        ctx.request = self.pending = request
        self.try_start(ctx)

    def choose_side(self, side: str) -> None:
        self.lots = side == "lots"
        self.side = self.rng.choice(("attackers", "defenders")) if self.lots else side
        self.page = "level"

    def choose_level(self, ctx: UiContext, level: str) -> None:
        assert self.variant is not None and self.side is not None
        request = GameRequest(self.variant, {}, Side(self.side), level, match=self.match_format)
        ctx.request = request
        self.pending = request
        self.try_start(ctx)

    def try_start(self, ctx: UiContext) -> None:
        """Start as soon as the robot is free (it may still be clearing the last game)."""
        if self.pending is None:
            return
        view = ctx.view
        if view is not None and view.state not in (State.IDLE, State.GAME_OVER, State.PAUSED):
            return
        request = self.pending
        try:
            # a single game against the robot is the controller's default: only a match or a mode is named
            extra = (request.match,) if request.match != "single" else ()
            mode = {"mode": request.mode} if request.mode != "visitor" else {}
            ctx.controller.start_game(request.variant, dict(request.options), request.visitor_side, request.level,
                                      *extra, **mode)
        except (RuntimeError, ValueError) as exc:
            self.error = str(exc)
            self.pending = None
            return
        self.pending = None
        ctx.navigate("game")

    def back(self, ctx: UiContext) -> None:
        order = ["variant", "format", "side", "level"]
        if self.variant != "york":
            order.remove("format")
        index = order.index(self.page)
        if index == 0 or (index == 1 and len(installed_variants(ctx.config)) == 1 and order[0] == "variant"):
            ctx.navigate("attract")
        else:
            self.page = order[index - 1]
            self.pending = None

    def update(self, ctx: UiContext, dt: float) -> None:
        if self.pending is not None:
            self.try_start(ctx)

    # ---- drawing ----------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        surface.fill(palette.BACKGROUND)
        back = pygame.Rect(lay.margin, lay.margin, lay.target, lay.target)
        draw_button(surface, back, "", lay.font_button, palette.PANEL_EDGE, icon=icon_arrow("left"))
        self.buttons.add("back", back, lambda: self.back(ctx))
        ctx.draw_flag_button(surface, self.buttons)
        rules = self.draw_rules_button(surface, ctx)
        title = ctx.t(f"start.{self.page}.title")
        title_rect = pygame.Rect(back.right + lay.gap * 2, lay.margin, rules.left - back.right - lay.gap * 4, lay.target)
        fnt = fit_font(title, title_rect.width, lay.font_title)
        img = fnt.render(title, True, palette.TEXT)
        surface.blit(img, img.get_rect(center=title_rect.center))
        area = pygame.Rect(lay.margin, back.bottom + lay.gap * 2, lay.width - 2 * lay.margin,
                           lay.height - back.bottom - lay.gap * 2 - lay.margin)
        if self.pending is not None or self.error is not None:
            problem = active_error(ctx.view, 0.0) if self.error is None else None
            if problem in PERSON_NEEDED:
                self.draw_person_needed(surface, ctx, area, problem)
            else:
                self.draw_waiting(surface, ctx, area)
            return
        getattr(self, f"draw_{self.page}")(surface, ctx, area)

    def draw_rules_button(self, surface: pygame.Surface, ctx: UiContext) -> pygame.Rect:
        """The rules, left of the flag: of the game chosen so far; back here with the choices kept."""
        lay = ctx.layout
        rect = pygame.Rect(lay.flag_rect.left - lay.gap * 2 - lay.target, lay.margin, lay.target, lay.target)
        draw_button(surface, rect, "", lay.font_button, palette.SECONDARY, icon=icon_book)
        self.buttons.add("rules", rect, lambda: ctx.navigate("rules", variant=self.variant, back="start",
                                                             back_kwargs={"keep_page": True}))
        return rect

    def cards(self, area: pygame.Rect, count: int, gap: int) -> list[pygame.Rect]:
        w = (area.width - gap * (count - 1)) // count
        return [pygame.Rect(area.left + k * (w + gap), area.top, w, area.height) for k in range(count)]

    def draw_variant(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        variants = installed_variants(ctx.config)
        for rect, variant in zip(self.cards(area, max(1, len(variants)), lay.gap * 3), variants):
            self.draw_card(surface, ctx, rect, ctx.t(f"variants.{variant}.name"), ctx.t(f"variants.{variant}.short"),
                           palette.PANEL, lambda s, r, v=variant: self.draw_preview(s, ctx, r, v))
            self.buttons.add(f"variant.{variant}", rect, partial(self.choose_variant, variant))

    def draw_format(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        for rect, fmt in zip(self.cards(area, len(MATCH_FORMATS), lay.gap * 3), MATCH_FORMATS):
            self.draw_card(surface, ctx, rect, ctx.t(f"start.format.{fmt}.name"), ctx.t(f"start.format.{fmt}.text"),
                           palette.PANEL, lambda s, r, f=fmt: self.draw_format_icon(s, r, f))
            self.buttons.add(f"format.{fmt}", rect, partial(self.choose_format, fmt))

    def draw_side(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        variant = self.variant or "copenhagen"
        first = None
        try:
            _, _, first = start_position(variant)
        except Exception:   # noqa: BLE001 - the engine is the source of truth; without it, no "moves first" line
            first = None
        sides = ("attackers", "defenders", "lots") if self.match_format != "single" \
            else ("attackers", "defenders", "lots", "two")
        for rect, side in zip(self.cards(area, len(sides), lay.gap * 3), sides):
            if side == "two":
                self.draw_card(surface, ctx, rect, ctx.t("start.side.two.name"), ctx.t("start.side.two.text"),
                               palette.PANEL, lambda s, r: self.draw_two_icon(s, ctx, r))
                self.buttons.add("side.two", rect, lambda: self.choose_two_players(ctx))
                continue
            if side == "lots":
                name, text = ctx.t("start.side.lots.name"), ctx.t("start.side.lots.text")
            else:
                name = ctx.t(f"variants.{variant}.{side}", f"sides.{side}.name")
                text = ctx.t(f"sides.{side}.text")
                if first == side:
                    text += " " + ctx.t("start.side.moves_first")
            self.draw_card(surface, ctx, rect, name, text, palette.PANEL,
                           lambda s, r, sd=side: self.draw_side_icon(s, ctx, r, sd))
            self.buttons.add(f"side.{side}", rect, partial(self.choose_side, side))

    def draw_level(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        if self.lots and self.side:
            variant = self.variant or "copenhagen"
            note = ctx.t("start.side.lots.result", side=ctx.t(f"variants.{variant}.{self.side}", f"sides.{self.side}.name"),
                         pieces=ctx.t(f"game.pieces_{self.side}"))
            band = pygame.Rect(area.left, area.top, area.width, lay.font_body + lay.gap * 2)
            pygame.draw.rect(surface, palette.YELLOW, band, border_radius=10)
            draw_text(surface, note, band.center, lay.font_body, palette.TEXT_DARK, anchor="center")
            area = pygame.Rect(area.left, band.bottom + lay.gap * 2, area.width, area.bottom - band.bottom - lay.gap * 2)
        colours = {"easy": palette.BLUISH_GREEN, "medium": palette.SKY_BLUE, "hard": palette.ORANGE}
        for rect, level in zip(self.cards(area, 3, lay.gap * 3), LEVELS):
            reward = LEVEL_REWARD[level]
            text = ctx.t(f"levels.{level}.text") + " " + ctx.t(f"start.level.reward_{reward}")
            self.draw_card(surface, ctx, rect, ctx.t(f"levels.{level}.name"), text, colours[level],
                           lambda s, r, lv=level: self.draw_level_icon(s, ctx, r, lv))
            self.buttons.add(f"level.{level}", rect, partial(self.choose_level, ctx, level))

    def draw_waiting(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect) -> None:
        lay = ctx.layout
        text = ctx.t("start.waiting") if self.error is None else ctx.t("start.failed", error=self.error)
        draw_paragraph(surface, text, area.inflate(-lay.target, -lay.target), lay.font_heading, align="center",
                       valign="center")

    def draw_person_needed(self, surface: pygame.Surface, ctx: UiContext, area: pygame.Rect, problem: str) -> None:
        """The next game waits for a hand on the board (a piece the robot cannot find, a square to put right):
        say so, as the game screen does, rather than "a moment" that never ends.

        WHY: a visitor who took a captured piece off into the tray and touched "Play again" saw "The robot is
        tidying the board" for good, while the robot waited for someone to put a defender on e6 (Xvfb demo,
        4 Dec 2026). In the simulation a touch on the panel stands in for the visitor's hands, as a touch on
        a marked square does on the game screen."""
        lay = ctx.layout
        panel = area.inflate(-lay.target, -lay.gap * 2)
        draw_error_panel(surface, ctx, problem, panel, ctx.now)
        fix = dict(getattr(ctx.view, "fix_squares", {}) or {})
        if ctx.world is not None and fix and problem != "staff":
            self.buttons.add("put_right", panel, lambda: ctx.world.set_squares(fix))

    def draw_card(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, name: str, text: str,
                  colour: tuple[int, int, int], art) -> None:
        lay = ctx.layout
        radius = 18
        pygame.draw.rect(surface, palette.SHADOW, rect.move(0, 6), border_radius=radius)
        pygame.draw.rect(surface, colour, rect, border_radius=radius)
        pygame.draw.rect(surface, palette.PANEL_EDGE, rect, 2, border_radius=radius)
        ink = palette.on_colour(colour)
        pad = lay.gap * 2
        art_h = min(rect.width - 2 * pad, int(rect.height * 0.6))
        art_rect = pygame.Rect(rect.left + pad, rect.top + pad, rect.width - 2 * pad, art_h)
        art(surface, art_rect)
        fnt = fit_font(name, rect.width - 2 * pad, lay.font_heading)
        img = fnt.render(name, True, ink)
        surface.blit(img, img.get_rect(midtop=(rect.centerx, art_rect.bottom + lay.gap)))
        text_rect = pygame.Rect(rect.left + pad, art_rect.bottom + lay.gap * 2 + fnt.get_linesize(), rect.width - 2 * pad,
                                rect.bottom - pad - (art_rect.bottom + lay.gap * 2 + fnt.get_linesize()))
        draw_paragraph(surface, text, text_rect, lay.font_body if not lay.compact else lay.font_small, ink,
                       align="center", min_size=11)

    def draw_preview(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, variant: str) -> None:
        side = min(rect.width, rect.height)
        box = pygame.Rect(0, 0, side, side)
        box.center = rect.center
        spec = ctx.board_spec_for(variant)
        try:
            size, pieces, _ = start_position(variant)
        except Exception:   # noqa: BLE001 - no engine: an empty board of the right size
            size, pieces = spec.squares, {}
        geom = ScreenBoard(box, size, coordinates=False)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        draw_pieces(surface, geom, pieces, ctx.piece_scheme(), ctx.shaded())

    def draw_side_icon(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, side: str) -> None:
        scheme = ctx.piece_scheme()
        s = min(rect.width / 3.2, rect.height / 1.3)
        cx, cy = rect.center
        if side == "attackers":
            for dx in (-1, 0, 1):
                draw_piece(surface, (cx + dx * s, cy), s, "t", scheme, ctx.shaded())
        elif side == "defenders":
            draw_piece(surface, (cx - s, cy), s, "T", scheme, ctx.shaded())
            draw_piece(surface, (cx, cy), s * 1.15, "K", scheme, ctx.shaded())
            draw_piece(surface, (cx + s, cy), s, "T", scheme, ctx.shaded())
        else:
            # Two lots (sticks), one dark-tipped, one light-tipped, crossed.
            r = min(rect.width, rect.height) // 2 - 4
            for sign, piece in ((-1, "t"), (1, "T")):
                start = (cx - sign * r * 0.7, cy + r * 0.8)
                end = (cx + sign * r * 0.7, cy - r * 0.8)
                pygame.draw.line(surface, (200, 170, 120), start, end, max(6, r // 5))
                draw_piece(surface, end, s * 0.8, piece, scheme, ctx.shaded())
            draw_text(surface, "?", (cx, cy), int(r * 0.9), palette.YELLOW, anchor="center")

    def draw_two_icon(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect) -> None:
        """Two players: a dark and a light piece facing each other."""
        scheme = ctx.piece_scheme()
        d = min(rect.height, rect.width // 2) * 0.8
        draw_piece(surface, (rect.centerx - d * 0.55, rect.centery), d, "t", scheme, ctx.shaded())
        draw_piece(surface, (rect.centerx + d * 0.55, rect.centery), d, "T", scheme, ctx.shaded())

    def draw_level_icon(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, level: str) -> None:
        from kiosk.ui.avatar import draw_robot

        count = LEVELS.index(level) + 1
        star_r = min(rect.height // 5, rect.width // 8)
        robot = pygame.Rect(0, 0, rect.height - star_r * 2, rect.height - star_r * 2)
        robot.midtop = (rect.centerx, rect.top)
        draw_robot(surface, robot)
        for k in range(count):
            cx = rect.centerx + (k - (count - 1) / 2) * star_r * 2.4
            draw_star(surface, (cx, rect.bottom - star_r), star_r, palette.YELLOW)

    def draw_format_icon(self, surface: pygame.Surface, rect: pygame.Rect, fmt: str) -> None:
        h = min(rect.height, rect.width // 2)
        w = int(h * 0.68)
        labels = {"single": ["1"], "five_point": ["A", "2", "3", "4"], "two_game": ["1", "2"]}[fmt]
        total = len(labels) * w * 0.6 + w * 0.4
        x0 = rect.centerx - total / 2
        for k, label in enumerate(labels):
            card = pygame.Rect(int(x0 + k * w * 0.6), rect.top + (rect.height - h) // 2, w, h)
            pygame.draw.rect(surface, palette.SHADOW, card.move(3, 3), border_radius=8)
            pygame.draw.rect(surface, palette.TEXT, card, border_radius=8)
            pygame.draw.rect(surface, palette.TEXT_DARK, card, 2, border_radius=8)
            draw_text(surface, label, (card.left + w * 0.3, card.top + h * 0.2), int(h * 0.3), palette.TEXT_DARK,
                      anchor="center")


def draw_star(surface: pygame.Surface, centre: tuple[float, float], r: float, colour: tuple[int, int, int]) -> None:
    pts = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.45
        angle = -math.pi / 2 + k * math.pi / 5
        pts.append((centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle)))
    pygame.draw.polygon(surface, colour, pts)
    pygame.draw.polygon(surface, palette.TEXT_DARK, pts, 2)
