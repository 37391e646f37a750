"""Files that survive a power cut: atomic replacement and durable appends.

WHY one module: the kiosk is switched off at the wall every evening, so every
file it writes (the configuration, the gantry ledger, the game log, printable
markers) must be either the old or the new version after a power cut, never
half of one. The recipe is easy to get subtly wrong (forgetting to fsync the
directory, leaving a temporary file behind, a moment with no file at all), so
it lives here once. `calibration` is the lowest layer that `vision`, `robot`
and `kiosk` may import, and this module imports nothing of ours.

- `atomic_write_bytes` / `atomic_write_text`: temporary file in the same
  directory, fsync, (optionally keep the previous file as a backup), rename
  over the target, fsync the directory.
- `append_durably`: one write in append mode, fsync, and fsync the directory
  when the write created the file.
- `fsync_dir`: make a rename or a new directory entry itself durable.
- `set_aside`: move a damaged file out of the way under a name with the time,
  so the program starts afresh and staff still find what was there.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

PathLike = str | os.PathLike


def fsync_dir(path: PathLike) -> None:
    """Flush a directory's entries (a rename, a new file) to disk.

    Best effort: some platforms and filesystems cannot open or fsync a
    directory; the rename is still atomic there, only its durability is up to
    the filesystem.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: PathLike, data: bytes, *, mode: int | None = None,
                       keep_owner: bool = False, backup: PathLike | None = None) -> None:
    """Replace ``path`` with ``data`` so a power cut leaves the old or the new file, never half.

    - ``mode``: permission bits of the written file; None keeps the temporary
      file's 0600 (right for files holding secrets).
    - ``keep_owner``: when ``path`` exists, the new file takes its mode and,
      when allowed (root), its owner and group, so an administrator saving with
      sudo does not leave a root-owned file the service cannot read. Takes
      precedence over ``mode`` for an existing file.
    - ``backup``: when ``path`` exists, keep its current content at ``backup``
      (replaced atomically too) before the new file takes its place.

    The directory must exist. On any error the temporary file is removed and
    the target is left as it was.
    """
    name = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(name))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(name)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if keep_owner and os.path.exists(name):
                _copy_ownership(name, tmp)
            elif mode is not None:
                os.chmod(tmp, mode)
            os.fsync(fh.fileno())
        if backup is not None and os.path.exists(name):
            _keep_backup(name, os.fspath(backup))
        os.replace(tmp, name)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    fsync_dir(directory)


def atomic_write_text(path: PathLike, text: str, *, encoding: str = "utf-8", mode: int | None = None,
                      keep_owner: bool = False, backup: PathLike | None = None) -> None:
    """`atomic_write_bytes` of ``text`` encoded as given; newlines are written as they are ("\\n")."""
    atomic_write_bytes(path, text.encode(encoding), mode=mode, keep_owner=keep_owner, backup=backup)


def append_durably(path: PathLike, data: bytes, *, mode: int = 0o640) -> None:
    """Append ``data`` to ``path`` with a single write and fsync it before returning.

    A single ``write`` in append mode means a power cut can at worst tear this
    record, never an earlier one. When the call creates the file (with
    ``mode``), the directory is fsynced too, so the new entry survives. The
    directory must exist.
    """
    name = os.fspath(path)
    created = not os.path.exists(name)
    fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, mode)
    try:
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(f"short write to {name}: {written} of {len(data)} bytes")
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(os.path.dirname(os.path.abspath(name)))


def set_aside(path: PathLike, *, now: float | None = None) -> Path:
    """Rename a damaged ``path`` to ``<name>.damaged-<UTC time>`` beside it and return the new path.

    The reader that found the damage keeps the file for staff instead of
    deleting or overwriting it; a second damaged file in the same second gets
    ``-2``, ``-3``... The rename is made durable (directory fsync).
    """
    src = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    target = src.with_name(f"{src.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = src.with_name(f"{src.name}.damaged-{stamp}-{n}")
    os.replace(src, target)
    fsync_dir(src.parent)
    return target


def _keep_backup(path: str, backup: str) -> None:
    """Make ``backup`` a copy of ``path`` without a moment where either is missing."""
    directory = os.path.dirname(os.path.abspath(backup))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(backup)}.", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        try:
            os.remove(tmp)
            os.link(path, tmp)               # same bytes, no copy; fails on some filesystems
        except OSError:
            with open(path, "rb") as src, open(tmp, "wb") as dst:
                dst.write(src.read())
                dst.flush()
                os.fsync(dst.fileno())
        os.replace(tmp, backup)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _copy_ownership(old: str, new: str) -> None:
    """Give ``new`` the mode of ``old`` and, when allowed (root), its owner and group."""
    st = os.stat(old)
    os.chmod(new, st.st_mode & 0o7777)
    if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.chown(new, st.st_uid, st.st_gid)
        except PermissionError:
            pass                    # not root: the file becomes this user's, as any editor would do


__all__ = ["fsync_dir", "atomic_write_bytes", "atomic_write_text", "append_durably", "set_aside"]
