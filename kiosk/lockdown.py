"""What the kiosk process itself does so that no visitor can leave the game.

The only way out is staff mode's PIN, which ends the process with
STAFF_EXIT_STATUS; tafl-kiosk.service does not restart it after that exit
(RestartPreventExitStatus=100). Everything else that could end or hide the
kiosk is switched off here:

- SDL hints, set in the environment before pygame opens the display: keep the
  window up and fullscreen when focus moves, grab the keyboard so Alt+Tab and
  the like reach the kiosk instead of a desktop, no quit when a window
  closes, no screen saver, and on kmsdrm insist on being the screen's DRM
  master (so a desktop left running is a clear start-up error, not a kiosk
  hidden behind it). Only hints that SDL's Linux build reads are set.
- SDL's own SIGINT/SIGTERM handlers are off: they turn a signal into a QUIT
  event, and QUIT events are ignored here. SIGTERM (systemctl stop) instead
  raises SystemExit in the main thread, so every `finally` runs and the
  gantry's magnet is switched off before the process ends.
- After the window is open: QUIT and WINDOWCLOSE never enter the event queue,
  input is grabbed, the mouse cursor is hidden on the touchscreen, and
  `filter_events` drops the key combinations that desktops use to close or
  switch windows.

The system part (a user with no rights, read-only file system, only the
needed devices, no Ctrl+Alt+Del, no SysRq) is in systemd/tafl-kiosk.service
and systemd/install.sh. A kernel VT switch with Ctrl+Alt+F<n> from a plugged-in
keyboard is not something a process can block; docs/install.md (section 13)
says what it means and how to get back.

Wiring, in the kiosk's start-up and main loop::

    policy = LockdownPolicy(enabled=fullscreen)
    lockdown.apply_sdl_hints(policy=policy)        # before pygame.display.init()
    lockdown.install_signal_handlers()             # main thread
    screen = pygame.display.set_mode(size, pygame.FULLSCREEN)
    lockdown.lock_window(pygame, policy)
    while True:
        for event in lockdown.filter_events(pygame, pygame.event.get(), policy):
            ...
    # staff mode's "exit to the system":  sys.exit(lockdown.STAFF_EXIT_STATUS)
"""
from __future__ import annotations

import os
import signal
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from types import FrameType
from typing import Any

# Exit status of "exit to the system" in staff mode; the unit does not restart it.
STAFF_EXIT_STATUS = 100

# SDL 2 reads every hint from the environment variable of the same name.
SDL_LOCKDOWN_HINTS: dict[str, str] = {
    "SDL_VIDEO_MINIMIZE_ON_FOCUS_LOSS": "0",   # stay fullscreen when focus moves
    "SDL_GRAB_KEYBOARD": "1",                  # a grab takes the keyboard too (Alt+Tab, Super)
    "SDL_QUIT_ON_LAST_WINDOW_CLOSE": "0",
    "SDL_NO_SIGNAL_HANDLERS": "1",             # SIGTERM is ours (see install_signal_handlers)
    "SDL_VIDEO_ALLOW_SCREENSAVER": "0",        # the screen never blanks during a game
    "SDL_KMSDRM_REQUIRE_DRM_MASTER": "1",      # fail clearly if a desktop owns the screen
}


@dataclass(frozen=True)
class LockdownPolicy:
    """Which locks apply. The kiosk on its own screen uses all of them; a
    developer's `--simulate` window on a laptop uses none (`enabled=False`)."""

    enabled: bool = True
    grab_input: bool = True
    hide_cursor: bool = True          # a touchscreen needs no pointer


def apply_sdl_hints(environ: MutableMapping[str, str] | None = None,
                    policy: LockdownPolicy = LockdownPolicy()) -> dict[str, str]:
    """Set the lock-down hints; call before pygame.init() / pygame.display.init().

    Returns the hints that were set. The values are forced, not defaulted: a
    stray variable in the environment must not reopen a way out.
    """
    env = os.environ if environ is None else environ
    if not policy.enabled:
        return {}
    hints = dict(SDL_LOCKDOWN_HINTS)
    if not policy.grab_input:
        hints.pop("SDL_GRAB_KEYBOARD")
    env.update(hints)
    return hints


def lock_window(pygame: Any, policy: LockdownPolicy = LockdownPolicy()) -> None:
    """Apply the locks that need the open window (call right after set_mode)."""
    if not policy.enabled:
        return
    pygame.event.set_blocked([pygame.QUIT, pygame.WINDOWCLOSE])
    if policy.grab_input:
        pygame.event.set_grab(True)
    if policy.hide_cursor:
        pygame.mouse.set_visible(False)


def _key_combos(pygame: Any) -> list[tuple[int, int]]:
    """(modifier mask, key) pairs that desktops use to close, switch or log out."""
    alt, ctrl, gui = pygame.KMOD_ALT, pygame.KMOD_CTRL, pygame.KMOD_GUI
    combos = [
        (alt, pygame.K_F4), (alt, pygame.K_TAB), (alt, pygame.K_ESCAPE),
        (ctrl, pygame.K_q), (ctrl, pygame.K_w), (ctrl, pygame.K_ESCAPE),
        (ctrl | alt, pygame.K_BACKSPACE), (ctrl | alt, pygame.K_DELETE),
        (gui, pygame.K_TAB), (gui, pygame.K_q), (gui, pygame.K_w), (gui, pygame.K_d),
    ]
    combos += [(ctrl | alt, getattr(pygame, f"K_F{n}")) for n in range(1, 13)]
    return combos


def is_escape_attempt(pygame: Any, event: Any) -> bool:
    """True for an event that would close or leave the window on some desktop.

    QUIT and WINDOWCLOSE, and key presses of the combinations in _key_combos;
    the kiosk must act on none of them.
    """
    if event.type in (pygame.QUIT, pygame.WINDOWCLOSE):
        return True
    if event.type not in (pygame.KEYDOWN, pygame.KEYUP):
        return False
    mods = getattr(event, "mod", 0)
    for mask, key in _key_combos(pygame):
        if event.key != key:
            continue
        # Every group named in the mask must be held (either side of it).
        groups = [g for g in (pygame.KMOD_ALT, pygame.KMOD_CTRL, pygame.KMOD_GUI) if mask & g]
        if all(mods & g for g in groups):
            return True
    return False


def filter_events(pygame: Any, events: Iterable[Any],
                  policy: LockdownPolicy = LockdownPolicy()) -> list[Any]:
    """The events the kiosk may act on: `pygame.event.get()` minus escape attempts."""
    if not policy.enabled:
        return list(events)
    return [event for event in events if not is_escape_attempt(pygame, event)]


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def install_signal_handlers() -> None:
    """SIGTERM and SIGINT end the kiosk through SystemExit in the main thread.

    So `finally` blocks and context managers run: the GRBL driver switches the
    magnet off and the journal is closed cleanly before systemd's stop timeout.
    Must be called from the main thread (Python delivers signals there).
    """
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)
