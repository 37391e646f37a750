"""Attract mode: a game replayed on screen and "touch to play"; any touch starts.

While the robot plays itself on the real board (self-play, kiosk/exhibit.py)
the screen shows that game, live, and narrates each move with its reasons; a
touch stops it and the hand-over screen follows (kiosk/ui/handover.py).
A "How to play" button opens the rules (any other touch starts). It replays the last game played at the kiosk, or else a real Copenhagen
game (a record from aagenielsen.dk in which the king escapes to a corner),
one move every second with the piece sliding. Staff get in by touching the
top-left corner five times within three seconds (or F12 on a keyboard); a
PIN follows.
"""
from __future__ import annotations

import math
from typing import Any

import pygame

from engine import Board
from kiosk.ui import palette
from kiosk.ui.board_view import ScreenBoard, draw_board, draw_capture_mark, draw_piece, draw_pieces, outline_square
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.widgets import draw_button, draw_paragraph, draw_text, fit_font, icon_book, icon_play

DEMO_VARIANT = "copenhagen"
DEMO_GAME = ("d1-d3 e5-e2 g1-g2 e2-b2 e1-b1 f4-c4 f1-c1 e7-e10 g11-g9 e10-b10 b6-b8 d6-d9 a8-a9 h6-h9 g9-g10 "
             "e6-e1 d3-b3 f6-c6 d11-c11 c6-c10 a9-b9 b10-a10 b9-b10 a10-a9 b10-a10 c10-b10 c11-b11 a9-c9 "
             "j6-h6 c9-a9 f2-f4 b10-a10 a7-c7 a10-a11").split()
MOVE_EVERY_S = 1.1
SLIDE_S = 0.45
END_PAUSE_S = 4.0
STAFF_TAPS = 5
STAFF_WINDOW_S = 3.0


class Replay:
    """Steps through a list of moves on an engine Board, restarting at the end."""

    def __init__(self, variant: str, moves: list[Any]) -> None:
        self.variant = variant
        self.moves = moves
        self._restart()

    def _restart(self) -> None:
        """Back to the start position, the first move next."""
        self.board = Board(self.variant)
        self.index = 0
        self.last_move: Any = None
        self.last_captures: tuple[int, ...] = ()
        self.moved_at = 0.0
        self.prev_pieces: dict[int, Any] = self.board.pieces()

    def step(self, now: float) -> None:
        if self.index >= len(self.moves):
            if now - self.moved_at >= END_PAUSE_S:
                self._restart()
                self.moved_at = now
            return
        if now - self.moved_at < MOVE_EVERY_S:
            return
        move = self.moves[self.index]
        if isinstance(move, str):
            move = self.board.parse_move(move)
        self.prev_pieces = self.board.pieces()
        self.last_captures = tuple(self.board.push(move))
        self.last_move = move
        self.index += 1
        self.moved_at = now


def selfplay_view(ctx: UiContext) -> Any:
    """The controller's view while the robot plays itself on the board, else None."""
    view = ctx.view
    if view is None or view.board is None or view.exhibit.mode != "selfplay" or view.outcome is not None:
        return None
    return view


def narration(ctx: UiContext, view: Any) -> str:
    """What the screen says about the robot's last self-play move: who played what, and why
    (the teaching reasons, kiosk/teaching.py, in the narrator's voice)."""
    from kiosk.teaching import reasons_text

    text = ctx.t("exhibit.selfplay_text")
    board = view.board
    if view.last_move is None or not board.move_stack:
        return text
    mover = "defenders" if str(getattr(board.turn, "value", board.turn)) == "attackers" else "attackers"
    said = ctx.t("exhibit.move", side=ctx.t(f"variants.{view.variant}.{mover}", f"sides.{mover}.name"),
                 move=view.last_move.otn(board.size))
    teaching = view.teaching
    if teaching.robot_reasons and teaching.robot_ply == view.ply:
        said += " " + reasons_text(ctx.texts, "narrate", teaching.robot_reasons, board.size)
    return said + "\n" + text


def make_replay(ctx: UiContext) -> Replay | None:
    """The last game played here if there was one, else the demo game; None if it cannot be replayed."""
    try:
        if ctx.finished_moves and ctx.finished_variant:
            return Replay(ctx.finished_variant, list(ctx.finished_moves))
        return Replay(DEMO_VARIANT, list(DEMO_GAME))
    except ValueError:
        return None


class AttractScreen(BaseScreen):
    name = "attract"

    def __init__(self) -> None:
        super().__init__()
        self.replay: Replay | None = None
        self.taps: list[float] = []
        self.board_rect = pygame.Rect(0, 0, 0, 0)

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        self.replay = make_replay(ctx)
        if self.replay is not None:
            self.replay.moved_at = ctx.now
        self.taps = []

    def wants_key(self, event: pygame.event.Event, ctx: UiContext) -> bool:
        """Enter starts a game unless the keyboard focus is on a button (then it presses that)."""
        focus_shown = ctx.focus is not None and ctx.focus.visible
        return event.key == pygame.K_F12 or (event.key in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_KP_ENTER)
                                             and not focus_shown)

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.KEYDOWN and event.key == pygame.K_F12:
            ctx.navigate("pin")
            return
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            corner = pygame.Rect(0, 0, ctx.layout.target, ctx.layout.target)
            if corner.collidepoint(event.pos):
                self.taps = [t for t in self.taps if ctx.now - t <= STAFF_WINDOW_S] + [ctx.now]
                if len(self.taps) >= STAFF_TAPS:
                    ctx.navigate("pin")
                return
            if self.buttons.press(event.pos):
                return
            ctx.navigate("start")
        elif event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_KP_ENTER):
            ctx.navigate("start")

    def update(self, ctx: UiContext, dt: float) -> None:
        if self.replay is not None:
            try:
                self.replay.step(ctx.now)
            except ValueError:
                self.replay = None      # a record this engine cannot replay: show the title alone

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        surface.fill(palette.BACKGROUND)
        # Soft diagonal bands: a finished backdrop rather than a flat fill.
        for k in range(0, lay.width + lay.height, lay.target):
            pygame.draw.line(surface, palette.BACKGROUND_LIGHT, (k, 0), (k - lay.height, lay.height), lay.target // 3)
        m = lay.margin
        flag = lay.flag_rect
        board_side = min(lay.height - 2 * m, int((flag.left - lay.gap - 2 * m) * 0.6))
        board_rect = pygame.Rect(flag.left - lay.gap - board_side, (lay.height - board_side) // 2, board_side, board_side)
        self.board_rect = board_rect
        live = selfplay_view(ctx)
        if live is not None:
            self.draw_live(surface, ctx, board_rect, live)
        else:
            self.draw_replay(surface, ctx, board_rect)
        left = pygame.Rect(m * 2, m, board_rect.left - m * 4, lay.height - 2 * m)
        title = ctx.t("attract.title")
        fnt = fit_font(title, left.width, int(lay.font_title * 1.25))
        y = left.top + lay.target // 2
        surface.blit(fnt.render(title, True, palette.ORANGE), (left.left, y))
        y += fnt.get_linesize()
        subtitle = ctx.t("exhibit.selfplay_title") if live is not None else ctx.t("attract.subtitle")
        y = draw_paragraph(surface, subtitle, pygame.Rect(left.left, y, left.width, lay.font_heading * 3),
                           lay.font_heading, palette.TEXT, min_size=lay.font_body) + lay.gap * 2
        play = pygame.Rect(left.left, left.bottom - int(lay.target * 1.4), left.width, int(lay.target * 1.4))
        rules = pygame.Rect(left.left, play.top - lay.gap * 3 - lay.target, left.width, lay.target)
        blurb = pygame.Rect(left.left, y, left.width, rules.top - y - lay.gap)
        if blurb.height >= lay.font_small * 3:      # the 7" panel has no room for it beside the buttons
            text = narration(ctx, live) if live is not None else ctx.t("attract.blurb")
            draw_paragraph(surface, text, blurb, lay.font_body, palette.TEXT if live is not None else palette.TEXT_DIM,
                           min_size=lay.font_small)
        draw_button(surface, rules, ctx.t("teach.how_to_play"), lay.font_button, palette.SECONDARY, icon=icon_book)
        self.buttons.add("rules", rules, lambda: ctx.navigate("rules", variant=DEMO_VARIANT, back="attract"))
        pulse = 0.5 + 0.5 * math.sin(ctx.now * 2 * math.pi / 1.6)
        glow = play.inflate(int(12 * pulse) + 6, int(12 * pulse) + 6)
        pygame.draw.rect(surface, palette.YELLOW, glow, border_radius=glow.height // 4)
        draw_button(surface, play, ctx.t("attract.touch"), lay.font_title, palette.PRIMARY, icon=icon_play)
        self.buttons.add("play", play, lambda: ctx.navigate("start"))
        ctx.draw_flag_button(surface, self.buttons)

    def draw_live(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect, view: Any) -> None:
        """The robot's self-play on the real board, as the camera confirmed it (kiosk/exhibit.py)."""
        spec = ctx.board_spec_for(view.variant)
        geom = ScreenBoard(rect, view.board.size, coordinates=False)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        move = view.last_move
        if move is not None:
            outline_square(surface, geom, move.from_sq, palette.LAST_MOVE, 0.06, fill_alpha=50)
            outline_square(surface, geom, move.to_sq, palette.LAST_MOVE, 0.08, fill_alpha=80)
        draw_pieces(surface, geom, view.board.pieces(), ctx.piece_scheme(), ctx.shaded())
        for sq in view.last_captures:
            draw_capture_mark(surface, geom, sq)

    def draw_replay(self, surface: pygame.Surface, ctx: UiContext, rect: pygame.Rect) -> None:
        replay = self.replay
        variant = replay.variant if replay is not None else DEMO_VARIANT
        spec = ctx.board_spec_for(variant)
        size = replay.board.size if replay is not None else spec.squares
        geom = ScreenBoard(rect, size, coordinates=False)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb)
        if replay is None:
            return
        scheme = ctx.piece_scheme()
        pieces = replay.board.pieces()
        move = replay.last_move
        t = min(1.0, (ctx.now - replay.moved_at) / SLIDE_S) if move is not None else 1.0
        if move is not None:
            outline_square(surface, geom, move.from_sq, palette.LAST_MOVE, 0.06, fill_alpha=50)
            outline_square(surface, geom, move.to_sq, palette.LAST_MOVE, 0.08, fill_alpha=80)
        if move is not None and t < 1.0:
            draw_pieces(surface, geom, pieces, scheme, ctx.shaded(), skip={move.to_sq})
            for sq in replay.last_captures:         # captured pieces fade out while the mover slides
                if sq in replay.prev_pieces:
                    draw_piece(surface, geom.centre(sq), geom.square, replay.prev_pieces[sq], scheme, ctx.shaded(),
                               alpha=int(255 * (1 - t)))
            ease = t * t * (3 - 2 * t)
            a, b = geom.centre(move.from_sq), geom.centre(move.to_sq)
            pos = (a[0] + (b[0] - a[0]) * ease, a[1] + (b[1] - a[1]) * ease)
            draw_piece(surface, pos, geom.square, pieces[move.to_sq], scheme, ctx.shaded())
        else:
            draw_pieces(surface, geom, pieces, scheme, ctx.shaded())
            for sq in replay.last_captures:
                draw_capture_mark(surface, geom, sq)
        outcome = replay.board.outcome()
        if outcome is not None and replay.index >= len(replay.moves):
            winner = str(getattr(outcome.winner, "value", outcome.winner))
            text = ctx.t(f"attract.replay_won_{winner}", "attract.replay_over")
            band = pygame.Rect(rect.left, rect.centery - ctx.layout.font_heading, rect.width, ctx.layout.font_heading * 2)
            shade = pygame.Surface(band.size, pygame.SRCALPHA)
            shade.fill((20, 24, 30, 200))
            surface.blit(shade, band)
            draw_text(surface, text, band.center, ctx.layout.font_heading, palette.YELLOW, anchor="center")
