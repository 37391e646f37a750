"""Fonts: pygame's built-in default font (freesansbold, GPL with font exception), cached by size.

Nothing else is bundled, so there is no font licence to track; the default
font covers Latin-1, which is enough for English and Swedish (å, ä, ö).
"""
from __future__ import annotations

import pygame

_CACHE: dict[int, pygame.font.Font] = {}


def font(size_px: int) -> pygame.font.Font:
    """The default font at ``size_px`` (pygame's size is roughly the line height)."""
    size_px = max(8, int(size_px))
    cached = _CACHE.get(size_px)
    if cached is None:
        if not pygame.font.get_init():
            pygame.font.init()
        cached = pygame.font.Font(None, size_px)
        _CACHE[size_px] = cached
    return cached


_TEXT_CACHE: dict[tuple[str, int, tuple[int, int, int]], pygame.Surface] = {}


def render(text: str, size_px: int, colour: tuple[int, int, int]) -> pygame.Surface:
    """Rendered text, cached: most labels are the same frame after frame."""
    r, g, b = colour
    key = (text, int(size_px), (r, g, b))
    image = _TEXT_CACHE.get(key)
    if image is None:
        if len(_TEXT_CACHE) > 2000:
            _TEXT_CACHE.clear()
        image = font(size_px).render(text, True, colour)
        _TEXT_CACHE[key] = image
    return image
