"""Rewards: unlocks per level and per visitor, and signed codes that cannot be forged."""
import datetime as dt

import pytest

from kiosk.rewards import RewardSession, Unlocks, make_code, normalise_code, qr_text, verify_code

SECRET = "museum-secret-1"


def test_each_level_unlocks_its_reward_once():
    session = RewardSession()
    assert session.record_win("easy") == "colours"
    assert session.record_win("easy") is None
    assert session.record_win("hard") == "crown"
    assert session.unlocks == Unlocks(colours=True, shaded=False, crown=True)
    assert session.record_win("medium") == "shaded"
    session.reset()
    assert session.unlocks == Unlocks()
    with pytest.raises(ValueError, match="unknown level 'insane'"):
        session.record_win("insane")


def test_code_round_trip_and_format():
    unlocks = Unlocks(colours=True, crown=True)
    code = make_code(unlocks, SECRET, day=dt.date(2026, 11, 29), nonce=4242)
    assert len(code) == 19 and code.count("-") == 3
    result = verify_code(code, SECRET)
    assert result is not None
    assert result.unlocks == unlocks and result.day == dt.date(2026, 11, 29) and result.nonce == 4242
    # Typed back in lower case, with O for 0 and without dashes, it still checks.
    typed = code.lower().replace("-", " ").replace("0", "o")
    assert verify_code(typed, SECRET) == result
    assert verify_code(qr_text(code), SECRET) == result


def test_forged_or_foreign_codes_are_rejected():
    code = make_code(Unlocks(colours=True), SECRET, nonce=1)
    assert verify_code(code, "another-kiosk") is None
    # Claim the crown by flipping bits of the first character (the flags).
    raw = normalise_code(code)
    for replacement in "0123456789ABCDEFGHJKMNPQRSTVWXYZ":
        if replacement != raw[0]:
            assert verify_code(replacement + raw[1:], SECRET) is None
    assert verify_code("not a code", SECRET) is None
    assert verify_code(code, "") is None


def test_codes_need_a_secret_and_an_unlock():
    with pytest.raises(ValueError, match="reward_secret is empty"):
        make_code(Unlocks(colours=True), "")
    with pytest.raises(ValueError, match="nothing unlocked"):
        make_code(Unlocks(), SECRET)


# ----------------------------------------------------------------------------- expiry and the staff's check

def test_a_code_expires_after_the_configured_days():
    code = make_code(Unlocks(shaded=True), SECRET, day=dt.date(2026, 1, 10))
    result = verify_code(code, SECRET)
    assert result.expires(30) == dt.date(2026, 2, 9)
    assert not result.expired(30, today=dt.date(2026, 2, 9))
    assert result.expired(30, today=dt.date(2026, 2, 10))
    assert not result.expired(365, today=dt.date(2026, 2, 10))


def config_file(tmp_path, secret=SECRET + "-long-enough", days=30):
    path = tmp_path / "config.toml"
    path.write_text(f'[kiosk]\nreward_secret = "{secret}"\nreward_valid_days = {days}\n')
    return path


def run_verify(args, stdin="", env=None):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "kiosk.rewards", "verify", *args], input=stdin,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TAFL_KIOSK_CONFIG": "/nonexistent/config.toml", **(env or {})})


def test_verify_reads_the_secret_and_the_validity_from_the_config(tmp_path):
    path = config_file(tmp_path)
    secret = SECRET + "-long-enough"
    fresh = make_code(Unlocks(colours=True), secret)
    old = make_code(Unlocks(colours=True), secret, day=dt.date.today() - dt.timedelta(days=31))
    r = run_verify([fresh, "--config", str(path)])
    assert r.returncode == 0 and r.stdout.startswith("genuine: colours") and "valid until" in r.stdout
    r = run_verify([old, "--config", str(path)])
    assert r.returncode == 1 and r.stdout.startswith("expired: colours")
    r = run_verify([make_code(Unlocks(colours=True), "another-kiosk-secret"), "--config", str(path)])
    assert r.returncode == 1 and r.stdout.strip() == "not a genuine code"
    r = run_verify([fresh], env={"TAFL_KIOSK_CONFIG": str(path)})
    assert r.returncode == 0


def test_verify_reads_the_secret_from_standard_input(tmp_path):
    code = make_code(Unlocks(crown=True), SECRET)
    r = run_verify([code, "--secret-stdin"], stdin=SECRET + "\n")
    assert r.returncode == 0 and r.stdout.startswith("genuine: crown")
    r = run_verify([code, "--secret-stdin"], stdin="wrong-secret\n")
    assert r.returncode == 1
    r = run_verify([code, "--secret-stdin"], stdin="")
    assert r.returncode == 2 and "no secret on standard input" in r.stderr


def test_the_secret_is_never_taken_from_the_command_line(tmp_path):
    code = make_code(Unlocks(colours=True), SECRET)
    for args in ([code, "--secret", SECRET], [code, f"--secret={SECRET}"]):
        r = run_verify(args)
        assert r.returncode == 2 and "--secret is gone" in r.stderr and r.stdout == ""


def test_verify_without_a_usable_config_says_so_in_one_line(tmp_path):
    code = make_code(Unlocks(colours=True), SECRET)
    r = run_verify([code, "--config", str(tmp_path / "none.toml")])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "none.toml" in r.stderr
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    r = run_verify([code, "--config", str(empty)])
    assert r.returncode == 2 and "reward_secret is empty" in r.stderr
