"""The screens driving the real GameController in full simulation (camera, GRBL simulator, engine).

The visitor starts a game by touch, moves a piece by touching it and a dot
(the move goes to the simulated world; the controller sees it through the
rendered camera), the robot answers, and the screen shows the robot's move
highlighted; then the visitor resigns through the confirmation.
"""
from __future__ import annotations

import pygame
import pytest

from kiosk.ui import palette

from tests.helpers.ui import click, run_until, sim_kiosk

pytestmark = pytest.mark.slow        # the screens on the full simulation


def test_touch_play_against_the_real_controller(tmp_path):
    with sim_kiosk(tmp_path, seed=3) as (app, _rig):
        for key in ("play", "variant.copenhagen", "side.attackers", "level.easy"):
            click(app.current.buttons.find(key).rect.center)
            app.step()
        assert app.screen_name == "game"
        run_until(app, lambda v: v.state == "visitor_turn", "the robot to set up the board")
        board = app.ctx.view.board
        move = next(m for m in board.legal_moves if not board.captures_of(m))
        geom = app.screens["game"].geom
        click(geom.centre(move.from_sq))
        app.step()
        click(geom.centre(move.to_sq))
        app.step()
        run_until(app, lambda v: v.state == "visitor_turn" and v.ply >= 2, "the robot's reply")
        view = app.ctx.view
        assert view.board.move_stack[0] == move
        shot_path = tmp_path / "after-reply.png"
        pygame.image.save(app.surface, str(shot_path))
        shot = pygame.image.load(str(shot_path))
        to_rect = geom.square_rect(view.last_move.to_sq)
        edge = [shot.get_at((x, to_rect.top + 2))[:3] for x in range(to_rect.left + 4, to_rect.right - 4)]
        assert sum(1 for c in edge if c == palette.LAST_MOVE) > to_rect.width // 2
        click(app.current.buttons.find("resign").rect.center)
        app.step()
        click(app.current.buttons.find("confirm_yes").rect.center)
        run_until(app, lambda v: v.outcome is not None, "the resignation")
        assert app.ctx.view.outcome.winner.value == "defenders"
        assert app.current.buttons.find("again") is not None        # the result panel is showing
