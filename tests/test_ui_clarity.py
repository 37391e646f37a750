"""The clarity pass of the museum-day trial: words that say what is meant, on real frames."""
from __future__ import annotations

from dataclasses import replace

import pygame

from engine import Outcome, Piece, Side, parse_square
from kiosk.ui.game import result_title
from kiosk.ui.screenshots import game_view
from tests.helpers.ui import make_app
from tests.helpers.ui import clean_queue, click, find_button  # noqa: F401 - clean_queue is an autouse fixture


def game_over(reason: str, winner=None):
    view = game_view(34, state="game_over", outcome=Outcome(winner, reason))
    return replace(view, visitor_side=Side.DEFENDERS)


def test_end_game_says_no_winner_and_a_real_draw_still_says_draw():
    app = make_app(game_over("ended"))
    app.navigate("game")
    app.step()
    assert result_title(app.ctx, app.ctx.view)[0] == "Game stopped without a winner"
    stopped = pygame.surfarray.array3d(app.surface).copy()
    app.ctx.controller.set_view(game_over("no_moves"))
    app.step()
    assert result_title(app.ctx, app.ctx.view)[0] == "A draw"
    assert (pygame.surfarray.array3d(app.surface) != stopped).any(), "the two headings drew the same frame"


def test_play_again_after_a_chosen_game_starts_it_again():
    from kiosk.ui.context import GameRequest

    app = make_app(game_over("king_escaped", Side.DEFENDERS))
    app.ctx.request = GameRequest("copenhagen", {}, Side.DEFENDERS, "hard")
    app.navigate("game")
    app.step()
    click(find_button(app, "again").rect.center)
    app.step()
    starts = [args for name, args in app.ctx.controller.calls if name == "start_game"]
    assert ("clear_board", ()) not in app.ctx.controller.calls   # the board resets itself: no clearing
    assert starts == [("copenhagen", {}, Side.DEFENDERS, "hard")]
    assert app.screen_name == "game"


def test_the_panel_says_which_side_and_pieces_are_the_visitors():
    app = make_app(replace(game_view(21), visitor_side=Side.DEFENDERS))
    app.navigate("game")
    app.step()
    text = app.ctx.t("game.you_play", side=app.ctx.t("variants.copenhagen.defenders"),
                     pieces=app.ctx.t("game.pieces_defenders"))
    assert text == "You play the Defenders: the light pieces and the king"


def test_staff_sees_the_state_in_words(tmp_path):
    app = make_app(game_view(21))
    assert app.ctx.t("staff_states.visitor_turn") == "the visitor's turn"
    for state in ("idle", "setup", "visitor_turn", "fix_board", "thinking", "robot_moving", "verify", "place_piece",
                  "game_over", "clearing", "paused_error"):
        for language in ("en", "sv"):
            app.ctx.texts.set_language(language)
            assert app.ctx.t(f"staff_states.{state}") != f"staff_states.{state}", (language, state)


def test_several_squares_to_fill_are_asked_in_the_plural():
    from kiosk.ui.errors import draw_error_panel  # noqa: F401 - the panel that uses the key

    sq = lambda name: parse_square(name, 11)  # noqa: E731
    view = game_view(22, state="place_piece", message="place_piece.missed_pickup",
                     fix_squares={sq("e7"): Piece.ATTACKER, sq("f7"): Piece.ATTACKER})
    app = make_app(view)
    app.navigate("game")
    app.step()
    assert app.ctx.t("errors.place_piece.where_many", squares="e7, f7") == "Put them on e7, f7, as shown."
