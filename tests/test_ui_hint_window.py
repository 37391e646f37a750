"""The Hint button in the window, against the real controller in full simulation (camera, GRBL
simulator, search process): press Hint, read the suggested move off the rendered frame, play it by
touch, and find the robot's reason on the screen after its reply and the hint in the game log."""
from __future__ import annotations

import pygame
import pytest

from kiosk.gamelog import read_games
from kiosk.ui.game import split_rects
from kiosk.ui.teach_panel import HINT_COLOUR, REASON_COLOUR

from tests.helpers.ui import click, count_colour, find_button, run_until, sim_kiosk, start_by_touch

pytestmark = pytest.mark.slow        # the screens on the full simulation


def marked_squares(surface: pygame.Surface, geom, colour) -> set[int]:
    """The squares whose frame shows `colour` rings: what a visitor sees marked."""
    out = set()
    for sq in range(geom.size * geom.size):
        rect = geom.square_rect(sq)
        if count_colour(surface, rect, colour, tolerance=6) > rect.width // 2:
            out.add(sq)
    return out


def test_press_hint_read_the_move_off_the_screen_and_play_it(tmp_path):
    with sim_kiosk(tmp_path, seed=5) as (app, _rig):
        start_by_touch(app, "play", "variant.copenhagen", "side.attackers", "level.medium")
        run_until(app, lambda v: v.state == "visitor_turn", "the robot to set up the board")
        app.step()
        assert find_button(app, "hint").enabled
        click(find_button(app, "hint").rect.center)
        run_until(app, lambda v: v.teaching.hint is not None, "the hint from the search process")
        app.step()
        geom = app.screens["game"].geom
        frame = app.surface.copy()
        on_screen = marked_squares(frame, geom, HINT_COLOUR)
        board = app.ctx.view.board
        moves = [m for m in board.legal_moves if {m.from_sq, m.to_sq} <= on_screen]
        assert len(moves) == 1, f"marked {sorted(on_screen)}: legal moves among them {moves}"
        move = moves[0]
        assert move == app.ctx.view.teaching.hint.move
        _, panel = split_rects(app.ctx.layout)
        assert count_colour(frame, panel, HINT_COLOUR) > 2000, "the hint's box in the side panel"
        assert app.ctx.view.teaching.hints_left == 2
        # Play the move read off the screen, by touch, and wait for the robot.
        click(geom.centre(move.from_sq))
        app.step()
        click(geom.centre(move.to_sq))
        app.step()
        run_until(app, lambda v: v.state == "visitor_turn" and v.ply >= 2, "the robot's reply")
        app.step()
        view = app.ctx.view
        assert view.board.move_stack[0] == move and view.teaching.hint is None
        assert view.teaching.robot_reasons and view.teaching.robot_ply == 2
        frame = app.surface.copy()
        assert count_colour(frame, panel, REASON_COLOUR, tolerance=6) > 500, "the robot's reason box"
        click(find_button(app, "resign").rect.center)
        app.step()
        click(find_button(app, "confirm_yes").rect.center)
        run_until(app, lambda v: v.outcome is not None, "the resignation")
        games = read_games(tmp_path).games
        assert games and games[-1].hints == [{"ply": 0, "move": games[-1].moves[0]}]
