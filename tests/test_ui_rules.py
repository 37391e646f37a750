"""The rule diagrams tell the truth: each one, placed on a real board, does in the engine what it shows."""
import pytest

from engine import Move
from kiosk.ui.rules import diagram_frame
from kiosk.ui.rules_content import STEPS, embed, local_square

DIAGRAMS = [(variant, step.key, k, d) for variant, steps in STEPS.items() for step in steps
            for k, d in enumerate(step.diagrams) if not d.start]


@pytest.mark.parametrize("variant,step,index,diagram", DIAGRAMS,
                         ids=[f"{v}-{s}-{i}" for v, s, i, _ in DIAGRAMS])
def test_diagram_agrees_with_the_engine(variant, step, index, diagram):
    board, offset = embed(diagram, variant)
    size = board.size
    if diagram.move is not None:
        move = Move(*(local_square(name, diagram, offset, size) for name in diagram.move))
        assert board.is_legal(move), f"{diagram.move} is not legal here"
        captured = set(board.captures_of(move))
        assert captured == {local_square(n, diagram, offset, size) for n in diagram.removed}
        after = board.copy()
        after.push(move)
        outcome = after.outcome()
        if step == "win":
            assert outcome is not None and outcome.winner is not None and outcome.winner.value == "defenders"
        if step == "king" and diagram.verdict:
            assert outcome is not None and outcome.reason == "king_captured"
        if step == "king" and diagram.verdict is False:
            assert outcome is None or outcome.reason != "king_captured"
    if diagram.dots:
        source = diagram.move[0] if diagram.move else next(
            f"{'abcde'[f]}{diagram.size - r}" for r, row in enumerate(diagram.rows) for f, ch in enumerate(row) if ch in "tTK")
        src = local_square(source, diagram, offset, size)
        crop = {local_square(f"{'abcdefg'[f]}{r + 1}", diagram, offset, size)
                for f in range(diagram.size) for r in range(diagram.size)}
        legal = {m.to_sq for m in board.legal_moves if m.from_sq == src} & crop
        assert legal == {local_square(n, diagram, offset, size) for n in diagram.dots}


def test_every_capture_rule_is_shown_as_a_pair():
    for variant, steps in STEPS.items():
        for step in steps:
            if step.key in ("capture", "corner", "shieldwall", "stop"):
                assert [d.verdict for d in step.diagrams] == [True, False], (variant, step.key)


def test_animation_slides_then_removes_the_captured_piece():
    diagram = STEPS["copenhagen"][2].diagrams[0]          # capture: d1-d3 takes c3
    n = diagram.size
    c3, d1, d3 = 2 * n + 2, 3, 2 * n + 3
    pieces, slide, fading, verdict = diagram_frame(diagram, 0.1)
    assert c3 in pieces and d1 in pieces and slide is None and not verdict
    pieces, slide, fading, verdict = diagram_frame(diagram, 1.0)
    assert slide is not None and slide[0] == d1 and slide[1] == d3 and 0 < slide[2] < 1
    pieces, slide, fading, verdict = diagram_frame(diagram, 1.6)
    assert fading.get(c3, 0) > 0 and verdict
    pieces, slide, fading, verdict = diagram_frame(diagram, 3.0)
    assert c3 not in pieces and d3 in pieces and verdict


# ------------------------------------------------------------- the screen: dots, entry points, Playing here

from calibration.config import Config  # noqa: E402
from kiosk.ui.rules import playing_here_words  # noqa: E402
from kiosk.ui.rules_content import PLAYING_KEYS  # noqa: E402
from kiosk.ui.screenshots import StillController, _Clock, idle_view  # noqa: E402

from ui_helpers import clean_queue, click, find_button  # noqa: E402,F401


_NO_WORLD = object()   # a world the screens never look into


def _app(size=(1280, 800), world=_NO_WORLD, config=None):
    from kiosk.ui.app import KioskApp

    config = config or Config()
    config.kiosk.reward_secret = "s"
    clock = _Clock()
    app = KioskApp(StillController(idle_view()), config, world=world, size=size, clock=clock)
    app.step([])
    return app


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_every_step_dot_takes_you_to_its_step(size):
    app = _app(size)
    app.navigate("rules", variant="copenhagen", back="attract")
    app.step([])
    screen = app.screens["rules"]
    assert len(screen.dot_cells) == len(STEPS["copenhagen"])
    for k in reversed(range(len(screen.dot_cells))):
        click(screen.dot_cells[k].center)
        app.step()
        assert screen.step == k
    row = find_button(app, "steps").rect
    assert row.width >= app.ctx.layout.target and row.height >= app.ctx.layout.target


def test_rules_open_from_the_attract_screen_and_go_back_there():
    app = _app()
    app.navigate("attract")
    app.step([])
    click(find_button(app, "rules").rect.center)
    app.step()
    assert app.screen_name == "rules" and app.screens["rules"].variant == "copenhagen"
    click(find_button(app, "close").rect.center)
    app.step()
    assert app.screen_name == "attract"


def test_rules_open_from_the_start_screen_for_the_chosen_game_and_keep_the_choices():
    app = _app()
    app.navigate("start")
    app.step([])
    start = app.screens["start"]
    click(find_button(app, "variant.tawlbwrdd").rect.center)
    app.step()
    assert start.page == "side"
    click(find_button(app, "rules").rect.center)
    app.step()
    assert app.screen_name == "rules" and app.screens["rules"].variant == "tawlbwrdd"
    click(find_button(app, "close").rect.center)
    app.step()
    assert app.screen_name == "start" and start.page == "side" and start.variant == "tawlbwrdd"


def test_every_variant_ends_with_the_playing_here_steps():
    for variant, steps in STEPS.items():
        assert tuple(s.key for s in steps[-2:]) == PLAYING_KEYS, variant
        assert steps[-1].prefix(variant) == "teach.levels"


@pytest.mark.parametrize("language", ["en", "sv"])
def test_playing_here_speaks_of_this_game_and_this_kiosk(language):
    config = Config()
    config.engine.levels["hard"].hints = 2
    app = _app(config=config)
    app.ctx.texts.set_language(language)
    words = playing_here_words(app.ctx, "tablut")
    playing = app.ctx.t("teach.playing.text", **words)
    levels = app.ctx.t("teach.levels.text", **words)
    assert app.ctx.t("variants.tablut.attackers") in playing and app.ctx.t("variants.tablut.defenders") in playing
    assert app.ctx.t("teach.playing.move_touch") in playing          # the simulation: touch to move
    assert "{" not in playing + levels
    assert f"2 {'on' if language == 'en' else 'på'} {app.ctx.t('levels.hard.name')}" in levels
    assert f"3 {'on' if language == 'en' else 'på'} {app.ctx.t('levels.medium.name')}" in levels
    assert app.ctx.t("teach.unlimited") in levels
    kiosk = _app(world=None)
    assert kiosk.ctx.t("teach.playing.move_touch") not in playing_here_words(kiosk.ctx, "tablut")["move"]
