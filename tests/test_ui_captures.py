"""The game screen's side panel shows both sides' captures, also under the hint box and announcements.

Each count is drawn with the icon of the pieces taken, so the checks count the pixels of the two
piece colours in the strip just above the buttons: the visitor (defenders) took attackers (dark
icon), the robot took defenders (light icon).
"""
from __future__ import annotations

from dataclasses import replace

import pygame
import pytest

from kiosk.exhibit import ExhibitView
from kiosk.ui import palette
from kiosk.ui.game import split_rects
from kiosk.ui.screenshots import game_view
from kiosk.ui.teach_panel import HINT_COLOUR, REASON_COLOUR, with_teaching
from tests.helpers.ui import clean_queue, count_colour, find_button, make_app  # noqa: F401 - clean_queue is autouse

YOU, ROBOT = 2, 3


def playing(teaching: str | None = None, announcements: tuple[str, ...] = (), capture: bool = True, **changes):
    """The visitor's turn (defenders) after 17 plies of the demo game, you 2 and the robot 3 captured;
    with `capture` the last move took a piece, so the "leave it on the board" announcement shows."""
    view = game_view(17)
    if teaching == "hint":
        view = with_teaching(view, hint_level="easy", hints_left=1)
    elif teaching == "reason":
        view = with_teaching(view)
    return replace(view, captured={"defenders": YOU, "attackers": ROBOT}, announcements=announcements,
                   last_captures=view.last_captures if capture else (), **changes)


def shown(view, size):
    app = make_app(view, size=size)
    app.navigate("game")
    app.step()
    return app


def capture_strip(app) -> pygame.Rect:
    """The panel's width, from two capture rows above the buttons down to the buttons."""
    lay = app.ctx.layout
    _, panel = split_rects(lay)
    row_h = lay.font_body + lay.gap
    top = find_button(app, "rules").rect.top
    return pygame.Rect(panel.left, top - 2 * row_h - lay.gap, panel.width, 2 * row_h + lay.gap)


def icons_in_strip(app) -> tuple[int, int]:
    """Pixels of (the visitor's taken attackers, the robot's taken defenders) above the buttons."""
    scheme = app.ctx.piece_scheme()
    strip = capture_strip(app)
    return (count_colour(app.surface, strip, scheme.attacker, tolerance=6),
            count_colour(app.surface, strip, scheme.defender, tolerance=6))


@pytest.mark.parametrize("case", [
    pytest.param(dict(teaching="hint"), id="hint-and-capture-help"),
    pytest.param(dict(teaching="reason"), id="reason-and-capture-help"),
    pytest.param(dict(announcements=("king_threatened",)), id="two-announcements"),
    pytest.param(dict(announcements=("king_threatened",), exhibit=ExhibitView(mode="referee")), id="referee"),
])
def test_both_capture_counts_show_under_the_boxes_at_1280x800(case):
    app = shown(playing(**case), (1280, 800))
    you, robot = icons_in_strip(app)
    assert you > 150, f"the visitor's count (icon of the attackers taken) is missing: {you} px"
    assert robot > 150, f"the robot's count (icon of the defenders taken) is missing: {robot} px"
    _, panel = split_rects(app.ctx.layout)
    if case.get("teaching") == "hint":                     # the boxes are still there
        assert count_colour(app.surface, panel, HINT_COLOUR, tolerance=4) > 2000
    elif case.get("teaching") == "reason":
        assert count_colour(app.surface, panel, REASON_COLOUR, tolerance=4) > 300
    else:                                                  # one announcement; the second waits
        assert count_colour(app.surface, panel, palette.YELLOW, tolerance=4) > 2000


def test_with_a_box_and_the_counts_one_row_says_both_in_short():
    app = shown(playing(teaching="hint"), (1280, 800))
    lay = app.ctx.layout
    _, panel = split_rects(lay)
    scheme = app.ctx.piece_scheme()
    strip = capture_strip(app)
    left = pygame.Rect(strip.left, strip.top, strip.width // 2, strip.height)
    right = pygame.Rect(left.right, strip.top, strip.width - left.width, strip.height)
    assert count_colour(app.surface, left, scheme.attacker, tolerance=6) > 150      # "You: 2" on the left
    assert count_colour(app.surface, right, scheme.defender, tolerance=6) > 150     # "Robot: 3" on the right
    assert app.ctx.t("game.captured_short_you", count=YOU) == "You: 2"
    assert app.ctx.t("game.captured_short_robot", count=ROBOT) == "Robot: 3"


def test_the_7_inch_panel_shows_both_counts_on_one_row():
    app = shown(playing(capture=False), (800, 480))
    assert app.ctx.layout.compact
    you, robot = icons_in_strip(app)
    assert you > 60 and robot > 60, (you, robot)


def test_the_7_inch_panel_keeps_the_hint_the_visitor_asked_for():
    # room there for the hint or the counts, not both: the hint stays (GameScreen.draw_captures)
    app = shown(playing(teaching="hint"), (800, 480))
    _, panel = split_rects(app.ctx.layout)
    assert count_colour(app.surface, panel, HINT_COLOUR, tolerance=4) > 2000
