"""The exhibit modes' screens (kiosk/exhibit.py): self-play live in attract, the hand-over,
"Two players" on the start screen, the referee's game screen and staff's self-play switch.
Every check reads pixels of the drawn frame (the pattern of tests/test_ui_screens.py)."""
from __future__ import annotations

from dataclasses import replace

import pygame

from engine import Board, Outcome, Side, parse_square
from engine.reasons import Reason
from kiosk.exhibit import ExhibitView
from kiosk.i18n import Texts
from kiosk.teaching import TeachingView
from kiosk.ui import palette
from kiosk.ui.attract import narration
from kiosk.ui.screenshots import game_view, idle_view
from tests.helpers.ui import clean_queue, click, count_colour, find_button, frame, make_app, start_by_touch  # noqa: F401 - clean_queue is an autouse fixture


def button(app, key_name):
    return find_button(app, key_name).rect


def selfplay_view(state: str = "thinking", **exhibit):
    view = game_view(22, state=state, level="easy", ply=22)
    return replace(view, exhibit=ExhibitView(mode="selfplay", **exhibit),
                   teaching=TeachingView(robot_reasons=(Reason("captures", (view.last_captures or (60,))),),
                                         robot_ply=22))


def piece_pixels(shot, geom, sq) -> int:
    """Pixels of either piece colour on a square (the default scheme)."""
    r = geom.square_rect(sq)
    return max(count_colour(shot, r, col, 30) for col in ((40, 40, 40), (235, 225, 200)))


def test_attract_shows_the_selfplay_game_live_and_narrates_it(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    assert app.screen_name == "attract"
    view = selfplay_view()
    app.ctx.controller.set_view(view)
    shot = frame(app, tmp_path, "live.png")
    assert app.screen_name == "attract"          # a self-play game is not a visitor's: no game screen
    rect = app.current.board_rect
    demo_start = Board("copenhagen").pieces()
    live = view.board.pieces()
    from kiosk.ui.board_view import ScreenBoard

    geom = ScreenBoard(rect, 11, coordinates=False)
    moved_in = [sq for sq in live if sq not in demo_start]
    moved_out = [sq for sq in demo_start if sq not in live]
    assert moved_in and moved_out
    # the live position is drawn, not the replay's start position
    assert all(shot.get_at(geom.centre(sq))[:3] != shot.get_at(geom.centre(parse_square("a1", 11)))[:3]
               for sq in moved_in[:3])
    empty_colour = shot.get_at(geom.centre(parse_square("b2", 11)))[:3]
    assert any(shot.get_at(geom.centre(sq))[:3] == empty_colour for sq in moved_out)
    text = narration(app.ctx, view)
    mover = "Defenders" if view.board.turn == Side.ATTACKERS else "Attackers"
    assert text.startswith(f"The {mover.lower()} play") or mover in text
    assert "captures" in text


def test_a_stopped_selfplay_shows_the_handover_screen_with_both_choices(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    view = selfplay_view("handover", handover_ready=False, handover_side=Side.ATTACKERS)
    app.ctx.controller.set_view(view)
    shot = frame(app, tmp_path, "handover.png")
    assert app.screen_name == "handover"
    take, fresh = button(app, "take_over"), button(app, "start_fresh")
    assert count_colour(shot, take, palette.PRIMARY) > take.width * take.height // 3
    assert count_colour(shot, fresh, palette.SECONDARY) > fresh.width * fresh.height // 3
    # not confirmed yet: a yellow-edged note says the robot puts its piece down first
    note = pygame.Rect(take.left, 0, take.width, take.top)
    assert count_colour(shot, note, palette.YELLOW, 5) > 100
    click(take.center)
    frame(app, tmp_path)
    assert ("handover", ("take_over",)) in app.ctx.controller.calls
    # confirmed: no note any more
    app.ctx.controller.set_view(selfplay_view("handover", handover_ready=True, handover_side=Side.ATTACKERS))
    shot = frame(app, tmp_path, "ready.png")
    assert count_colour(shot, note, palette.YELLOW, 5) < 20
    # taken over: the visitor's game screen follows
    app.ctx.controller.set_view(replace(game_view(22), exhibit=ExhibitView(mode="visitor")))
    frame(app, tmp_path)
    frame(app, tmp_path)
    assert app.screen_name == "game"


def test_start_fresh_goes_to_the_start_screen(tmp_path):
    app = make_app(selfplay_view("handover", handover_ready=True, handover_side=Side.DEFENDERS))
    frame(app, tmp_path)
    assert app.screen_name == "handover"
    click(button(app, "start_fresh").center)
    frame(app, tmp_path)
    assert ("handover", ("start_fresh",)) in app.ctx.controller.calls
    assert app.screen_name == "start"


def test_two_players_card_on_the_side_page_starts_a_referee_game(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    start_by_touch(app, "play")
    click(button(app, "variant.copenhagen").center)
    shot = frame(app, tmp_path, "sides.png")
    two, lots = button(app, "side.two"), button(app, "side.lots")
    assert two.width == lots.width and two.top == lots.top       # a card like the others, in the row
    assert count_colour(shot, two, palette.PANEL) > two.width * two.height // 4
    click(two.center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1] == ("start_game", ("copenhagen", {}, Side.ATTACKERS, "easy"),
                                            {"mode": "referee"})
    assert app.screen_name == "game"


def test_every_language_names_the_two_players_card():
    for language in Texts("en").languages:
        texts = Texts(language)
        assert texts.has("start.side.two.name") and texts.has("exhibit.take_over") and texts.has("referee.won")


def test_referee_game_screen_has_clocks_and_a_side_won_result_without_robot(tmp_path):
    view = replace(game_view(22), exhibit=ExhibitView(mode="referee", clocks={"attackers": 75.0, "defenders": 3.0}))
    app = make_app(view)
    frame(app, tmp_path)
    assert app.screen_name == "game"
    from kiosk.ui.game import referee_clocks, result_title

    assert referee_clocks(app.ctx, view).splitlines() == ["Attackers: 1:15", "Defenders: 0:03"]
    won = replace(view, state="game_over", outcome=Outcome(view.robot_side or Side.ATTACKERS, "king_captured"))
    app.ctx.controller.set_view(won)
    shot_ref = frame(app, tmp_path, "ref.png")
    title, colour = result_title(app.ctx, won)
    assert "won" in title and colour == palette.ORANGE
    assert app.ctx.rewards.unlocks.names() == [] or not app.screens["game"].new_unlock   # no rewards
    lost = replace(won, exhibit=ExhibitView(mode="visitor"))
    app2 = make_app(lost)
    frame(app2, tmp_path)
    shot_vis = frame(app2, tmp_path, "vis.png")
    panel = pygame.Rect(app.surface.get_width() // 2, 0, app.surface.get_width() // 2, app.surface.get_height())
    assert count_colour(shot_ref, panel, palette.ORANGE, 5) > count_colour(shot_vis, panel, palette.ORANGE, 5) + 500


def test_staff_switch_for_selfplay(tmp_path):
    app = make_app(replace(idle_view(), exhibit=ExhibitView(selfplay_on=True)))
    app.ctx.staff_unlocked = True
    app.navigate("staff", page="system")
    shot = frame(app, tmp_path)
    switch = button(app, "selfplay")
    assert count_colour(shot, switch, palette.PRIMARY) > switch.width * switch.height // 3
    click(switch.center)
    frame(app, tmp_path)
    assert ("set_selfplay", (False,)) in app.ctx.controller.calls
    app.ctx.controller.set_view(replace(idle_view(), exhibit=ExhibitView(selfplay_on=False)))
    shot = frame(app, tmp_path, "off.png")
    assert count_colour(shot, button(app, "selfplay"), palette.PRIMARY) < switch.width * switch.height // 10
