"""Keyboard only: every screen and dialog is driven by arrow keys, Tab, Enter and Escape, with a visible ring.

The frames are real pygame frames; the ring is found by its colour around the
focused button, so a ring that is not drawn (or drawn elsewhere) fails.
"""
from __future__ import annotations

import pygame

from engine import Side
from kiosk.simworld import SimWorld
from kiosk.ui import focus as focus_module
from kiosk.ui.screenshots import game_view, idle_view
from tests.helpers.ui import key, make_app, make_config
from tests.helpers.ui import clean_queue, click, count_colour, find_button  # noqa: F401 - clean_queue is an autouse fixture


def ring_pixels(app, button_key: str) -> int:
    """Pixels of the ring's colour in a thin frame just outside the button ``button_key``."""
    rect = find_button(app, button_key).rect
    outer = rect.inflate(24, 24)
    total = count_colour(app.surface, outer, focus_module.RING, tolerance=6)
    inside = count_colour(app.surface, rect.inflate(-4, -4), focus_module.RING, tolerance=6)
    return total - inside


def press(app, k, unicode: str = "") -> None:
    key(k, unicode)
    app.step()


def focus_on(app, button_key: str, max_presses: int = 30) -> None:
    """Walk the ring with the arrow keys (Right, then Down) until ``button_key`` has it."""
    for direction in (pygame.K_RIGHT, pygame.K_DOWN, pygame.K_LEFT, pygame.K_UP) * 3:
        for _ in range(max_presses // 4):
            if app.focus.visible and app.focus.key == button_key:
                return
            before = app.focus.key
            press(app, direction)
            if app.focus.key == before and app.focus.visible:
                break
    assert app.focus.key == button_key, f"the arrows never reached {button_key!r}; ring on {app.focus.key!r}"


def test_a_keyboard_only_visitor_starts_a_game():
    app = make_app(idle_view())
    app.step()
    press(app, pygame.K_RETURN)                   # attract: Enter starts
    assert app.screen_name == "start"
    for choice in ("variant.copenhagen", "side.attackers", "level.easy"):
        focus_on(app, choice)
        assert ring_pixels(app, choice) > 40, f"no visible focus ring around {choice}"
        press(app, pygame.K_RETURN)
    assert app.screen_name == "game"
    calls = [c for c in app.ctx.controller.calls if c[0] == "start_game"]
    assert calls and calls[0][1][0] == "copenhagen" and calls[0][1][2] == Side("attackers")
    assert calls[0][1][3] == "easy"


def test_escape_goes_back_a_page_and_the_ring_follows():
    app = make_app(idle_view())
    app.step()
    press(app, pygame.K_RETURN)
    focus_on(app, "variant.copenhagen")
    press(app, pygame.K_RETURN)
    assert app.ctx.controller.calls == [] and app.current.page == "side"
    press(app, pygame.K_ESCAPE)
    assert app.screen_name == "start" and app.current.page == "variant"


def test_a_touch_hides_the_ring_and_the_keyboard_brings_it_back():
    app = make_app(idle_view())
    app.step()
    press(app, pygame.K_RETURN)
    press(app, pygame.K_DOWN)
    focused = app.focus.key
    assert focused is not None and ring_pixels(app, focused) > 40
    click((2, app.ctx.layout.height - 2))        # a touch on empty glass
    app.step()
    assert ring_pixels(app, focused) == 0
    press(app, pygame.K_TAB)
    assert app.focus.visible and ring_pixels(app, app.focus.key) > 40


def visitor_turn_app():
    """The game screen on the visitor's turn in simulation (touch moves go to a real SimWorld)."""
    app = make_app(game_view(21, visitor_side=Side.DEFENDERS), world=SimWorld(make_config()))
    app.navigate("game")
    app.step()
    return app


def test_the_resign_dialog_is_answered_by_keyboard_and_focus_stays_inside_it():
    app = visitor_turn_app()
    screen = app.current
    press(app, pygame.K_TAB)                      # from the board to the buttons
    assert not screen.board_focus
    focus_on(app, "resign")
    press(app, pygame.K_RETURN)
    assert screen.confirm == "resign"
    keys_in_dialog = {b.key for b in app.current.buttons.focusable()}
    assert keys_in_dialog == {"confirm_yes", "confirm_no"}
    for k in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_DOWN, pygame.K_TAB):
        press(app, k)
        assert app.focus.key in keys_in_dialog
    press(app, pygame.K_ESCAPE)                   # Escape is "no"
    assert screen.confirm is None
    assert not [c for c in app.ctx.controller.calls if c[0] == "resign"]


def test_arrows_still_move_the_board_cursor_and_right_past_the_edge_reaches_the_buttons():
    app = visitor_turn_app()
    screen = app.current
    press(app, pygame.K_LEFT)
    assert screen.cursor is not None and screen.board_focus
    start = screen.cursor
    press(app, pygame.K_LEFT)
    assert screen.cursor == start - 1
    for _ in range(12):
        press(app, pygame.K_RIGHT)
    assert not screen.board_focus and app.focus.visible
    assert app.focus.key is not None and ring_pixels(app, app.focus.key) > 40
    press(app, pygame.K_ESCAPE)                   # back to the board
    assert screen.board_focus


def test_the_rules_keep_left_and_right_for_pages_and_reach_their_buttons_with_tab():
    app = make_app(idle_view())
    app.navigate("rules", variant="copenhagen", back="attract")
    app.step()
    press(app, pygame.K_RIGHT)
    assert app.current.step == 1
    press(app, pygame.K_TAB)
    assert app.focus.visible and app.focus.key is not None
    press(app, pygame.K_ESCAPE)
    assert app.screen_name == "attract"


def test_nearest_prefers_straight_ahead():
    from kiosk.ui.widgets import Buttons

    buttons = Buttons()
    here = buttons.add("here", pygame.Rect(100, 100, 50, 50), lambda: None)
    buttons.add("diagonal", pygame.Rect(170, 20, 50, 50), lambda: None)
    buttons.add("ahead", pygame.Rect(260, 100, 50, 50), lambda: None)
    assert focus_module.nearest(here, buttons.items, (1, 0)).key == "ahead"
    assert focus_module.nearest(here, buttons.items, (0, -1)).key == "diagonal"
    assert focus_module.nearest(here, buttons.items, (-1, 0)) is None
