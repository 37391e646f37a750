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
