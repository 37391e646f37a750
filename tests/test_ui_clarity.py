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


class _Hands:
    """The simulated table's helping hands (SimWorld.set_squares), as the start screen calls them."""

    def __init__(self) -> None:
        self.asked: list[dict] = []

    def set_squares(self, wanted: dict) -> None:
        self.asked.append(dict(wanted))


def test_play_again_that_waits_for_a_piece_says_what_to_put_where():
    """A visitor who put a captured piece in the tray and touched "Play again" saw "The robot is tidying the
    board" for good, while the reset waited for a defender on e6 (Xvfb demo, 4 Dec 2026)."""
    from kiosk.ui import palette
    from kiosk.ui.context import GameRequest

    e6 = parse_square("e6", 11)
    hands = _Hands()
    app = make_app(game_over("resigned", Side.ATTACKERS), world=hands)
    app.ctx.request = GameRequest("copenhagen", {}, Side.DEFENDERS, "easy")
    app.navigate("game")
    app.step()
    # the reset after the game needs a defender the robot cannot find; the result is still on the screen
    app.ctx.controller.set_view(replace(game_over("resigned", Side.ATTACKERS), state="place_piece",
                                        message="place_piece.missing_pieces", fix_squares={e6: Piece.DEFENDER}))
    app.step()
    click(find_button(app, "again").rect.center)
    app.step()
    assert app.screen_name == "start"
    assert not [a for name, a in app.ctx.controller.calls if name == "start_game"], "started on a board not ready"
    pixels = pygame.surfarray.array3d(app.surface).reshape(-1, 3)
    assert (pixels == palette.FIX).all(1).any(), "no problem panel: the visitor is not told what to do"
    body = app.ctx.t("messages.place_piece.missing_pieces") + " " + app.ctx.t("errors.place_piece.where", squares="e6")
    assert body == "Some pieces are missing from the robot's store. Put it on e6, as shown."
    # in the simulation a touch on the panel is the visitor's hand putting the defender on e6
    click(find_button(app, "put_right").rect.center)
    app.step()
    assert hands.asked == [{e6: Piece.DEFENDER}]
    # the board is ready: the chosen game starts by itself
    app.ctx.controller.set_view(game_over("resigned", Side.ATTACKERS))
    app.step()
    starts = [a for name, a in app.ctx.controller.calls if name == "start_game"]
    assert starts == [("copenhagen", {}, Side.DEFENDERS, "easy")]
    assert app.screen_name == "game"
