"""The source tree the installer tests install from (systemd/install.sh --src)."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers.paths import REPO

FAKE_CLI_OK = '''\
import sys
args = sys.argv[1:]
assert args[0] == "config", args
if args[1] == "--check":
    text = open(args[2]).read()
    if not text.startswith("board"):
        print(args[2] + ": expected a board line", file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
assert args[1] == "--write-default" and len(args) == 3, args
with open(args[2], "w") as handle:
    handle.write('board = "board-11"\\n')
'''
FAKE_CLI_FAILS = '''\
import sys
print("error: cannot write defaults", file=sys.stderr)
sys.exit(2)
'''


def install_source(tmp_path: Path, cli: str | None = FAKE_CLI_OK) -> Path:
    """A small tree shaped like the repository: its real systemd/ files, a package, the
    directories that must not be copied and (unless ``cli`` is None) a stand-in tafl-calibrate."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "systemd", src / "systemd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", src / "pyproject.toml")
    (src / "kiosk").mkdir()
    (src / "kiosk" / "__init__.py").write_text('"""kiosk"""\n')
    (src / "kiosk" / "__pycache__").mkdir()
    (src / "kiosk" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (src / "docs").mkdir()
    (src / "docs" / "install.md").write_text("# Install\n")
    for skipped in (".git", ".venv", ".pytest_cache"):
        (src / skipped).mkdir()
        (src / skipped / "junk").write_text("not for the kiosk\n")
    if cli is not None:
        (src / "calibration").mkdir()
        (src / "calibration" / "__init__.py").write_text("")
        (src / "calibration" / "cli.py").write_text(cli)
    return src
