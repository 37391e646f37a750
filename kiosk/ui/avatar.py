"""The two players' faces: the visitor (a Viking with a helmet, crowned after a Hard win) and the robot."""
from __future__ import annotations

import math

import pygame

from kiosk.ui import palette
from kiosk.ui.board_view import draw_crown


def draw_visitor(surface: pygame.Surface, rect: pygame.Rect, crown: bool = False, active: bool = False) -> None:
    """A round Viking face in a helmet; with ``crown`` a gold crown sits on the helmet."""
    cx, cy = rect.centerx, rect.centery + rect.height // 10
    r = int(min(rect.width, rect.height) * 0.34)
    if active:
        pygame.draw.circle(surface, palette.SELECTED, (cx, cy), r + max(4, r // 5), max(3, r // 8))
    pygame.draw.circle(surface, (233, 190, 150), (cx, cy), r)                       # face
    beard = [(cx - r * 0.8, cy + r * 0.1), (cx, cy + r * 1.15), (cx + r * 0.8, cy + r * 0.1),
             (cx + r * 0.5, cy + r * 0.45), (cx - r * 0.5, cy + r * 0.45)]
    pygame.draw.polygon(surface, (196, 120, 50), beard)
    for dx in (-0.35, 0.35):
        pygame.draw.circle(surface, palette.TEXT_DARK, (cx + r * dx, cy - r * 0.05), max(2, r // 9))
    helmet = pygame.Rect(cx - r * 1.02, cy - r * 1.05, r * 2.04, r * 1.3)
    pygame.draw.arc(surface, (150, 160, 172), helmet, 0, math.pi, max(4, r // 2))
    pygame.draw.rect(surface, (120, 130, 142), (cx - r * 1.05, cy - r * 0.42, r * 2.1, max(3, r // 5)))
    pygame.draw.rect(surface, (120, 130, 142), (cx - max(2, r // 10), cy - r * 0.4, max(4, r // 5), r * 0.55))
    for side in (-1, 1):                                                           # horns
        horn = [(cx + side * r * 0.85, cy - r * 0.55), (cx + side * r * 1.45, cy - r * 1.25),
                (cx + side * r * 1.0, cy - r * 0.8)]
        pygame.draw.polygon(surface, (245, 235, 210), horn)
    if crown:
        draw_crown(surface, (cx, cy - r * 1.25), r * 1.1, palette.GOLD)


def draw_robot(surface: pygame.Surface, rect: pygame.Rect, phase: float = 0.0, active: bool = False) -> None:
    """A friendly robot head; its antenna light blinks with ``phase`` while it works."""
    cx, cy = rect.centerx, rect.centery + rect.height // 12
    r = int(min(rect.width, rect.height) * 0.32)
    head = pygame.Rect(cx - r, cy - r * 0.8, r * 2, r * 1.7)
    if active:
        pygame.draw.rect(surface, palette.SELECTED, head.inflate(r // 2.5, r // 2.5), max(3, r // 8),
                         border_radius=r // 2)
    pygame.draw.line(surface, (160, 170, 180), (cx, head.top), (cx, head.top - r * 0.45), max(2, r // 8))
    light = palette.ORANGE if (phase % 1.0) < 0.5 else (120, 90, 40)
    bulb = (cx, head.top - r * 0.5)
    # A dark rim keeps the bulb visible on any card colour (the Hard card is the bulb's own orange).
    pygame.draw.circle(surface, palette.TEXT_DARK, bulb, max(3, r // 6) + max(2, r // 14))
    pygame.draw.circle(surface, light, bulb, max(3, r // 6))
    pygame.draw.rect(surface, (150, 165, 180), head, border_radius=r // 3)
    pygame.draw.rect(surface, (90, 105, 120), head, max(2, r // 12), border_radius=r // 3)
    for dx in (-0.45, 0.45):
        pygame.draw.circle(surface, palette.SKY_BLUE, (cx + r * dx, cy - r * 0.15), max(3, r // 4))
        pygame.draw.circle(surface, palette.TEXT_DARK, (cx + r * dx, cy - r * 0.15), max(1, r // 9))
    mouth = pygame.Rect(cx - r * 0.5, cy + r * 0.35, r, max(3, r // 5))
    pygame.draw.rect(surface, (70, 80, 92), mouth, border_radius=2)
