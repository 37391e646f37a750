"""The teaching screens are in the screenshot set, at both panel sizes, and show what they claim."""
import pytest

from calibration.config import Config
from kiosk.ui.game import split_rects
from kiosk.ui.screenshots import _shots, prepared_screens
from kiosk.ui.teach_panel import HINT_COLOUR, REASON_COLOUR

from tests.helpers.ui import clean_queue, count_colour  # noqa: F401

TEACH_SHOTS = ("32-game-robot-reason", "33-game-hint", "34-game-hint-thinking", "35-game-reason-in-swedish",
               "36-rules-playing-here", "37-rules-levels-hints", "38-start-side-rules")


def test_the_teaching_screens_are_in_the_screenshot_set():
    names = [name for name, _ in _shots(Config())]
    assert set(TEACH_SHOTS) <= set(names)


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_teaching_screens_show_reason_hint_and_rules_buttons(size):
    config = Config()
    config.kiosk.reward_secret = "s"
    seen = {}
    for name, app in prepared_screens(config, size):
        if name in TEACH_SHOTS or name in ("01-attract", "06-game-your-turn", "08-game-thinking"):
            seen[name] = (app.surface.copy(), app.current.buttons.find("hint"), app.current.buttons.find("rules"),
                          app.ctx.view, app.screen_name, app)
    _, panel = split_rects(seen["33-game-hint"][5].ctx.layout)
    board_rect, _ = split_rects(seen["33-game-hint"][5].ctx.layout)
    reason, hint_btn, _, view, _, _ = seen["32-game-robot-reason"]
    assert count_colour(reason, panel, REASON_COLOUR, tolerance=4) > 300          # the sentence box's edge
    assert count_colour(reason, board_rect, REASON_COLOUR, tolerance=4) > 100     # the marked squares
    assert hint_btn is not None and hint_btn.enabled
    shot, hint_btn, _, view, _, _ = seen["33-game-hint"]
    assert count_colour(shot, panel, HINT_COLOUR, tolerance=4) > 2000
    assert count_colour(shot, board_rect, HINT_COLOUR, tolerance=4) > 100
    assert hint_btn is not None and not hint_btn.enabled                          # none left, one showing
    assert seen["34-game-hint-thinking"][1] is not None and not seen["34-game-hint-thinking"][1].enabled
    assert seen["08-game-thinking"][1] is None                                    # not on the robot's turn
    assert seen["06-game-your-turn"][1] is None                                   # a port without hints
    assert seen["01-attract"][2] is not None and seen["38-start-side-rules"][2] is not None
    assert seen["36-rules-playing-here"][4] == "rules"
