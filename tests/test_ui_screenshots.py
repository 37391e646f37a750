"""Every screen renders in both sizes, and every button on it is a 20 mm touch target."""
import pygame
import pytest

from calibration.config import Config
from kiosk.ui.screenshots import _shots, prepared_screens, save_screenshots


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_every_button_on_every_screen_is_at_least_20_mm(size):
    pygame.display.init()
    config = Config()
    config.kiosk.reward_secret = "s"
    checked = 0
    for name, app in prepared_screens(config, size):
        target = app.ctx.layout.target
        for b in app.current.buttons.items:
            assert b.rect.width >= target and b.rect.height >= target, (name, b.key, b.rect, target)
            assert app.ctx.layout.rect.contains(b.rect), (name, b.key, b.rect)
            checked += 1
    assert checked > 150


def test_save_screenshots_writes_every_screen_in_both_sizes(tmp_path):
    files = save_screenshots(tmp_path, Config())
    per_size = len(_shots(Config()))
    assert len(files) == 2 * per_size
    for path in files:
        image = pygame.image.load(str(path))
        assert image.get_size() in ((1280, 800), (800, 480))
        colours = {tuple(image.get_at((x, y))) for x in range(0, image.get_width(), 37)
                   for y in range(0, image.get_height(), 29)}
        assert len(colours) > 8, f"{path.name} looks empty"
