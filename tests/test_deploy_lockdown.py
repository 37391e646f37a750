"""kiosk/lockdown.py against a real pygame window (SDL's dummy video driver)."""
from __future__ import annotations

import os
import signal

import pygame
import pytest

from kiosk import lockdown
from kiosk.lockdown import LockdownPolicy


@pytest.fixture
def window():
    pygame.display.init()
    screen = pygame.display.set_mode((320, 200))
    yield screen
    pygame.event.set_allowed(None)
    pygame.event.set_grab(False)
    pygame.mouse.set_visible(True)
    pygame.display.quit()


def test_hints_are_forced_into_the_environment() -> None:
    env = {"SDL_GRAB_KEYBOARD": "0", "SDL_VIDEODRIVER": "kmsdrm"}
    hints = lockdown.apply_sdl_hints(env)
    assert env["SDL_GRAB_KEYBOARD"] == "1"                  # a stray 0 must not reopen Alt+Tab
    assert env["SDL_NO_SIGNAL_HANDLERS"] == "1"
    assert env["SDL_VIDEO_MINIMIZE_ON_FOCUS_LOSS"] == "0"
    assert env["SDL_KMSDRM_REQUIRE_DRM_MASTER"] == "1"
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"               # the driver is the unit's business
    assert set(hints) <= set(env)


def test_a_development_window_is_not_locked() -> None:
    env: dict[str, str] = {}
    assert lockdown.apply_sdl_hints(env, LockdownPolicy(enabled=False)) == {}
    assert env == {}
    no_grab = lockdown.apply_sdl_hints(env, LockdownPolicy(grab_input=False))
    assert "SDL_GRAB_KEYBOARD" not in no_grab and no_grab["SDL_NO_SIGNAL_HANDLERS"] == "1"


def test_window_close_and_quit_never_reach_the_kiosk(window) -> None:
    lockdown.lock_window(pygame)
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    pygame.event.post(pygame.event.Event(pygame.WINDOWCLOSE))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(10, 10), button=1))
    types = [event.type for event in pygame.event.get()]
    assert pygame.QUIT not in types and pygame.WINDOWCLOSE not in types
    assert pygame.MOUSEBUTTONDOWN in types
    assert pygame.event.get_grab()
    assert not pygame.mouse.get_visible()


def test_the_unlocked_window_still_gets_quit(window) -> None:
    lockdown.lock_window(pygame, LockdownPolicy(enabled=False))
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert pygame.QUIT in [event.type for event in pygame.event.get()]


def _key(key: int, mod: int = 0) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode="", scancode=0)


@pytest.mark.parametrize("key, mod", [
    ("K_F4", "KMOD_LALT"), ("K_TAB", "KMOD_RALT"), ("K_q", "KMOD_LCTRL"), ("K_w", "KMOD_RCTRL"),
    ("K_F2", "KMOD_LCTRL|KMOD_LALT"), ("K_BACKSPACE", "KMOD_CTRL|KMOD_ALT"),
    ("K_DELETE", "KMOD_LCTRL|KMOD_RALT"), ("K_TAB", "KMOD_LGUI"), ("K_d", "KMOD_RGUI"),
])
def test_escape_key_combinations_are_dropped(window, key: str, mod: str) -> None:
    mask = 0
    for name in mod.split("|"):
        mask |= getattr(pygame, name)
    event = _key(getattr(pygame, key), mask)
    assert lockdown.is_escape_attempt(pygame, event)
    assert lockdown.filter_events(pygame, [event]) == []


def test_ordinary_keys_and_touches_pass(window) -> None:
    keep = [
        _key(pygame.K_RETURN), _key(pygame.K_LEFT), _key(pygame.K_q),          # q alone
        _key(pygame.K_F4), _key(pygame.K_F2, pygame.KMOD_LCTRL),                # F2 without Alt
        _key(pygame.K_TAB, pygame.KMOD_SHIFT),
        pygame.event.Event(pygame.FINGERDOWN, x=0.5, y=0.5, dx=0, dy=0, finger_id=1, touch_id=1, pressure=1.0),
    ]
    assert lockdown.filter_events(pygame, keep) == keep
    dropped = [pygame.event.Event(pygame.QUIT), _key(pygame.K_F4, pygame.KMOD_ALT)]
    assert lockdown.filter_events(pygame, dropped, LockdownPolicy(enabled=False)) == dropped


def test_sigterm_becomes_a_clean_system_exit() -> None:
    """systemctl stop: the main thread unwinds, so `finally` switches the magnet off."""
    old_term, old_int = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    cleaned_up = []
    try:
        lockdown.install_signal_handlers()
        with pytest.raises(SystemExit) as exc:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):          # the handler runs between bytecodes
                    pass
                cleaned_up.append("not reached")
            finally:
                cleaned_up.append("magnet off")
        assert exc.value.code == 0
        assert cleaned_up == ["magnet off"]
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int)


def test_the_staff_exit_status_is_the_units() -> None:
    unit = (os.path.dirname(__file__) + "/../systemd/tafl-kiosk.service")
    text = open(unit).read()
    assert f"RestartPreventExitStatus={lockdown.STAFF_EXIT_STATUS}" in text
    assert f"SuccessExitStatus={lockdown.STAFF_EXIT_STATUS}" in text


def test_every_hint_is_one_the_bundled_sdl_reads() -> None:
    """A misspelt or platform-foreign hint would silently do nothing: look for each name in SDL itself."""
    from pathlib import Path

    libs = sorted((Path(pygame.__file__).resolve().parent.parent / "pygame_ce.libs").glob("libSDL2-2*.so*"))
    if not libs:
        pytest.skip("this pygame uses the system's SDL, not a bundled copy to inspect")
    data = libs[0].read_bytes()
    for hint in lockdown.SDL_LOCKDOWN_HINTS:
        assert b"\0" + hint.encode() + b"\0" in data, f"{hint} is not a hint of {libs[0].name}"
