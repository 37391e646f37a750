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
