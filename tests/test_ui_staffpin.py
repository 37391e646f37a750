"""The staff PIN: a salted PBKDF2 hash checked in constant time, off the UI thread, behind an
escalating lock-out that is logged and survives a restart."""
import json
import logging
import threading

import pytest

from calibration.config import Config
from kiosk import notices
from kiosk.staffpin import (GUARD_FILE, LOCK_AFTER, LOCK_FIRST_S, LOCK_MAX_S, PinGuard, hash_pin, lock_seconds,
                            main, parse_pin_hash, verify_pin)
from kiosk.ui.screenshots import idle_view
from tests.helpers.ui import frame, make_app
from tests.helpers.ui import clean_queue  # noqa: F401 - an autouse fixture

FAST = 10_000          # the fewest iterations a config may use: quick tests


def test_hash_and_verify():
    stored = hash_pin("4711", iterations=FAST)
    assert stored.startswith("pbkdf2_sha256$10000$")
    algorithm, iterations, salt, digest = stored.split("$")
    # the PIN itself is never stored: only a 16-byte salt and a 32-byte digest, in hex (random hex may
    # contain "4711" by chance, so the fields are checked, not the text)
    assert (algorithm, iterations) == ("pbkdf2_sha256", "10000")
    assert len(bytes.fromhex(salt)) == 16 and len(bytes.fromhex(digest)) == 32
    assert verify_pin("4711", stored)
    assert not verify_pin("4712", stored)
    assert not verify_pin("", stored)


def test_salt_makes_every_hash_different():
    assert hash_pin("123456", iterations=FAST) != hash_pin("123456", iterations=FAST)


def test_empty_or_malformed_hash_never_matches():
    assert not verify_pin("0000", "")
    assert not verify_pin("0000", "md5$1$00$00")
    assert not verify_pin("0000", "pbkdf2_sha256$x$00$00")
    with pytest.raises(ValueError, match="must look like"):
        parse_pin_hash("plain")


def test_iterations_outside_the_sane_range_are_refused_and_never_run():
    with pytest.raises(ValueError, match="10,000 to 2,000,000"):
        hash_pin("1234", iterations=1)
    digest = "00" * 32
    # a hash claiming 10^12 iterations would freeze the check for hours: it never matches, at once
    assert not verify_pin("1234", f"pbkdf2_sha256$1000000000000$00ff${digest}")
    assert not verify_pin("1234", f"pbkdf2_sha256$1$00ff${digest}")


def test_short_or_non_digit_pins_are_refused():
    with pytest.raises(ValueError, match="at least 4 digits"):
        hash_pin("12")
    with pytest.raises(ValueError, match="at least 4 digits"):
        hash_pin("abcd")


def test_cli_prints_a_config_line(capsys):
    assert main(["98765"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith('staff_pin_hash = "pbkdf2_sha256$')
    assert verify_pin("98765", line.split('"')[1])
    assert main(["1"]) == 2


# ----------------------------------------------------------------------------- the guard

class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


STORED = hash_pin("2468", iterations=FAST)


def attempt(guard: PinGuard, pin: str) -> bool | None:
    if not guard.submit(pin, STORED):
        return None
    guard.wait()
    return guard.poll()


def test_the_lock_escalates_from_30_s_to_an_hour():
    assert [lock_seconds(n) for n in range(1, 8)] == [0, 0, 30, 60, 120, 240, 480]
    assert lock_seconds(50) == LOCK_MAX_S
    # with the lock at its longest, 10,000 PINs take more than a year at the screen
    assert 10_000 * LOCK_MAX_S / 86400 > 365


def test_wrong_pins_lock_the_keypad_longer_each_time_and_every_one_is_logged(tmp_path, caplog):
    clock = Clock()
    guard = PinGuard(tmp_path, clock)
    with caplog.at_level(logging.WARNING, logger="kiosk.staffpin"):
        assert attempt(guard, "0000") is False
        assert attempt(guard, "0001") is False
        assert guard.locked_for() == 0
        assert attempt(guard, "0002") is False
        assert guard.locked_for() == LOCK_FIRST_S
        assert attempt(guard, "2468") is None             # refused while locked: not even checked
        clock.now += LOCK_FIRST_S + 0.1
        assert attempt(guard, "0003") is False
        assert guard.locked_for() == 2 * LOCK_FIRST_S
    wrong = [r.getMessage() for r in caplog.records if "wrong staff PIN" in r.getMessage()]
    assert len(wrong) == 4 and "4 in a row" in wrong[-1] and "60 s" in wrong[-1]
    clock.now += 2 * LOCK_FIRST_S + 0.1
    assert attempt(guard, "2468") is True
    assert guard.failures == 0 and guard.locked_for() == 0


def test_the_lock_survives_a_restart(tmp_path):
    clock = Clock()
    guard = PinGuard(tmp_path, clock)
    for pin in ("1111", "2222", "3333"):
        attempt(guard, pin)
    saved = json.loads((tmp_path / GUARD_FILE).read_text())
    assert saved["failures"] == LOCK_AFTER
    again = PinGuard(tmp_path, clock)                    # the kiosk was restarted
    assert again.failures == LOCK_AFTER and again.locked_for() == LOCK_FIRST_S
    assert attempt(again, "2468") is None
    clock.now += LOCK_FIRST_S + 1
    assert attempt(again, "4444") is False and again.locked_for() == 2 * LOCK_FIRST_S


def test_a_clock_set_back_does_not_lock_for_ever(tmp_path):
    clock = Clock()
    guard = PinGuard(tmp_path, clock)
    for pin in ("1111", "2222", "3333"):
        attempt(guard, pin)
    clock.now -= 10 * 365 * 86400                       # the RTC battery died
    assert guard.locked_for() == LOCK_MAX_S


@pytest.mark.parametrize("content", [b"", b"null", b'{"failures": -1, "locked_until": 0}', b"\xff\xfe",
                                     b'{"failures": 2, "locked_until": "soon"}'])
def test_a_damaged_lock_file_locks_rather_than_opens_and_is_named(tmp_path, content, caplog):
    notices.clear()
    (tmp_path / GUARD_FILE).write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="kiosk.staffpin"):
        guard = PinGuard(tmp_path, Clock())
    assert guard.locked_for() == LOCK_FIRST_S
    assert any(str(tmp_path / GUARD_FILE) in r.getMessage() for r in caplog.records)
    assert list(tmp_path.glob(GUARD_FILE + ".damaged-*"))
    notices.clear()


def test_the_check_runs_off_the_calling_thread(tmp_path):
    slow = hash_pin("2468", iterations=400_000)         # about as slow as the kiosk's own
    seen = []
    guard = PinGuard(tmp_path)
    real = threading.Thread.__init__

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("name"))
        real(self, *args, **kwargs)

    threading.Thread.__init__ = spy
    try:
        assert guard.submit("2468", slow)
    finally:
        threading.Thread.__init__ = real
    assert seen == ["staff-pin-check"]
    assert guard.checking and guard.poll() is None      # returns at once, the answer comes later
    guard.wait()
    assert guard.poll() is True


# ----------------------------------------------------------------------------- on the screen

def pin_app(tmp_path):
    config = Config()
    config.kiosk.staff_pin_hash = STORED
    config.kiosk.state_dir = str(tmp_path)
    app = make_app(idle_view(), config=config)
    app.navigate("pin")
    return app


def type_pin(app, tmp_path, pin: str) -> None:
    for digit in pin:
        app.current.press(app.ctx, digit)
    app.current.press(app.ctx, "ok")
    frame(app, tmp_path)
    app.screens["pin"].guard.wait()          # the check may finish, and leave the pad, within that frame
    frame(app, tmp_path)


def test_the_pin_pad_locks_after_three_wrong_pins_and_stays_locked_after_a_restart(tmp_path):
    app = pin_app(tmp_path)
    for pin in ("1111", "2222", "3333"):
        type_pin(app, tmp_path, pin)
    assert app.screen_name == "pin"
    assert not app.current.buttons.find("key.5").enabled
    type_pin(app, tmp_path, "2468")                        # the right PIN, but the pad is locked
    assert app.screen_name == "pin"
    again = pin_app(tmp_path)                              # a restart
    frame(again, tmp_path)
    assert not again.current.buttons.find("key.ok").enabled
    again.current.guard.locked_until = 0                   # the lock has run out
    frame(again, tmp_path)
    type_pin(again, tmp_path, "2468")
    assert again.screen_name == "staff"


def test_the_pin_pad_shows_the_staff_notices(tmp_path):
    notices.clear()
    app = pin_app(tmp_path)
    plain = frame(app, tmp_path, "plain.png")
    notices.post("/var/lib/tafl-kiosk/journal.jsonl", "damaged journal, line 5: bad checksum", "game lost")
    shown = frame(app, tmp_path, "shown.png")
    notices.clear()
    from kiosk.ui import palette

    def orange(surface):
        return sum(1 for x in range(0, surface.get_width(), 2) for y in range(0, surface.get_height(), 2)
                   if surface.get_at((x, y))[:3] == palette.ORANGE)
    assert orange(shown) > orange(plain) + 50
