"""Durable files: atomic replacement (with backup and permissions) and durable appends."""
import os
import stat

import pytest

from calibration.durable import append_durably, atomic_write_bytes, atomic_write_text, fsync_dir


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_write_replaces_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "a.json"
    atomic_write_text(target, "one\n")
    atomic_write_text(target, "two\n")
    assert target.read_text() == "two\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_new_file_is_private_unless_a_mode_is_given(tmp_path):
    atomic_write_bytes(tmp_path / "secret", b"x")
    atomic_write_bytes(tmp_path / "print.png", b"x", mode=0o644)
    assert _mode(tmp_path / "secret") == 0o600
    assert _mode(tmp_path / "print.png") == 0o644


def test_backup_keeps_the_previous_content(tmp_path):
    target, backup = tmp_path / "c.toml", tmp_path / "c.toml.bak"
    atomic_write_text(target, "first", backup=backup)
    assert not backup.exists()                       # nothing to keep yet
    atomic_write_text(target, "second", backup=backup)
    atomic_write_text(target, "third", backup=backup)
    assert target.read_text() == "third" and backup.read_text() == "second"


def test_keep_owner_keeps_the_old_files_mode(tmp_path):
    target = tmp_path / "c.toml"
    target.write_text("old")
    os.chmod(target, 0o640)
    atomic_write_text(target, "new", keep_owner=True, mode=0o600)
    assert target.read_text() == "new" and _mode(target) == 0o640


def test_a_failed_write_leaves_the_target_and_cleans_up(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("kept")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "\udcff", encoding="utf-8")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")
    assert target.read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write_text(tmp_path / "nope" / "a.txt", "x")


def test_append_durably_appends_and_creates_with_mode(tmp_path):
    log = tmp_path / "games.jsonl"
    append_durably(log, b"1\n", mode=0o640)
    append_durably(log, b"2\n", mode=0o600)           # mode only applies on creation
    assert log.read_bytes() == b"1\n2\n"
    assert _mode(log) == 0o640


def test_fsync_dir_tolerates_what_it_cannot_open(tmp_path, monkeypatch):
    import calibration.durable as durable

    synced, closed = [], []
    real_fsync, real_close = os.fsync, os.close
    monkeypatch.setattr(durable.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    monkeypatch.setattr(durable.os, "close", lambda fd: (closed.append(fd), real_close(fd)))
    fsync_dir(tmp_path)
    assert len(synced) == 1 and closed == synced          # an existing directory is flushed and closed
    fsync_dir(tmp_path / "missing")                       # cannot open: returns, nothing to flush
    assert len(synced) == 1

    def refuse(fd):
        synced.append(fd)
        raise OSError(22, "Invalid argument")             # a filesystem that cannot fsync a directory
    monkeypatch.setattr(durable.os, "fsync", refuse)
    fsync_dir(tmp_path)                                   # no exception...
    assert len(synced) == 2 and closed[-1] == synced[-1]  # ...and the descriptor is still closed


def test_set_aside_keeps_a_damaged_file_under_a_name_with_the_time(tmp_path):
    from calibration.durable import set_aside

    path = tmp_path / "ledger.json"
    path.write_bytes(b"\xffdamaged")
    first = set_aside(path, now=0)
    assert first.name == "ledger.json.damaged-19700101-000000" and not path.exists()
    assert first.read_bytes() == b"\xffdamaged"
    path.write_text("again")
    second = set_aside(path, now=0)
    assert second.name == "ledger.json.damaged-19700101-000000-2" and second.read_text() == "again"
    assert first.read_bytes() == b"\xffdamaged"
