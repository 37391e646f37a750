"""Keyboard focus for every screen and dialog: arrow keys, Tab, Enter and Escape.

WHY one module for all screens: every screen registers the buttons it draws
in a `Buttons` list each frame (kiosk/ui/widgets.py), so the set of things a
finger can press is always known. Keyboard focus works on exactly that list,
so a keyboard-only visitor can reach everything a finger can, on screens that
exist today and on screens added later, without each screen writing its own
key handling.

- Arrow keys move the focus to the nearest button in that direction (by the
  buttons' centres on the glass), Tab / Shift+Tab in drawing order.
- Enter (or Space) presses the focused button.
- Escape presses the screen's way back (a button whose key is in `BACK_KEYS`).
- The ring is drawn only after a key was used and hidden again by a touch,
  the usual "focus visible" behaviour: a touchscreen visitor never sees it.

A screen that uses some keys itself (the board's cursor, the rules' pages,
the PIN digits) says so with ``wants_key(event, ctx)``; those keys reach the
screen and not the focus. A dialog drawn over a screen calls
``Buttons.begin_modal()`` before adding its buttons, so focus (and touch)
stay inside the dialog.
"""
from __future__ import annotations

from typing import Any

import pygame

from kiosk.ui import palette
from kiosk.ui.widgets import Button, Buttons

# Buttons that take the visitor back, in order of preference.
BACK_KEYS = ("confirm_no", "exit.cancel", "cancel", "close", "back", "done")

ARROWS = {pygame.K_LEFT: (-1, 0), pygame.K_RIGHT: (1, 0), pygame.K_UP: (0, -1), pygame.K_DOWN: (0, 1)}
ENTER_KEYS = (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE)

RING: tuple[int, int, int] = palette.YELLOW
RING_INNER: tuple[int, int, int] = palette.BLACK


class Focus:
    """Which button has the keyboard focus; kept by button key, since buttons are rebuilt every frame."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.visible = False

    def reset(self) -> None:
        self.key = None
        self.visible = False

    # ---- what can be focused -------------------------------------------------------------
    @staticmethod
    def candidates(buttons: Buttons) -> list[Button]:
        return [b for b in buttons.focusable() if b.enabled]

    def current(self, buttons: Buttons) -> Button | None:
        if self.key is None:
            return None
        for button in self.candidates(buttons):
            if button.key == self.key:
                return button
        return None

    # ---- keys ----------------------------------------------------------------------------
    def handle(self, event: pygame.event.Event, screen: Any, ctx: Any) -> bool:
        """Act on a key press; True if the focus used it (the screen then does not see it)."""
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.FINGERDOWN):
            self.visible = False
            return False
        if event.type != pygame.KEYDOWN:
            return False
        if screen.wants_key(event, ctx):
            return False
        buttons: Buttons = screen.buttons
        if event.key in ARROWS:
            if not self.move(buttons, ARROWS[event.key]):
                screen.focus_past_edge(ARROWS[event.key], ctx)
            return True
        if event.key == pygame.K_TAB:
            self.cycle(buttons, -1 if event.mod & pygame.KMOD_SHIFT else 1)
            return True
        if event.key in ENTER_KEYS:
            focused = self.current(buttons) if self.visible else None
            if focused is None:
                self.move(buttons, (0, 1))     # nothing focused yet: show where the keyboard is
                return True
            focused.action()
            return True
        if event.key == pygame.K_ESCAPE:
            for key in BACK_KEYS:
                button = next((b for b in self.candidates(buttons) if b.key == key), None)
                if button is not None:
                    button.action()
                    self.key = None
                    return True
            return False
        return False

    def cycle(self, buttons: Buttons, step: int) -> None:
        items = self.candidates(buttons)
        if not items:
            return
        keys = [b.key for b in items]
        if self.key in keys and self.visible:
            index = (keys.index(self.key) + step) % len(keys)
        else:
            index = 0 if step > 0 else len(keys) - 1
        self.key = keys[index]
        self.visible = True

    def move(self, buttons: Buttons, direction: tuple[int, int]) -> bool:
        """Move the focus one step; False if there is no button that way (the screen may take it then)."""
        items = self.candidates(buttons)
        if not items:
            return False
        here = self.current(buttons)
        if here is None or not self.visible:
            self.key = first_button(items).key
            self.visible = True
            return True
        self.visible = True
        target = nearest(here, items, direction)
        if target is None:
            return False
        self.key = target.key
        return True

    # ---- drawing -------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface, buttons: Buttons, width: int) -> None:
        """The ring around the focused button: yellow with a black inner edge, readable on any colour.

        A keyboard user who arrives on a new screen (or whose button went
        away) gets the ring on that screen's first button at once.
        """
        if not self.visible:
            return
        button = self.current(buttons)
        if button is None:
            items = self.candidates(buttons)
            if not items:
                return
            button = first_button(items)
            self.key = button.key
        outer = button.rect.inflate(width * 2 + 2, width * 2 + 2)
        pygame.draw.rect(surface, RING, outer, width, border_radius=width * 2)
        pygame.draw.rect(surface, RING_INNER, outer.inflate(-width * 2, -width * 2), max(1, width // 2),
                         border_radius=width * 2)


def first_button(items: list[Button]) -> Button:
    """Where focus starts: the top-most, then left-most button (reading order)."""
    return min(items, key=lambda b: (b.rect.top // 8, b.rect.left))


def nearest(here: Button, items: list[Button], direction: tuple[int, int]) -> Button | None:
    """The closest button whose centre lies in ``direction`` from ``here``; straight ahead beats diagonal."""
    dx, dy = direction
    hx, hy = here.rect.center
    best: tuple[float, Button] | None = None
    for button in items:
        if button is here:
            continue
        bx, by = button.rect.center
        along = (bx - hx) * dx + (by - hy) * dy
        if along <= 0:
            continue
        across = abs((bx - hx) * dy) + abs((by - hy) * dx)
        # Overlapping in the other axis (same row or column) counts as straight ahead.
        if dx:
            overlap = button.rect.bottom > here.rect.top and button.rect.top < here.rect.bottom
        else:
            overlap = button.rect.right > here.rect.left and button.rect.left < here.rect.right
        cost = along + (0 if overlap else 2 * across + 1)
        if best is None or cost < best[0]:
            best = (cost, button)
    return None if best is None else best[1]
