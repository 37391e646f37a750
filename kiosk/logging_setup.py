"""Logging for the kiosk: levels the journal understands, plus a small file for staff.

Under systemd the kiosk's stderr is a stream into journald ($JOURNAL_STREAM is
set). journald reads a "<N>" syslog-priority prefix at the start of each line
and files the line at that level, so `journalctl -u tafl-kiosk -p warning`
shows only what matters. journald also splits on newlines, so every line of a
multi-line record (a traceback) carries the prefix, or its tail would be filed
as plain info. Timestamps, the unit and the PID are the journal's own fields,
so the journal format leaves them out.

Elsewhere (a terminal, `--simulate`) the format is plain text with a time.

When $LOGS_DIRECTORY is set (LogsDirectory= in the unit) a rotating file of
the last few hundred kilobytes goes there as well: staff mode shows it on the
screen, where journalctl is out of reach of the kiosk's own user.
"""
from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

# syslog(3) priorities; Python has no NOTICE (5).
SYSLOG_PRIORITY = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}

PLAIN_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
JOURNAL_FORMAT = "%(name)s: %(message)s"
LOG_FILE_NAME = "kiosk.log"
LOG_FILE_BYTES = 256 * 1024
LOG_FILE_BACKUPS = 3

# Marks the handlers this module installs, so a second call replaces them.
_OWNED = "_tafl_kiosk_handler"


def syslog_priority(levelno: int) -> int:
    """The syslog priority of a logging level (custom levels round down to the next known one)."""
    for level in sorted(SYSLOG_PRIORITY, reverse=True):
        if levelno >= level:
            return SYSLOG_PRIORITY[level]
    return 7


class JournalFormatter(logging.Formatter):
    """Prefixes every line of a record with its "<N>" syslog priority."""

    def __init__(self) -> None:
        super().__init__(JOURNAL_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        prefix = f"<{syslog_priority(record.levelno)}>"
        return "\n".join(prefix + line for line in text.split("\n"))


def stream_is_journal(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """True when `stream` is the journal stream systemd announced in $JOURNAL_STREAM.

    $JOURNAL_STREAM is "device:inode" of the stream; comparing it with the
    stream's own fstat is what systemd.exec(5) asks for, because a child that
    redirects stderr to a file inherits the variable but not the journal.
    """
    value = environ.get("JOURNAL_STREAM", "")
    if not value:
        return False
    try:
        dev_text, ino_text = value.split(":", 1)
        dev, ino = int(dev_text), int(ino_text)
    except ValueError:
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):
        # No real descriptor (pytest's capture, io.StringIO): trust the variable.
        return True
    return (st.st_dev, st.st_ino) == (dev, ino)


def setup_logging(
    level: int | str = logging.INFO,
    *,
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
    log_dir: str | Path | None = None,
) -> list[logging.Handler]:
    """Configure the root logger for the kiosk and return the handlers it added.

    Safe to call again (e.g. after the config is read with another level): the
    handlers of an earlier call are replaced, others are left alone.
    `log_dir` defaults to $LOGS_DIRECTORY; pass "" to write no file.
    """
    env = os.environ if environ is None else environ
    out = sys.stderr if stream is None else stream
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _OWNED, False)]:
        root.removeHandler(old)
        old.close()

    handlers: list[logging.Handler] = []
    console = logging.StreamHandler(out)
    if stream_is_journal(out, env):
        console.setFormatter(JournalFormatter())
    else:
        console.setFormatter(logging.Formatter(PLAIN_FORMAT))
    handlers.append(console)

    directory = env.get("LOGS_DIRECTORY", "") if log_dir is None else str(log_dir)
    # systemd may list several directories separated by ':'; ours is the first.
    directory = directory.split(":", 1)[0]
    if directory:
        try:
            file_handler = logging.handlers.RotatingFileHandler(
                Path(directory) / LOG_FILE_NAME,
                maxBytes=LOG_FILE_BYTES,
                backupCount=LOG_FILE_BACKUPS,
                encoding="utf-8",
            )
        except OSError as exc:
            print(f"tafl-kiosk: cannot write the log file in {directory}: {exc}", file=out)
        else:
            file_handler.setFormatter(logging.Formatter(PLAIN_FORMAT))
            handlers.append(file_handler)

    for handler in handlers:
        setattr(handler, _OWNED, True)
        root.addHandler(handler)
    root.setLevel(level if isinstance(level, int) else level.upper())
    return handlers


def log_file(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where setup_logging writes its file, for staff mode's log screen."""
    env = os.environ if environ is None else environ
    directory = env.get("LOGS_DIRECTORY", "").split(":", 1)[0]
    return Path(directory) / LOG_FILE_NAME if directory else None
