"""The screen a kiosk shows when its configuration file is refused: resting, with the reason for staff.

WHY: the service restarts the kiosk forever (`Restart=always`). A config file
that is refused (edited by hand, damaged) used to end the process with exit 2
at once, so the unit restarted it every few seconds and the screen never came
up. Running on the built-in defaults instead would drive the gantry with the
wrong calibration. So the kiosk comes up without camera, gantry or engine,
says on the glass that it is resting, names the file and every problem for
staff, tells systemd it is ready (no restart loop), and waits for staff to fix
the file and restart the service.
"""
from __future__ import annotations

import logging
import time
from typing import Callable

import pygame

from kiosk import lockdown
from kiosk.i18n import Texts
from kiosk.ui import palette
from kiosk.ui.layout import Layout
from kiosk.ui.widgets import draw_paragraph, draw_text

log = logging.getLogger("kiosk")


def draw_out_of_service(surface: pygame.Surface, texts: Texts, file: str, problem: str) -> None:
    """One frame: a title and a word for visitors, then the file and its problem for staff, smaller."""
    lay = Layout.for_size(surface.get_size())
    surface.fill(palette.BACKGROUND)
    m, g = lay.margin, lay.gap
    draw_text(surface, texts.get("out_of_service.title"), (lay.width // 2, m * 2), lay.font_title, anchor="midtop")
    visitors = pygame.Rect(m * 2, m * 2 + lay.font_title * 2, lay.width - m * 4, lay.font_body * 3)
    draw_paragraph(surface, texts.get("out_of_service.visitors"), visitors, lay.font_body, palette.TEXT,
                   align="center")
    staff = pygame.Rect(m * 2, visitors.bottom + g * 3, lay.width - m * 4, lay.height - visitors.bottom - g * 3 - m)
    pygame.draw.rect(surface, palette.PANEL, staff, border_radius=12)
    draw_paragraph(surface, texts.get("out_of_service.staff", file=file, problem=problem), staff.inflate(-g * 4, -g * 4),
                   lay.font_small, palette.TEXT_DIM, min_size=10)


def run_out_of_service(file: str, problem: str, size: tuple[int, int], fullscreen: bool, language: str = "en",
                       on_ready: Callable[[], object] | None = None, on_frame: Callable[[], object] | None = None,
                       max_frames: int | None = None) -> int:
    """Show the resting screen until the process is stopped (SIGTERM) or ``max_frames`` frames were drawn."""
    log.error("%s: the config file is refused, the kiosk rests until it is fixed: %s", file, problem)
    policy = lockdown.LockdownPolicy(enabled=fullscreen)
    lockdown.apply_sdl_hints(policy=policy)
    pygame.display.init()
    pygame.font.init()
    display = pygame.display.set_mode(size, pygame.FULLSCREEN if fullscreen else 0)
    lockdown.lock_window(pygame, policy)
    texts = Texts(language if language in Texts("en").languages else "en")
    if on_ready is not None:
        on_ready()
    frames = 0
    try:
        while max_frames is None or frames < max_frames:
            events = lockdown.filter_events(pygame, pygame.event.get(), policy)
            if any(event.type == pygame.QUIT for event in events):
                break
            draw_out_of_service(display, texts, file, problem)
            pygame.display.flip()
            if on_frame is not None:
                on_frame()
            frames += 1
            time.sleep(0.5)          # nothing moves here: two frames a second keep the watchdog fed
    finally:
        pygame.display.quit()
    return 0
