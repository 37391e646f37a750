"""What the touchscreen tests share: a clean event queue, a touch, a button by name, pixels of a colour."""
from __future__ import annotations

import numpy as np
import pygame
import pytest


@pytest.fixture(autouse=True)
def clean_queue():
    """Import into a test module: every test starts and ends with an empty pygame event queue."""
    pygame.display.init()
    pygame.event.clear()
    yield
    pygame.event.clear()


def click(pos) -> None:
    """A finger down and up at `pos`."""
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=tuple(map(int, pos)), button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=tuple(map(int, pos)), button=1))


def find_button(app, key: str):
    """The button called `key` on the current screen; fails the test, listing the others, if absent."""
    found = app.current.buttons.find(key)
    assert found is not None, f"no button {key!r} on {app.screen_name}: {[b.key for b in app.current.buttons.items]}"
    return found


def count_colour(surface: pygame.Surface, rect, colour, tolerance: int = 12) -> int:
    """Pixels within `tolerance` of `colour` (per channel) inside `rect` of `surface`."""
    rect = pygame.Rect(rect).clip(surface.get_rect())
    pixels = pygame.surfarray.pixels3d(surface)[rect.left:rect.right, rect.top:rect.bottom].astype(int)
    return int((np.abs(pixels - np.array(colour)).max(axis=2) <= tolerance).sum())
