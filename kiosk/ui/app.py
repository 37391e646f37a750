"""The pygame loop of the touchscreen: poll the controller, route touches, draw, 60 frames a second.

`KioskApp.step` is one frame and does no waiting of any kind, so the loop
(`run_app`) is the only place that sleeps (pygame's frame limiter). The
engine searches in its own process and the camera and gantry have their own
threads; the controller hands their results over in `poll()`, which returns
at once. Tests drive `KioskApp.step` with posted pygame events and read the
frame it drew.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import pygame

from kiosk import lockdown
from kiosk.i18n import Texts
from kiosk.qr_restore import QrRestore
from kiosk.ui import palette
from kiosk.ui.attract import AttractScreen
from kiosk.ui.context import ROBOT_STATES, UiContext
from kiosk.ui.focus import Focus
from kiosk.ui.game import GameScreen
from kiosk.ui.handover import HandoverScreen
from kiosk.ui.layout import Layout
from kiosk.ui.rewards_screen import RewardsScreen
from kiosk.ui.rules import RulesScreen
from kiosk.ui.staff import PinScreen, StaffScreen
from kiosk.ui.start import StartScreen
from kiosk.ui.widgets import Buttons, draw_panel, draw_paragraph, draw_text
from kiosk.states import State

FPS = 60
COUNTDOWN_S = 20.0            # the "still playing?" warning shows this long before the idle timeout
GAME_SCREENS = ("attract", "start")
RESTORED_NOTICE_S = 6.0       # "welcome back, your rewards are restored" shows this long


class KioskApp:
    """All screens, the navigation between them and the idle timeout; one `step` per frame."""

    def __init__(self, controller: Any, config: Any, world: Any = None, size: tuple[int, int] = (1280, 800),
                 surface: pygame.Surface | None = None, clock: Callable[[], float] = time.monotonic,
                 language: str | None = None) -> None:
        if not pygame.display.get_init():
            pygame.display.init()
        if not pygame.font.get_init():
            pygame.font.init()
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.clock = clock
        self.config = config
        texts = Texts(language or config.kiosk.language)
        self.ctx = UiContext(controller=controller, config=config, texts=texts, layout=Layout.for_size(size),
                             world=world, now=clock())
        self.ctx.navigate = self.navigate
        self.focus = Focus()
        self.ctx.focus = self.focus
        self.screens = {screen.name: screen for screen in (AttractScreen(), StartScreen(), GameScreen(), RulesScreen(),
                                                           RewardsScreen(), PinScreen(), StaffScreen(),
                                                           HandoverScreen())}
        self.current = self.screens["attract"]
        self.last_activity = self.ctx.now
        self.last_frame = self.ctx.now
        self._last_signature: tuple = ()
        self.countdown_buttons = Buttons()
        self.frames = 0
        # a take-home QR code held up to the camera on the start screens gives its unlocks back
        snapshot, check = getattr(controller, "camera_snapshot", None), getattr(controller, "restore_code", None)
        self.qr_restore = QrRestore(snapshot, check) if snapshot is not None and check is not None else None
        self.restored_until = float("-inf")
        self.current.enter(self.ctx)

    # ---- navigation ----------------------------------------------------------------------
    @property
    def screen_name(self) -> str:
        return self.current.name

    def navigate(self, name: str, **kwargs: Any) -> None:
        if name not in self.screens:
            raise ValueError(f"no screen named {name!r}; have {', '.join(self.screens)}")
        if name == "attract":
            self.ctx.staff_unlocked = False
            self.ctx.texts.set_language(self.config.kiosk.language
                                        if self.config.kiosk.language in self.ctx.texts.languages else "en")
        self.current = self.screens[name]
        self.focus.key = None                 # a keyboard user keeps the ring: it lands on the new screen's first button
        self.current.enter(self.ctx, **kwargs)
        self.last_activity = self.ctx.now

    # ---- one frame -----------------------------------------------------------------------
    def step(self, events: list[pygame.event.Event] | None = None) -> None:
        """Poll the controller, handle ``events`` (default: pygame's queue), update, draw."""
        ctx = self.ctx
        ctx.now = self.clock()
        dt = max(0.0, ctx.now - self.last_frame)
        self.last_frame = ctx.now
        ctx.controller.poll()
        ctx.view = ctx.controller.view()
        self.route_by_state()
        ctx.controller.set_attract(self.current.name == "attract")    # idle there: the robot may play itself
        self.track_activity()
        self.check_qr_restore()
        if events is None:
            events = pygame.event.get()
        for event in events:
            if event.type == pygame.QUIT:
                ctx.quit_requested = True
                continue
            if event.type in (pygame.MOUSEBUTTONDOWN, pygame.KEYDOWN, pygame.FINGERDOWN):
                ctx.controller.touched()              # attendance: somebody is there
                if self.countdown_left() is not None:
                    self.last_activity = ctx.now      # "still playing?" answered: this touch only wakes
                    continue
                self.last_activity = ctx.now
            if event.type == pygame.FINGERDOWN:
                continue                              # SDL also sends a mouse event for every touch
            if self.focus.handle(event, self.current, ctx):
                continue
            self.current.handle(event, ctx)
        self.check_idle_timeout()
        self.current.update(ctx, dt)
        self.current.draw(self.surface, ctx)
        if not self.current.keyboard_on_board(ctx):
            self.focus.draw(self.surface, self.current.buttons, max(3, ctx.layout.gap // 2))
        self.draw_notices()
        left = self.countdown_left()
        if left is not None:
            self.draw_countdown(left)
        self.frames += 1

    def route_by_state(self) -> None:
        """A game running (started here, or resumed after a power cut) always has its game screen."""
        view = self.ctx.view
        if view is not None and view.exhibit.mode == "selfplay":
            # the robot plays itself in attract mode; a visitor who stops it chooses on the hand-over screen
            if view.state == State.HANDOVER and self.current.name not in ("handover", "pin", "staff"):
                self.navigate("handover")
            elif view.state != State.HANDOVER and self.current.name in ("game", "handover") and view.outcome is None:
                self.navigate("attract")
            return
        if view is not None and view.state == State.PAUSED:
            if self.current.name == "game":
                self.navigate("attract")      # nobody there: attract, the game kept for their return
            return
        if (self.current.name in GAME_SCREENS and view is not None and view.board is not None
                and view.outcome is None and view.state not in (State.IDLE, State.CLEARING)):
            self.navigate("game")

    def track_activity(self) -> None:
        view = self.ctx.view
        if view is None:
            return
        signature = (view.state, len(view.board.move_stack) if view.board is not None else -1)
        if signature != self._last_signature or view.state in ROBOT_STATES:
            self._last_signature = signature
            self.last_activity = self.ctx.now

    # ---- idle timeout --------------------------------------------------------------------
    @property
    def idle_timeout(self) -> float:
        return float(self.config.kiosk.idle_timeout_s)

    def countdown_left(self) -> float | None:
        """Seconds until the idle timeout while the warning shows, else None.

        Only on the menus and the result: a running game is never ended by a
        timer here (the controller's attendance pauses it, kiosk/attendance.py),
        and never while the kiosk waits for a person to fix or place pieces."""
        if self.current.name == "attract":
            return None
        view = self.ctx.view
        if view is not None and view.board is not None and view.outcome is None \
                and view.state not in (State.IDLE, State.CLEARING):
            return None
        left = self.idle_timeout - (self.ctx.now - self.last_activity)
        warn = min(COUNTDOWN_S, self.idle_timeout / 3)
        return max(0.0, left) if left <= warn else None

    def check_qr_restore(self) -> None:
        """A visitor showed the camera a code from an earlier visit: their unlocks are back."""
        if self.qr_restore is None:
            return
        found = self.qr_restore.poll(self.ctx.now, self.current.name in GAME_SCREENS)
        if found is None:
            return
        self.ctx.rewards.restore(found)
        self.restored_until = self.ctx.now + RESTORED_NOTICE_S
        if self.current.name == "attract":
            self.navigate("start")            # somebody is clearly there
        self.last_activity = self.ctx.now

    def check_idle_timeout(self) -> None:
        left = self.countdown_left()
        if left is None or left > 0:
            return
        # a finished game's board resets itself (kiosk/turns.py): nothing to end here
        self.ctx.rewards.reset()
        self.navigate("attract")

    def draw_notices(self) -> None:
        """Non-blocking notices over any screen: "still there?" on a quiet visitor's turn, and
        "staff have been called" when nobody helped with the pieces."""
        view = self.ctx.view
        if view is None:
            return
        keys = []
        if self.ctx.now < self.restored_until:
            keys.append("rewards.restored")
        if view.state == State.PAUSED:
            keys.append("museum.paused")          # on the attract screen: the last game waits
        if getattr(view, "attendance", None) == "warn":
            keys.append("museum.still_there")
        if getattr(view, "staff_notice", None):
            keys.append("museum.staff_called")
        lay = self.ctx.layout
        y = lay.margin
        for key in keys:
            box = pygame.Rect(0, 0, min(lay.width - 2 * lay.margin, lay.target * 8), lay.font_body * 2 + lay.gap)
            box.midtop = (lay.width // 2, y)
            draw_panel(self.surface, box, palette.PANEL, edge=palette.ORANGE)
            draw_paragraph(self.surface, self.ctx.t(key), box.inflate(-lay.gap * 2, -lay.gap), lay.font_body,
                           align="center", min_size=10)
            y = box.bottom + lay.gap

    def draw_countdown(self, left: float) -> None:
        lay = self.ctx.layout
        dim = pygame.Surface((lay.width, lay.height), pygame.SRCALPHA)
        dim.fill((0, 0, 0, 170))
        self.surface.blit(dim, (0, 0))
        box = pygame.Rect(0, 0, min(lay.width - 2 * lay.margin, lay.target * 6), int(lay.height * 0.6))
        box.center = lay.rect.center
        draw_panel(self.surface, box, palette.PANEL, edge=palette.ORANGE)
        draw_text(self.surface, self.ctx.t("idle.title"), (box.centerx, box.top + lay.gap * 3), lay.font_title,
                  anchor="midtop")
        draw_text(self.surface, str(int(left + 0.999)), box.center, lay.font_title * 2, palette.ORANGE, anchor="center")
        draw_paragraph(self.surface, self.ctx.t("idle.touch"),
                       pygame.Rect(box.left + lay.gap * 3, box.bottom - lay.font_body * 3, box.width - lay.gap * 6,
                                   lay.font_body * 3 - lay.gap), lay.font_body, align="center")


class FrameLimiter:
    """Paces the loop at ``fps`` on a fixed schedule, so one late wake-up is made up by the next frame.

    pygame's Clock.tick sleeps a whole frame after every frame, so each
    oversleep on a busy machine is lost for good (about 52 fps measured on
    the shared development machine); a schedule keeps the average at 60.
    """

    def __init__(self, fps: float = FPS, clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.period = 1.0 / fps
        self.clock = clock
        self.sleep = sleep
        self.next = clock() + self.period

    def wait(self) -> None:
        now = self.clock()
        if now < self.next:
            self.sleep(self.next - now)
            self.next += self.period
        elif now - self.next > self.period:
            self.next = now + self.period       # far behind (a stall): start a new schedule
        else:
            self.next += self.period


def run_app(controller: Any, config: Any, world: Any = None, size: tuple[int, int] = (1280, 800),
            fullscreen: bool = False, max_frames: int | None = None,
            on_ready: Callable[[], object] | None = None, on_frame: Callable[[], object] | None = None) -> int:
    """Open the window and run the kiosk until it is asked to end; returns the process exit status.

    Full screen means the museum's kiosk, so the lock-down applies (kiosk/lockdown.py):
    no key combination or window event ends it, only staff mode's "exit to the
    system", which returns lockdown.STAFF_EXIT_STATUS. A window (make demo) closes
    normally. `on_ready` runs once the screen is up (sd_notify READY=1) and
    `on_frame` once a frame (the watchdog ping); ``max_frames`` ends the loop for
    tests and benchmarks.
    """
    policy = lockdown.LockdownPolicy(enabled=fullscreen)
    lockdown.apply_sdl_hints(policy=policy)
    pygame.display.init()
    pygame.font.init()
    flags = pygame.FULLSCREEN if fullscreen else 0
    pygame.display.set_caption("Tafl kiosk")
    display = pygame.display.set_mode(size, flags)
    lockdown.lock_window(pygame, policy)
    app = KioskApp(controller, config, world=world, size=size, surface=display)
    limiter = FrameLimiter()
    if on_ready is not None:
        on_ready()
    try:
        while not app.ctx.quit_requested:
            app.step(lockdown.filter_events(pygame, pygame.event.get(), policy))
            pygame.display.flip()
            if on_frame is not None:
                on_frame()
            if max_frames is not None and app.frames >= max_frames:
                break
            limiter.wait()
    finally:
        pygame.display.quit()
    return app.ctx.exit_status
