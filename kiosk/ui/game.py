"""The game screen: the board as the robot believes it, whose turn, captures, announcements,
the robot's state with progress, and Resign / End game (seed 002 "Playing here").

In simulation the visitor moves by touch (touch a piece, then one of the
dots) or with the arrow keys and Enter; the move goes to the simulated world,
never to the controller, which learns it through the camera as with real
hardware.
"""
from __future__ import annotations

import math
from typing import Any

import pygame

from kiosk.ui import palette, teach_panel
from kiosk.ui.avatar import draw_robot, draw_visitor
from kiosk.ui.board_view import (ScreenBoard, draw_board, draw_move_arrow, draw_piece, marked_squares,
                                 piece_code, square_name)
from kiosk.ui.context import BaseScreen, UiContext
from kiosk.ui.errors import (active_error, draw_choice_marks, draw_error_panel, draw_fix_marks,
                             robot_activity_text)
from kiosk.ui.game_board import card_values, draw_board_banner, draw_cards, draw_position
from kiosk.ui.rewards_screen import RecordQr, draw_large_qr, draw_take_home
from kiosk.ui.widgets import (draw_busy, draw_button, draw_panel, draw_paragraph, draw_progress, draw_text,
                              fit_font, icon_book, icon_flag_white, icon_stop)
from kiosk.states import State

ANNOUNCE_KINDS = ("raichi", "tuichu", "king_threatened", "shieldwall", "edge_fort", "resting",
                  "repetition_warning", "capture")


def side_value(side: Any) -> str | None:
    return None if side is None else str(getattr(side, "value", side))


# Outcomes without a winner that are not draws: the visitor (or the idle timeout) stopped the game.
STOPPED_REASONS = frozenset({"ended", "idle timeout", "abandoned"})

def split_rects(layout: Any) -> tuple[pygame.Rect, pygame.Rect]:
    """The board square on the left and the side panel on the right.

    The panel is at least three touch targets wide, so Rules / Resign /
    End game fit in one row of 20 mm buttons; on the 7" panel that makes the
    board a little smaller than the full height.
    """
    m = layout.margin
    panel_min = 3 * layout.target + 2 * layout.gap
    board_side = min(layout.height - 2 * m, layout.width - panel_min - 4 * m)
    board = pygame.Rect(m, m, board_side, board_side)
    panel = pygame.Rect(board.right + m * 2, m, layout.width - board.right - m * 3, layout.height - 2 * m)
    return board, panel




def result_title(ctx: UiContext, view: Any) -> tuple[str, tuple[int, int, int]]:
    """The heading of the result box and its colour: won, lost, a draw, or stopped without a winner."""
    outcome = view.outcome
    winner = side_value(outcome.winner)
    if winner is None and outcome.reason in STOPPED_REASONS:
        return ctx.t("museum.no_winner"), palette.SKY_BLUE     # End game: no winner, which is not a draw
    if winner is None:
        return ctx.t("result.draw"), palette.SKY_BLUE
    if view.exhibit.mode == "referee":               # two visitors: say which side won
        return ctx.t("referee.won", side=ctx.t(f"variants.{view.variant}.{winner}", f"sides.{winner}.name")), \
            palette.ORANGE
    if winner == side_value(view.visitor_side):
        return ctx.t("result.you_won"), palette.ORANGE
    return ctx.t("result.robot_won"), palette.SKY_BLUE

def side_label(ctx: UiContext, variant: str | None, side: str) -> str:
    """A side's name in this variant (Muscovites, Swedes...), else the general one."""
    return ctx.t(f"variants.{variant}.{side}", f"sides.{side}.name")


def referee_clocks(ctx: UiContext, view: Any) -> str:
    """Both sides' time so far, one line each (the referee keeps the clock, kiosk/exhibit.py)."""
    lines = []
    for side in ("attackers", "defenders"):
        seconds = int(view.exhibit.clocks.get(side, 0.0))
        name = side_label(ctx, view.variant, side)
        lines.append(ctx.t("referee.clock", side=name, time=f"{seconds // 60}:{seconds % 60:02d}"))
    return "\n".join(lines)


def capture_row_h(layout: Any) -> int:
    """The height of one row of captures in the side panel."""
    return int(layout.font_body + layout.gap)


def draw_capture(surface: pygame.Surface, ctx: UiContext, side: str, rect: pygame.Rect, text: str) -> None:
    """One side's captures in `rect`: the icon of the pieces `side` took, then `text` to its right."""
    lay = ctx.layout
    h = rect.height
    taken_icon = {"attackers": "T", "defenders": "t"}[side]
    draw_piece(surface, (rect.left + h // 2, rect.top + h // 2), h * 1.1, taken_icon, ctx.piece_scheme(), ctx.shaded())
    draw_paragraph(surface, text, pygame.Rect(rect.left + h + lay.gap, rect.top, rect.width - h - lay.gap, h),
                   lay.font_small, palette.TEXT, min_size=12, valign="center")


class GameScreen(BaseScreen):
    name = "game"

    def __init__(self) -> None:
        super().__init__()
        self.selected: int | None = None
        self.cursor: int | None = None
        self.confirm: str | None = None          # "resign" | "end" while asking
        self.geom: ScreenBoard | None = None
        self.seen_active = False
        self.camera_bad_since: float | None = None
        self.pending_since: float | None = None
        self.pending_stack = 0
        self.reward_recorded = False
        self.new_unlock: str | None = None
        self.record_qr = RecordQr()                # the take-home QR code on the result box
        self.qr_large = False                      # touched: the code as large as the screen allows
        self.board_focus = True                  # the keyboard drives the board's cursor (else the buttons)

    # ---- lifecycle ---------------------------------------------------------------------
    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        super().enter(ctx)
        self.selected = None
        self.confirm = None
        self.seen_active = False
        self.reward_recorded = False
        self.new_unlock = None
        self.qr_large = False
        self.pending_since = None
        self.cursor = None
        self.board_focus = True

    # ---- keyboard: the board's cursor, or the focus ring on the buttons ------------------
    def keyboard_on_board(self, ctx: UiContext) -> bool:
        """True while the arrow keys move the cursor on the board (then no focus ring is drawn)."""
        return self.board_focus and self.can_select(ctx)

    def wants_key(self, event: pygame.event.Event, ctx: UiContext) -> bool:
        """The board takes arrows, Enter and Escape while it has the keyboard; Tab goes to the buttons."""
        if not self.keyboard_on_board(ctx):
            if event.key == pygame.K_ESCAPE and self.confirm is None and self.can_select(ctx):
                self.board_focus = True           # back from the buttons to the board
                if ctx.focus is not None:
                    ctx.focus.visible = False
                return True
            return False
        if event.key == pygame.K_TAB:
            self.board_focus = False
            return False                           # the focus ring takes the Tab: first button
        return event.key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_UP, pygame.K_DOWN,
                             pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE, pygame.K_ESCAPE)

    def focus_past_edge(self, direction: tuple[int, int], ctx: UiContext) -> None:
        """Left from the left-most button returns the keyboard to the board."""
        if direction == (-1, 0) and self.can_select(ctx):
            self.board_focus = True
            if ctx.focus is not None:
                ctx.focus.visible = False

    def update(self, ctx: UiContext, dt: float) -> None:
        view = ctx.view
        if view is None:
            return
        state = view.state
        if state != State.IDLE:
            self.seen_active = True
        elif self.seen_active and view.outcome is None:
            ctx.navigate("attract")           # the game was stopped and the board cleared
            return
        if view.camera_ok:
            self.camera_bad_since = None
        elif self.camera_bad_since is None:
            self.camera_bad_since = ctx.now
        board = view.board
        stack = len(board.move_stack) if board is not None else 0
        if self.pending_since is not None and (stack != self.pending_stack or ctx.now - self.pending_since > 8.0
                                               or state != State.VISITOR_TURN):
            self.pending_since = None
        if not self.can_select(ctx):
            self.selected = None
        if view.outcome is not None and not self.reward_recorded:
            self.reward_recorded = True
            self.record_finished(ctx)

    def record_finished(self, ctx: UiContext) -> None:
        view = ctx.view
        if view.board is not None:
            ctx.finished_moves = list(view.board.move_stack)
            ctx.finished_variant = view.variant
        if view.exhibit.mode == "visitor" and side_value(view.outcome.winner) is not None \
                and side_value(view.outcome.winner) == side_value(view.visitor_side):    # no rewards for two players
            level = view.level or (ctx.request.level if ctx.request else "easy")
            try:
                self.new_unlock = ctx.rewards.record_win(level)
            except ValueError:
                self.new_unlock = None

    # ---- moving in simulation -----------------------------------------------------------
    def can_move(self, ctx: UiContext) -> bool:
        view = ctx.view
        return (ctx.world is not None and view is not None and view.state == State.VISITOR_TURN
                and view.board is not None and self.pending_since is None and self.confirm is None
                and (view.exhibit.mode == "referee" or side_value(view.board.turn) == side_value(view.visitor_side)))

    def showing(self, ctx: UiContext) -> bool:
        """The camera could not make out the visitor's move, and more moves are left than rings can
        offer (or "nothing moved" looked likeliest): the visitor shows theirs on this board, touching
        the piece and then the square it went to, among the moves the camera leaves (the view's
        `moves_possible`). On a real kiosk as in the simulation: it is the visitor's word."""
        view = ctx.view
        return (view is not None and view.state == State.FIX_BOARD and view.board is not None
                and not view.move_choices and bool(view.moves_possible))

    def can_select(self, ctx: UiContext) -> bool:
        """A piece on this board may be selected: to move it (simulation) or to show a move."""
        return self.can_move(ctx) or self.showing(ctx)

    def targets_of(self, ctx: UiContext, sq: int) -> list[int]:
        moves = ctx.view.moves_possible if self.showing(ctx) else ctx.view.board.legal_moves
        return [m.to_sq for m in moves if m.from_sq == sq]

    def own_piece(self, ctx: UiContext, sq: int) -> bool:
        piece = ctx.view.board.piece_at(sq)
        if piece is None:
            return False
        side = "attackers" if piece_code(piece) == "t" else "defenders"
        if ctx.view.exhibit.mode == "referee":          # two players: the side to move touches its own
            return side == side_value(ctx.view.board.turn)
        return side == side_value(ctx.view.visitor_side)

    def touch_square(self, ctx: UiContext, sq: int) -> None:
        """One touch (or Enter) on a square: select a piece, move to a dot, or drop the selection;
        asked which move was made, a ringed square says it went there; asked to show it, the piece
        and then the square it went to; in the simulation, a touch on a square marked to be put
        right puts it right."""
        view = ctx.view
        chosen = next((m for m in (view.move_choices if view is not None else ()) if m.to_sq == sq), None)
        choose = getattr(ctx.controller, "choose_move", None)
        if view is not None and view.state == State.FIX_BOARD and chosen is not None and choose is not None:
            choose(chosen.otn(view.board.size))     # "which move did you make?": the ringed square it went to
            return
        if self.showing(ctx) and choose is not None:
            self.cursor = sq
            if self.selected is not None and sq in self.targets_of(ctx, self.selected):
                shown = next(m for m in view.moves_possible if m.from_sq == self.selected and m.to_sq == sq)
                self.selected = None
                choose(shown.otn(view.board.size))  # "show me your move": the piece, then where it went
                return
            if self.targets_of(ctx, sq):
                self.selected = None if self.selected == sq else sq
                return
            self.selected = None
        if (ctx.world is not None and view is not None and view.state in (State.FIX_BOARD, State.PLACE_PIECE)
                and sq in view.fix_squares):
            # the screen's board stands in for the visitor's hands on the simulated board (the
            # real board is put right by hand): without this a demo asked to put a square back
            # had no way to do it
            ctx.world.set_squares({sq: view.fix_squares[sq]})
            return
        if not self.can_move(ctx):
            return
        self.cursor = sq
        if self.selected is not None and sq in self.targets_of(ctx, self.selected):
            from_sq, self.selected = self.selected, None
            self.pending_since = ctx.now
            self.pending_stack = len(ctx.view.board.move_stack)
            # the simulated visitor leaves the pieces the move captures on the board, as the kiosk asks
            # (game.captures_help): the robot takes them away in its turn. Taken off into the tray they
            # left the reset short of a piece, and every demo game with a capture ended asking a person.
            ctx.world.visitor_move(from_sq, sq, remove_captures=False)
            return
        if self.own_piece(ctx, sq) and self.targets_of(ctx, sq):
            self.selected = None if self.selected == sq else sq
        else:
            self.selected = None

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            if self.buttons.press(event.pos):
                return
            if self.geom is not None:
                sq = self.geom.square_at(event.pos)
                if sq is not None:
                    self.touch_square(ctx, sq)
        elif event.type == pygame.KEYDOWN and ctx.view is not None and ctx.view.board is not None:
            size = ctx.view.board.size
            if self.cursor is None:
                self.cursor = (size // 2) * size + size // 2
            rank, file = divmod(self.cursor, size)
            step = {pygame.K_LEFT: (0, -1), pygame.K_RIGHT: (0, 1), pygame.K_UP: (1, 0), pygame.K_DOWN: (-1, 0)}
            if event.key in step:
                dr, df = step[event.key]
                if df > 0 and file == size - 1 and ctx.focus is not None:
                    # Right past the board's edge: on to the buttons beside it.
                    self.board_focus = False
                    ctx.focus.visible = False
                    ctx.focus.move(self.buttons, (1, 0))
                    return
                rank = min(size - 1, max(0, rank + dr))
                file = min(size - 1, max(0, file + df))
                self.cursor = rank * size + file
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
                self.touch_square(ctx, self.cursor)
            elif event.key == pygame.K_ESCAPE:
                self.selected = None

    # ---- drawing ------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        self.buttons.clear()
        lay = ctx.layout
        view = ctx.view
        surface.fill(palette.BACKGROUND)
        board_rect, panel = split_rects(lay)
        variant = view.variant if view is not None else None
        board = view.board if view is not None else None
        size = board.size if board is not None else (9 if variant == "tablut" else 11)
        spec = ctx.board_spec_for(variant)
        self.geom = geom = ScreenBoard(board_rect, size)
        draw_board(surface, geom, spec.wood_rgb, spec.line_rgb, spec.marked_rgb, marked_squares(size))
        phase = ctx.now
        error = active_error(view, 0 if self.camera_bad_since is None else ctx.now - self.camera_bad_since)
        if board is not None:
            draw_position(surface, ctx, geom, self.selected, self.cursor, lambda sq: self.targets_of(ctx, sq))
            checking = getattr(view, "checking_move", None)
            if checking is not None and error is None:
                # the camera has seen the visitor's move; it is confirmed once the board is still
                draw_move_arrow(surface, geom, checking.from_sq, checking.to_sq, palette.SKY_BLUE)
        if ctx.match is not None and ctx.match.cards is not None:
            draw_cards(surface, ctx, geom)
        if error == "fix_board" and view.move_choices:
            draw_choice_marks(surface, geom, view.move_choices, phase)      # "which of these?": the panel asks
        elif error in ("fix_board", "place_piece") and not (self.selected is not None and self.showing(ctx)):
            # (showing their move, the visitor sees the piece they touched and its dots, not the fix)
            draw_fix_marks(surface, ctx, geom, dict(view.fix_squares or {}), phase)
        if error == "camera":
            shade = pygame.Surface(board_rect.size, pygame.SRCALPHA)
            shade.fill((20, 24, 30, 120))
            surface.blit(shade, board_rect)
        if view is not None and view.state in (State.SETUP, State.CLEARING) and error is None:
            # The pieces shown are the goal; the banner says what the robot is doing towards it.
            veil = pygame.Surface(geom.inner.size, pygame.SRCALPHA)
            veil.fill((*palette.BACKGROUND, 110))
            surface.blit(veil, geom.inner)
            draw_board_banner(surface, ctx, board_rect, robot_activity_text(ctx, view), view.progress)
        if error is not None:
            self.draw_error_side(surface, ctx, panel, error)
        else:
            self.draw_panel(surface, ctx, panel)
        if view is not None and view.outcome is not None and self.confirm is None:
            self.draw_game_over(surface, ctx)
        if self.confirm is not None:
            self.draw_confirm(surface, ctx)

    def draw_header(self, surface: pygame.Surface, ctx: UiContext, panel: pygame.Rect) -> int:
        lay = ctx.layout
        view = ctx.view
        ctx.draw_flag_button(surface, self.buttons)
        title_w = teach_panel.draw_hint_button(surface, ctx, self.buttons, lay.flag_rect) - panel.left - lay.gap
        variant = view.variant if view is not None and view.variant else (ctx.request.variant if ctx.request else "")
        level = view.level if view is not None and view.level else (ctx.request.level if ctx.request else "")
        name = ctx.t(f"variants.{variant}.name") if variant else ""
        fnt = fit_font(name, title_w, lay.font_heading)
        surface.blit(fnt.render(name, True, palette.TEXT), (panel.left, panel.top))
        if view is not None and view.exhibit.mode == "referee":
            title = ctx.t("referee.title")
            small = fit_font(title, title_w, lay.font_small)
            surface.blit(small.render(title, True, palette.TEXT_DIM), (panel.left, panel.top + fnt.get_linesize()))
        elif level:
            draw_text(surface, ctx.t("game.level_line", level=ctx.t(f"levels.{level}.name")),
                      (panel.left, panel.top + fnt.get_linesize()), lay.font_small, palette.TEXT_DIM)
        return max(panel.top + lay.target, lay.flag_rect.bottom) + lay.gap

    def draw_panel(self, surface: pygame.Surface, ctx: UiContext, panel: pygame.Rect) -> None:
        lay = ctx.layout
        view = ctx.view
        g = lay.gap
        y = self.draw_header(surface, ctx, panel)
        buttons_top = self.draw_buttons(surface, ctx, panel)
        if view is None:
            return
        # Turn card: both avatars, the one to move framed; the status in words below them.
        referee = view.exhibit.mode == "referee"
        visitor_to_move = (view.board is not None and view.state in (State.VISITOR_TURN, State.FIX_BOARD)
                           and (referee or side_value(view.board.turn) == side_value(view.visitor_side)))
        robot_busy = view.state in (State.THINKING, State.ROBOT_MOVING, State.VERIFY, State.SETUP, State.CLEARING)
        av = int(lay.target * 0.6) if lay.compact else min(lay.target, panel.width // 4)
        status_h = lay.font_body * (1 if lay.compact else 2) + g
        bar_h = lay.mm(3)
        card = pygame.Rect(panel.left, y, panel.width, av + lay.font_small + status_h + bar_h + g * 5)
        draw_panel(surface, card, palette.PANEL)
        you = pygame.Rect(card.left + g * 2, card.top + g, av, av)
        bot = pygame.Rect(card.right - g * 2 - av, card.top + g, av, av)
        if referee and view.board is not None:      # two visitors: one avatar per side, the one to move framed
            turn = side_value(view.board.turn)
            for rect, side in ((you, "attackers"), (bot, "defenders")):
                draw_visitor(surface, rect, crown=False, active=visitor_to_move and turn == side)
                draw_text(surface, side_label(ctx, view.variant, side), (rect.centerx, rect.bottom), lay.font_small,
                          anchor="midtop")
        else:
            draw_visitor(surface, you, crown=ctx.rewards.unlocks.crown, active=visitor_to_move)
            draw_robot(surface, bot, phase=ctx.now * 2 if robot_busy else 0.0, active=robot_busy)
            draw_text(surface, ctx.t("game.you"), (you.centerx, you.bottom), lay.font_small, anchor="midtop")
            draw_text(surface, ctx.t("game.robot"), (bot.centerx, bot.bottom), lay.font_small, anchor="midtop")
        you_side = side_value(view.visitor_side)
        if referee and view.variant:
            # two visitors: each side's clock, the one to move running
            mid = pygame.Rect(you.right + g, you.top, bot.left - you.right - 2 * g, av)
            draw_paragraph(surface, referee_clocks(ctx, view), mid, lay.font_small, palette.TEXT, align="left",
                           valign="center", min_size=10)
        elif you_side and view.variant:
            # Which side is the visitor's, and which pieces: said in words beside "You".
            side_name = ctx.t(f"variants.{view.variant}.{you_side}", f"sides.{you_side}.name")
            mid = pygame.Rect(you.right + g, you.top, bot.left - you.right - 2 * g, av)
            text = ctx.t("game.you_play", side=side_name, pieces=ctx.t(f"game.pieces_{you_side}"))
            draw_paragraph(surface, text, mid, lay.font_small, palette.TEXT, align="left", valign="center",
                           min_size=10)
        resetting = bool(getattr(view, "resetting", False))
        if view.outcome is not None and resetting:
            status = ctx.t("museum.reset_progress", percent=str(int(view.progress * 100)))
        elif view.outcome is not None:
            status = ctx.t("game.over")
        elif self.pending_since is not None or getattr(view, "checking_move", None) is not None:
            status = ctx.t("game.checking_move")
        elif visitor_to_move and referee:
            turn = side_value(view.board.turn)
            status = ctx.t("referee.to_move", side=ctx.t(f"variants.{view.variant}.{turn}", f"sides.{turn}.name"))
        elif visitor_to_move:
            status = ctx.t("game.your_turn_touch" if ctx.world is not None else "game.your_turn")
        elif robot_busy:
            status = robot_activity_text(ctx, view)
        else:
            status = ctx.t("game.waiting")
        status_rect = pygame.Rect(card.left + g * 2, you.bottom + lay.font_small + g, card.width - g * 4, status_h)
        draw_paragraph(surface, status, status_rect, lay.font_body, palette.TEXT, align="center", min_size=lay.font_small,
                       valign="center")
        if robot_busy or resetting:
            bar = pygame.Rect(status_rect.left, status_rect.bottom + g, status_rect.width, bar_h)
            if view.state == State.THINKING:
                draw_busy(surface, bar, ctx.now)
            else:
                draw_progress(surface, bar, view.progress)
        y = card.bottom + g * 2
        # The boxes leave the captures their row above the buttons when they fit without it; only the
        # teaching box and the first announcement take it if that is their only way on (draw_captures).
        shows_captures = view.board is not None and you_side is not None
        keep = buttons_top - capture_row_h(lay) if shows_captures else buttons_top
        top = y
        y = teach_panel.draw_box(surface, ctx, panel, y, keep)      # teaching: the reason or the hint
        if y == top:
            y = teach_panel.draw_box(surface, ctx, panel, y, buttons_top)
        # Announcements after the last move.
        kinds = [k for k in ANNOUNCE_KINDS if k in (view.announcements or ()) and k != "capture"]
        if view.last_captures and view.outcome is None:
            kinds.insert(0, "museum.captures_help")      # where a captured piece goes (docs/rules.md)
        for index, kind in enumerate(kinds[:2]):
            box_h = min(keep - y - g * 2, lay.font_body * 2 + g * 2)
            if box_h < lay.font_body * 1.5 and index == 0:
                box_h = min(buttons_top - y - g * 2, lay.font_body * 2 + g * 2)
            if box_h < lay.font_body * 1.5:
                break
            box = pygame.Rect(panel.left, y, panel.width, box_h)
            draw_panel(surface, box, palette.YELLOW, edge=palette.TEXT_DARK, radius=12)
            draw_paragraph(surface, ctx.t(kind if "." in kind else f"announce.{kind}"), box.inflate(-g * 2, -g),
                           lay.font_body, palette.TEXT_DARK, align="center", min_size=12, valign="center")
            y = box.bottom + g * 2
        if shows_captures and you_side is not None:
            y = self.draw_captures(surface, ctx, panel, you_side, y, buttons_top)
        # The last move in words, with who made it.
        if view.last_move is not None and view.board is not None and not lay.compact and y + lay.font_body < buttons_top:
            size = view.board.size
            mover = "you" if side_value(view.board.turn) != you_side else "robot"
            squares = {"from": square_name(view.last_move.from_sq, size), "to": square_name(view.last_move.to_sq, size)}
            text = ctx.t("referee.last_move", **squares) if referee else ctx.t(f"game.last_move_{mover}", **squares)
            draw_text(surface, text, (panel.left, y + g), lay.font_small, palette.LAST_MOVE)
            y += lay.font_small + g * 2
        # York card match: the cards in words at a readable size (the cards on the frame are small).
        if ctx.match is not None and ctx.match.cards is not None and y + lay.font_small < buttons_top:
            shown = [f"{ctx.t('match.edge_' + edge)} {value}" for edge, value in card_values(ctx.match).items()
                     if value is not None]
            if shown:
                draw_paragraph(surface, ctx.t("game.cards", cards=", ".join(shown)),
                               pygame.Rect(panel.left, y + g, panel.width, buttons_top - y - g), lay.font_small,
                               palette.TEXT, min_size=lay.font_small)

    def draw_captures(self, surface: pygame.Surface, ctx: UiContext, panel: pygame.Rect, you_side: str, y: int,
                      bottom: int) -> int:
        """Both sides' captures from `y` (the visitor plays `you_side`), each with the icon of the
        pieces taken (so colour is not the only cue); returns the new y.

        Two rows in words ("You captured 2", "The robot captured 3") when both fit above `bottom`,
        else both counts side by side on one row ("You: 2", "Robot: 3": the 7" panel's layout), so
        one side's count is never shown without the other's: a visitor must be able to see how many
        pieces the robot has taken. The boxes above leave that one row free whenever they can still
        be shown without it (GameScreen.draw_panel): the tally matters more than a second
        announcement, which then waits. Only the teaching box (the hint the visitor asked for, or the
        robot's reason) and the first announcement take the row when that is their only way onto the
        screen, as on the 7" panel, whose side panel has room for one of them or for the counts, not
        both: they say what the move just made means and what to do now, they go with the next move,
        and the counts are back then.
        """
        lay = ctx.layout
        view = ctx.view
        row_h = capture_row_h(lay)
        if y + row_h > bottom:
            return y
        one_row = lay.compact or y + 2 * row_h > bottom
        key = "captured_short" if one_row else "captured"
        robot_side = "defenders" if you_side == "attackers" else "attackers"
        half = panel.width // 2
        for k, (who, side) in enumerate((("you", you_side), ("robot", robot_side))):
            count = int((view.captured or {}).get(side, 0))
            text = ctx.t(f"referee.{key}", side=side_label(ctx, view.variant, side), count=count) \
                if view.exhibit.mode == "referee" else ctx.t(f"game.{key}_{who}", count=count)
            rect = pygame.Rect(panel.left + k * half, y, half, row_h) if one_row else \
                pygame.Rect(panel.left, y + k * row_h, panel.width, row_h)
            draw_capture(surface, ctx, side, rect, text)
        return y + (row_h if one_row else 2 * row_h)

    def draw_buttons(self, surface: pygame.Surface, ctx: UiContext, panel: pygame.Rect) -> int:
        """Rules / Resign / End game along the bottom; returns the top of the button area."""
        lay = ctx.layout
        view = ctx.view
        in_game = view is not None and view.outcome is None and view.state not in (State.IDLE, State.CLEARING)
        h = lay.target
        specs = [("rules", ctx.t("game.rules"), palette.SECONDARY, icon_book, True,
                  lambda: ctx.navigate("rules", variant=(view.variant if view else None), back="game")),
                 ("resign", ctx.t("game.resign"), palette.DANGER, icon_flag_white, in_game, lambda: self.ask("resign")),
                 ("end", ctx.t("game.end"), palette.PANEL_EDGE, icon_stop, in_game, lambda: self.ask("end"))]
        per_row = 3 if panel.width >= 3 * h + 2 * lay.gap else 2
        rows = math.ceil(len(specs) / per_row)
        top = panel.bottom - rows * h - (rows - 1) * lay.gap
        for index, (key, label, colour, icon, enabled, action) in enumerate(specs):
            row, col = divmod(index, per_row)
            count = min(per_row, len(specs) - row * per_row)
            w = (panel.width - (count - 1) * lay.gap) // count
            rect = pygame.Rect(panel.left + col * (w + lay.gap), top + row * (h + lay.gap), w, h)
            draw_button(surface, rect, label, lay.font_button, colour, enabled=enabled, icon=icon)
            self.buttons.add(key, rect, action, enabled)
        return top

    def ask(self, what: str) -> None:
        self.confirm = what
        self.selected = None

    def draw_confirm(self, surface: pygame.Surface, ctx: UiContext) -> None:
        lay = ctx.layout
        self.buttons.clear()
        dim = pygame.Surface((lay.width, lay.height), pygame.SRCALPHA)
        dim.fill((0, 0, 0, 160))
        surface.blit(dim, (0, 0))
        box = pygame.Rect(0, 0, min(lay.width - 2 * lay.margin, lay.target * 6), lay.target * 3 + lay.gap * 4)
        box.center = lay.rect.center
        draw_panel(surface, box, palette.PANEL)
        question = ctx.t(f"game.confirm_{self.confirm}")
        draw_paragraph(surface, question, pygame.Rect(box.left + lay.gap * 3, box.top + lay.gap * 2, box.width - lay.gap * 6,
                                                      box.height - lay.target - lay.gap * 6),
                       lay.font_heading, align="center", min_size=lay.font_small, valign="center")
        w = (box.width - lay.gap * 9) // 2
        yes = pygame.Rect(box.left + lay.gap * 3, box.bottom - lay.gap * 3 - lay.target, w, lay.target)
        no = pygame.Rect(yes.right + lay.gap * 3, yes.top, w, lay.target)
        draw_button(surface, yes, ctx.t(f"game.confirm_{self.confirm}_yes"), lay.font_button, palette.DANGER)
        draw_button(surface, no, ctx.t("game.confirm_no"), lay.font_button, palette.PRIMARY)
        self.buttons.add("confirm_yes", yes, lambda: self.confirmed(ctx))
        self.buttons.add("confirm_no", no, self.cancel_confirm)

    def cancel_confirm(self) -> None:
        self.confirm = None

    def confirmed(self, ctx: UiContext) -> None:
        what, self.confirm = self.confirm, None
        if what == "resign":
            ctx.controller.resign()
        elif what == "end":
            ctx.controller.end_game()

    def draw_error_side(self, surface: pygame.Surface, ctx: UiContext, panel: pygame.Rect, error: str) -> None:
        lay = ctx.layout
        y = self.draw_header(surface, ctx, panel)
        top = self.draw_buttons(surface, ctx, panel)
        draw_error_panel(surface, ctx, error, pygame.Rect(panel.left, y, panel.width, top - y - lay.gap), ctx.now,
                         self.buttons, getattr(ctx.controller, "choose_move", None),
                         getattr(ctx.controller, "hands_off", None))

    def draw_game_over(self, surface: pygame.Surface, ctx: UiContext) -> None:
        lay = ctx.layout
        view = ctx.view
        outcome = view.outcome
        winner = side_value(outcome.winner)
        title, colour = result_title(ctx, view)
        board_rect, panel = split_rects(lay)
        matrix = self.record_qr.matrix_for(ctx)          # the game to take home (kiosk/record.py)
        box = pygame.Rect(0, 0, int(board_rect.width * (0.96 if matrix else 0.86)),
                          int(board_rect.height * (0.92 if matrix else 0.62)))
        box.center = board_rect.center
        draw_panel(surface, box, palette.PANEL, edge=colour)
        band = pygame.Rect(box.left, box.top, box.width, lay.font_title + lay.gap * 3)
        pygame.draw.rect(surface, colour, band, border_top_left_radius=16, border_top_right_radius=16)
        fnt = fit_font(title, band.width - lay.gap * 4, lay.font_title)
        img = fnt.render(title, True, palette.on_colour(colour))
        surface.blit(img, img.get_rect(center=band.center))
        reason = ctx.t(f"reasons.{outcome.reason}", "reasons.other", reason=outcome.reason)
        text_rect = pygame.Rect(box.left + lay.gap * 3, band.bottom + lay.gap * 2, box.width - lay.gap * 6,
                                box.bottom - band.bottom - lay.target - lay.gap * 6)
        if matrix:
            column = pygame.Rect(text_rect.left, band.bottom + lay.gap, text_rect.width,
                                 box.bottom - band.bottom - lay.target - lay.gap * 4)
            text_rect.width -= draw_take_home(surface, ctx, matrix, column, self.buttons, self.toggle_qr) + lay.gap * 2
        body = reason
        if self.new_unlock:
            body += "\n" + ctx.t(f"rewards.unlocked_{self.new_unlock}")
        match = ctx.match
        in_match = match is not None and match.format != "single"
        if in_match:
            if match.last_exit_edges:
                edge = max(match.last_exit_edges, key=match.card_points)
                body += "\n" + ctx.t("match.card", edge=ctx.t(f"match.edge_{edge}"), card=match.last_cards[edge])
            you, robot = match.scores()
            body += "\n" + ctx.t("match.score", you=you, robot=robot)
            if match.over:
                body += "\n" + ctx.t({"visitor": "match.won", "robot": "match.lost"}.get(match.winner() or "",
                                                                                      "match.tied"))
        bottom = draw_paragraph(surface, body, text_rect, lay.font_body, align="center", min_size=lay.font_small)
        art_h = min(text_rect.bottom - bottom - lay.gap, text_rect.width)
        if art_h > lay.target // 2:
            art = pygame.Rect(0, 0, art_h, art_h)
            art.midbottom = (text_rect.centerx, text_rect.bottom)
            if winner is not None and (winner == side_value(view.visitor_side) or view.exhibit.mode == "referee"):
                draw_visitor(surface, art, crown=ctx.rewards.unlocks.crown and view.exhibit.mode != "referee",
                             active=True)
            elif winner is not None:
                draw_robot(surface, art, active=True)
        # Buttons under the box in the panel-free area: continue to reward, play again, done.
        specs = []
        if self.new_unlock or ctx.rewards.unlocks.names():
            specs.append(("reward", ctx.t("result.see_reward"), palette.PRIMARY,
                          lambda: ctx.navigate("rewards", new=self.new_unlock)))
        if in_match and not match.over:
            specs.append(("next", ctx.t("match.next_game"), palette.PRIMARY if not specs else palette.SECONDARY,
                          lambda: ctx.navigate("start", next_game=True)))   # the controller swaps sides, deals cards
        else:
            specs.append(("again", ctx.t("result.play_again"), palette.PRIMARY if not specs else palette.SECONDARY,
                          lambda: self.leave(ctx, "start", repeat=not in_match)))
        specs.append(("done", ctx.t("result.done"), palette.PANEL_EDGE, lambda: self.leave(ctx, "attract")))
        w = (box.width - lay.gap * (2 + 2 * len(specs))) // len(specs)
        x = box.left + lay.gap * 2
        for key, label, col, action in specs:
            rect = pygame.Rect(x, box.bottom - lay.gap * 2 - lay.target, w, lay.target)
            draw_button(surface, rect, label, lay.font_button, col)
            self.buttons.add(key, rect, action)
            x += w + lay.gap * 2
        if matrix and self.qr_large:
            draw_large_qr(surface, lay, matrix, self.buttons, self.toggle_qr)

    def toggle_qr(self) -> None:
        self.qr_large = not self.qr_large

    def leave(self, ctx: UiContext, where: str, **kwargs: Any) -> None:
        ctx.leave_result(where, **kwargs)
