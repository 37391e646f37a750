"""Where the repository is, for tests that read its files."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
