"""Journal levels through a real pipe standing in for journald's stream, and the staff log file."""
from __future__ import annotations

import io
import logging
import os
from pathlib import Path

import pytest

from kiosk.logging_setup import log_file, setup_logging, stream_is_journal, syslog_priority


@pytest.fixture
def clean_root():
    """Leave the root logger as it was (pytest's own handlers included)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


@pytest.fixture
def journal_pipe():
    """A pipe whose write end is announced as $JOURNAL_STREAM, like systemd does."""
    read_fd, write_fd = os.pipe()
    writer = os.fdopen(write_fd, "w", buffering=1)
    st = os.fstat(write_fd)
    yield writer, read_fd, f"{st.st_dev}:{st.st_ino}"
    writer.close()
    os.close(read_fd)


def _read_all(read_fd: int) -> str:
    os.set_blocking(read_fd, False)
    chunks = []
    try:
        while True:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    except BlockingIOError:
        pass
    return b"".join(chunks).decode()


def test_priorities() -> None:
    assert [syslog_priority(level) for level in (50, 40, 30, 20, 10)] == [2, 3, 4, 6, 7]
    assert syslog_priority(35) == 4          # a custom level between WARNING and ERROR
    assert syslog_priority(1) == 7


def test_journal_stream_gets_a_priority_on_every_line(clean_root, journal_pipe) -> None:
    writer, read_fd, stream_id = journal_pipe
    setup_logging(logging.DEBUG, stream=writer, environ={"JOURNAL_STREAM": stream_id}, log_dir="")
    log = logging.getLogger("kiosk.test")
    log.debug("frame took %d ms", 18)
    log.info("waiting for visitor")
    log.warning("camera: marker 2 hidden")
    try:
        raise RuntimeError("gantry alarm 2")
    except RuntimeError:
        log.exception("robot move failed")
    log.critical("giving up")
    writer.flush()
    lines = _read_all(read_fd).splitlines()
    assert lines[0] == "<7>kiosk.test: frame took 18 ms"
    assert lines[1] == "<6>kiosk.test: waiting for visitor"
    assert lines[2] == "<4>kiosk.test: camera: marker 2 hidden"
    assert lines[3] == "<3>kiosk.test: robot move failed"
    traceback_lines = lines[4:-1]
    assert traceback_lines[0] == "<3>Traceback (most recent call last):"
    assert traceback_lines[-1] == "<3>RuntimeError: gantry alarm 2"
    assert all(line.startswith("<3>") for line in traceback_lines)
    assert lines[-1] == "<2>kiosk.test: giving up"


def test_a_stream_that_is_not_the_journal_gets_the_plain_format(clean_root, journal_pipe) -> None:
    writer, read_fd, stream_id = journal_pipe
    other_read, other_write = os.pipe()
    other = os.fdopen(other_write, "w", buffering=1)
    try:
        # stderr redirected to another pipe: the inherited variable must not fool it.
        assert not stream_is_journal(other, {"JOURNAL_STREAM": stream_id})
        assert stream_is_journal(writer, {"JOURNAL_STREAM": stream_id})
        setup_logging(logging.INFO, stream=other, environ={"JOURNAL_STREAM": stream_id}, log_dir="")
        logging.getLogger("kiosk.test").warning("plain please")
        other.flush()
        text = _read_all(other_read)
    finally:
        other.close()
        os.close(other_read)
    assert not text.startswith("<")
    assert "WARNING kiosk.test: plain please" in text


def test_no_journal_variable_means_plain(clean_root) -> None:
    out = io.StringIO()
    setup_logging("info", stream=out, environ={}, log_dir="")
    logging.getLogger("kiosk.test").info("hello")
    logging.getLogger("kiosk.test").debug("hidden")
    assert out.getvalue().endswith("INFO    kiosk.test: hello\n")
    assert "hidden" not in out.getvalue()
    assert not stream_is_journal(out, {"JOURNAL_STREAM": "garbage"})


def test_logs_directory_gets_a_file_and_calling_again_replaces_handlers(clean_root, tmp_path: Path) -> None:
    out = io.StringIO()
    env = {"LOGS_DIRECTORY": str(tmp_path)}
    first = setup_logging(logging.INFO, stream=out, environ=env)
    second = setup_logging(logging.INFO, stream=out, environ=env)
    assert len(first) == len(second) == 2
    root = logging.getLogger()
    assert not any(handler in root.handlers for handler in first)
    logging.getLogger("kiosk.test").error("serial port vanished")
    for handler in second:
        handler.flush()
    assert log_file(env) == tmp_path / "kiosk.log"
    assert "ERROR   kiosk.test: serial port vanished" in (tmp_path / "kiosk.log").read_text()
    assert out.getvalue().count("serial port vanished") == 1


def test_an_unwritable_log_directory_is_reported_not_fatal(clean_root, tmp_path: Path) -> None:
    out = io.StringIO()
    missing = tmp_path / "no" / "such" / "dir"
    handlers = setup_logging(logging.INFO, stream=out, environ={}, log_dir=missing)
    assert len(handlers) == 1
    assert "cannot write the log file" in out.getvalue()
