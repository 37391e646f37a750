"""The staff PIN is stored as a salted PBKDF2 hash and checked in constant time."""
import pytest

from kiosk.staffpin import hash_pin, main, parse_pin_hash, verify_pin


def test_hash_and_verify():
    stored = hash_pin("4711", iterations=2000)
    assert stored.startswith("pbkdf2_sha256$2000$")
    assert "4711" not in stored
    assert verify_pin("4711", stored)
    assert not verify_pin("4712", stored)
    assert not verify_pin("", stored)


def test_salt_makes_every_hash_different():
    assert hash_pin("123456", iterations=1000) != hash_pin("123456", iterations=1000)


def test_empty_or_malformed_hash_never_matches():
    assert not verify_pin("0000", "")
    assert not verify_pin("0000", "md5$1$00$00")
    assert not verify_pin("0000", "pbkdf2_sha256$x$00$00")
    with pytest.raises(ValueError, match="must look like"):
        parse_pin_hash("plain")


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
